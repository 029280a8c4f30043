"""Math is drawn at build time by Sphinx's HTML math renderer ``svg`` (``_ext/math_svg.py``):
TeX in, SVG with MathML out, written by the HTML translator itself; bad TeX fails the build.

Most tests build a tiny Sphinx project with the extension alone (a few seconds): nothing of the
site's post-processing runs there, so what they find in its pages the renderer wrote."""

from __future__ import annotations

import re
import sys
from io import StringIO
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import math_svg

FILLER = "\n\n".join(["Words " * 100] * 6)  # 3,600 characters of text: past EAGER_TEXT
MARKUP = "0" * 4000  # in raw HTML and in a comment: no text a reader sees

PAGE = rf"""Sums
====

Row :math:`t` of :math:`a < b`. Then :math:`c`, and :math:`d` alone.

.. raw:: html

   <div data-figure="{MARKUP}"></div>

.. {MARKUP}

.. math::

   x &= 1 \\
   y &= \sqrt{{2}}

.. math::
   :label: pe

   \sin(p)

.. math::

   a = 1

   b = 2

.. math::
   :nowrap:

   \begin{{align}} c &= 3 \end{{align}}

{FILLER}

Far down
--------

Then :math:`z` and

.. math::

   \begin{{pmatrix}}1\\2\end{{pmatrix}}

The :math:`\theta` section
--------------------------

Again :math:`t`.
"""

CONF = f"""import sys
sys.path.insert(0, {str(REPO_ROOT / "_ext")!r})
extensions = ["math_svg"]
html_sidebars = {{"**": ["localtoc.html"]}}
"""


def build(root: Path, pages: dict[str, str], fresh: bool = True):
    """Build a tiny project with the extension alone; return the Sphinx application."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace

    source = root / "source"
    source.mkdir(exist_ok=True)
    (source / "conf.py").write_text(CONF)
    for name, text in pages.items():
        (source / f"{name}.rst").write_text(text)
    with docutils_namespace():  # as sphinx-build does: each build registers its own nodes
        app = Sphinx(str(source), str(source), str(root / "html"), str(root / "doctrees"), "html",
                     status=StringIO(), warning=StringIO(), freshenv=fresh, warningiserror=True)
        app.build()
    return app


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("math")
    toc = "Book\n====\n\n.. toctree::\n\n   sums\n   plain\n"
    app = build(root, {"index": toc, "sums": PAGE, "plain": "Plain\n=====\n\nNo formula here.\n"})
    return root, app


def article(html: str) -> str:
    return html.split('<div class="body" role="main">', 1)[1].split('<div class="sphinxsidebar"', 1)[0]


def test_the_renderer_is_sphinx_s_html_math_renderer(tiny):
    _, app = tiny
    assert app.config.html_math_renderer == math_svg.RENDERER == app.builder.math_renderer_name
    assert app.registry.html_inline_math_renderers[math_svg.RENDERER][0] is math_svg.visit_math
    assert app.registry.html_block_math_renderers[math_svg.RENDERER][0] is math_svg.visit_math_block
    # Nothing rewrites the written pages: the extension has no handler after the build.
    listeners = [listener.handler for listener in app.events.listeners["build-finished"]]
    assert not [handler for handler in listeners if handler.__module__ == "math_svg"]


def test_each_formula_is_an_svg_with_its_mathml(tiny):
    root, _ = tiny
    html = (root / "html" / "sums.html").read_text()
    assert "\\(" not in html and "\\[" not in html
    assert not re.search(r"<script[^>]*mathjax", html, re.I) and "course-math-lazy.js" in html
    body = article(html)
    # 4 + 1 + 1 + 1 inline formulas, 4 + 1 displayed ones; the page's glyphs once, hidden.
    assert body.count("<mjx-container") == 12 and body.count("<mjx-assistive-mml") == 12
    assert body.count('display="true"') == 5
    assert html.count('id="MJX-SVG-global-cache" style="display: none" aria-hidden="true"') == 1
    assert body.index('id="MJX-SVG-global-cache"') < body.index("<mjx-container")
    assert 'fill="currentColor"' in body
    assert "<mo>&lt;</mo>" in body  # the MathML says what the formula says
    # The equation's number and link, as Sphinx writes them.
    assert re.search(r'<div class="math notranslate nohighlight course-math" id="equation-pe">'
                     r'<span class="eqno">\(1\)<a class="headerlink" href="#equation-pe"[^>]*>', body)
    # Blank lines apart: two aligned rows; line breaks: a split; nowrap: as written.
    assert body.count("<mtable") >= 3 and "<mn>3</mn>" in body
    # A line does not break between a formula and the punctuation right after it.
    assert body.count('<span class="course-math-nowrap">') == 3  # "b.", "c," and "d" not
    assert re.search(r'<span class="course-math-nowrap"><span class="math notranslate nohighlight '
                     r'course-math"><mjx-container [^>]*>.*?</mjx-container></span>,</span> and', body)
    assert "</mjx-container></span> alone" in body
    # The glyphs every formula points to are on the page, each drawn once.
    drawn = re.findall(r'<path id="([^"]+)"', html)
    assert len(drawn) == len(set(drawn))
    assert set(re.findall(r'href="#(MJX-[^"]+)"', html)) == set(drawn)


def test_formulas_further_down_wait_in_a_template_in_their_box(tiny):
    """Formulas past the first EAGER_TEXT characters of text keep their box; glyphs wait."""
    root, _ = tiny
    body = article((root / "html" / "sums.html").read_text())
    first, second = body.split("Far down", 1)
    assert "data-course-lazy" not in first and first.count("<mjx-container") == 8
    assert second.count('<mjx-container data-course-lazy=""') == second.count("<mjx-container") == 4
    assert second.count("<template><svg>") == 4 and second.count("<mjx-assistive-mml") == 4
    # Each waiting formula: its SVG's opening tag unchanged and empty, then its drawing, which
    # is the same as the drawing of the same formula drawn at once.
    waiting = re.findall(r"<svg [^>]*></svg><template><svg>(.*?)</svg></template><mjx-assistive-mml",
                         second, re.S)
    assert len(waiting) == 4 and all("<use" in drawing for drawing in waiting)
    t = math_svg.render({"page": [("t", False)]}).pages["page"].formulas[("t", False)]
    assert t["lazy"] in second and t["eager"] in first


def test_formulas_outside_the_text_are_drawn_at_once(tiny):
    """The sidebar's table of contents shows the section titles' formulas, drawn at once."""
    root, _ = tiny
    html = (root / "html" / "sums.html").read_text()
    sidebar = html.split('<div class="sphinxsidebar"', 1)[1]
    assert sidebar.count("<mjx-container") == 1 and "data-course-lazy" not in sidebar
    assert "The <span" in sidebar and "MJX-TEX-I-1D703" in sidebar  # θ


def test_a_title_s_formula_on_another_page_carries_its_own_glyphs(tiny):
    """The book's toctree lists the sections of "sums", one with a formula in its title."""
    root, _ = tiny
    html = (root / "html" / "index.html").read_text()
    assert html.count("<mjx-container") == 1
    assert "MJX-SVG-global-cache" not in html and 'href="#MJX' not in html
    formula = html.split("<mjx-container", 1)[1].split("</mjx-container>", 1)[0]
    assert "<path " in formula and "<mi>θ</mi>" in formula


def test_a_page_without_formulas_gets_no_glyphs_nor_math_script(tiny):
    """(The math styles are on every page: the site links one stylesheet, first_paint.py.)"""
    root, _ = tiny
    html = (root / "html" / "plain.html").read_text()
    assert "MJX-SVG-global-cache" not in html and "course-math-lazy.js" not in html


def test_a_rebuild_draws_the_pages_it_writes_and_leaves_the_others(tmp_path):
    """No step after the build draws anything: a page written by an incremental build has its
    formulas drawn, and a page that is not written again keeps its drawing."""
    pages = {"index": "Book\n====\n\n.. toctree::\n\n   one\n   two\n",
             "one": "One\n===\n\nSee :math:`x^2`.\n", "two": "Two\n===\n\nSee :math:`y`.\n"}
    build(tmp_path, pages)
    two = (tmp_path / "html" / "two.html")
    written = two.stat().st_mtime_ns
    build(tmp_path, {"one": "One\n===\n\nSee :math:`x^3`.\n"}, fresh=False)
    assert two.stat().st_mtime_ns == written  # not written again
    one = (tmp_path / "html" / "one.html").read_text()
    assert "<mn>3</mn>" in one and "MJX-TEX-N-33" in one and "\\(" not in one
    assert "<mi>y</mi>" in two.read_text()


@pytest.mark.parametrize("tex", ["\\frac{1}{2", "\\notamacro x", "x^^"])
def test_tex_that_does_not_render_fails_the_build_and_says_where(tmp_path, tex):
    from sphinx.errors import SphinxError

    page = f"Bad\n===\n\nFine :math:`x`.\n\nBroken :math:`{tex}` here.\n"
    with pytest.raises(SphinxError, match=r"bad\.rst:6: MathJax could not render a formula") as error:
        build(tmp_path, {"index": ".. toctree::\n\n   bad\n", "bad": page})
    assert tex in str(error.value)


def test_a_formula_with_svgs_inside_it_waits_whole():
    """Stretchy delimiters are SVGs inside the formula's SVG: the whole drawing waits."""
    formula = ("\\begin{pmatrix}1&2\\\\3&4\\\\5&6\\\\7&8\\end{pmatrix}", True)
    drawn = math_svg.render({"page": [formula]}).pages["page"].formulas[formula]
    assert drawn["eager"].count("<svg") == 3
    box, rest = drawn["lazy"].split("<template>")
    assert box.count("<svg") == 1 and box.endswith('aria-hidden="true"></svg>')
    assert box.split("<svg")[1].split(">")[0] == drawn["eager"].split("<svg")[1].split(">")[0]
    drawing, after = rest.split("</template>")
    assert drawing.count("<svg") == drawing.count("</svg>") == 3
    assert after.startswith("<mjx-assistive-mml") and after.count("<svg") == 0
    assert after == "<mjx-assistive-mml" + drawn["eager"].split("<mjx-assistive-mml", 1)[1]


def test_each_page_draws_the_glyphs_it_uses_once():
    math = math_svg.render({"sum": [("x + y", False), ("x - y", True)], "angle": [("\\theta", False)]}).pages
    for page, wanted in (("sum", {"x", "y", "+", "-"}), ("angle", {"θ"})):
        drawn = re.findall(r'<path id="([^"]+)"', math[page].glyphs)
        assert len(drawn) == len(set(drawn)) == len(wanted), (page, drawn)
        used = {ref for formula in math[page].formulas.values()
                for ref in re.findall(r'href="#([^"]+)"', formula["eager"])}
        assert used == set(drawn), page  # every glyph a formula points to is on its page
        assert 'style="display: none"' in math[page].glyphs


def test_glyph_wrappers_that_draw_nothing_are_left_out():
    formula = ("x^2 + \\frac{a}{b}", False)
    svg = math_svg.render({"page": [formula]}).pages["page"].formulas[formula]["eager"]
    assert " data-" not in svg.split("<mjx-assistive-mml")[0]  # MathJax's explorer data
    assert "<g>" not in svg  # a wrapper with no attribute
    assert '<use xlink:href="#MJX-TEX-N-32" transform="translate(605,363) scale(0.707)">' in svg
    assert svg.count("<use") == 5 and "<rect" in svg  # x, 2, +, a, b and the fraction bar
    # Only the group that flips the formula is left: the others handed their transform on.
    assert svg.count("<g ") == 1 and 'transform="scale(1,-1)"' in svg
    assert re.search(r'<use xlink:href="#MJX-TEX-I-1D44E" transform="translate\([^"]*\) translate', svg), svg


def test_each_formula_that_does_not_render_says_why():
    math = math_svg.render({"page": [("\\frac{1}{2", False), ("x", False)]}, [("\\notamacro", False)])
    assert math.pages["page"].formulas[("\\frac{1}{2", False)] == {"error": "Missing close brace"}
    assert "eager" in math.pages["page"].formulas[("x", False)]
    assert math.alone == {("\\notamacro", False): {"error": "Undefined control sequence \\notamacro"}}
