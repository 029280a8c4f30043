"""Math is drawn at build time: TeX in, SVG with MathML out; bad TeX fails the build."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import math_svg

PAGE = ('<p>Row <span class="math notranslate nohighlight">\\(t\\)</span> of '
        '<span class="math notranslate nohighlight">\\(a &lt; b\\)</span>.</p>\n'
        '<div class="math notranslate nohighlight">\n\\[\\begin{split}x &amp;= 1 \\\\\n'
        'y &amp;= \\sqrt{2}\\end{split}\\]</div>\n'
        '<div class="math notranslate nohighlight" id="equation-pe">\n'
        '<span class="eqno">(1)<a class="headerlink" href="#equation-pe">#</a></span>'
        '\\[\\sin(p)\\]</div>')


def test_formulas_are_found_with_their_entities_decoded():
    assert math_svg.page_formulas(PAGE) == [("t", False), ("a < b", False),
                                            ("\\begin{split}x &= 1 \\\\\ny &= \\sqrt{2}\\end{split}", True),
                                            ("\\sin(p)", True)]


def test_each_formula_becomes_an_svg_with_its_mathml():
    formulas = math_svg.page_formulas(PAGE)
    math = math_svg.render_pages({"page": formulas + formulas})["page"]
    finished = math_svg.replace_formulas(PAGE, math)
    assert "\\(" not in finished and "\\[" not in finished
    # Four formulas, and the page's glyphs once, hidden from view and from screen readers.
    assert finished.count("<svg") == 5 and finished.count("<mjx-assistive-mml") == 4
    assert finished.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert finished.count('aria-hidden="true"') == 5
    assert 'fill="currentColor"' in finished
    assert '<span class="eqno">(1)' in finished and 'id="equation-pe"' in finished
    assert "<mo>&lt;</mo>" in finished  # the MathML says what the formula says
    assert finished.count('<span class="course-math-nowrap">') == 1  # "b." stays on one line
    assert "</mjx-container></span>.</span></p>" in finished


def test_formulas_further_down_wait_in_a_template_in_their_box():
    """Formulas past the first EAGER_TEXT characters of text keep their box; glyphs wait."""
    filler = "<p>" + "word " * 50 + "</p>\n"  # 250 characters of text
    page = ("<body><article class=\"bd-article\">" + PAGE + filler * 2 + PAGE + "</article></body>")
    formulas = math_svg.page_formulas(page)
    math = math_svg.render_pages({"page": formulas})["page"]
    finished = math_svg.replace_formulas(page, math, eager_text=400)
    first, second = finished.split(filler * 2)
    assert "data-course-lazy" not in first and first.count("<template>") == 0
    assert second.count('data-course-lazy=""') == 4 and second.count('<mjx-container ') == 4
    assert second.count("<template><svg>") == 4 and second.count("<mjx-assistive-mml") == 4
    # Each waiting formula: its SVG's opening tag unchanged and empty, then its drawing,
    # which is the same as the drawing of the formula drawn at once.
    drawn = re.findall(r"(<svg [^>]*>)((?:(?!<svg).)*?)</svg><mjx-assistive-mml", first, re.S)
    waiting = re.findall(r"(<svg [^>]*>)</svg><template><svg>(.*?)</svg></template><mjx-assistive-mml",
                         second, re.S)
    assert len(drawn) == len(waiting) == 4
    assert waiting == drawn
    assert all("<use" in drawing or "<rect" in drawing for _, drawing in waiting)
    # Text before the article (the page's header and menus) does not count.
    headed = page.replace("<body>", "<body><nav>" + "menu " * 400 + "</nav>")
    assert "data-course-lazy" not in math_svg.replace_formulas(headed, math, eager_text=400).split(filler)[0]
    # Nor does a formula after the article (the page's table of contents).
    contents = page.replace("</body>", "<nav>" + PAGE + "</nav></body>")
    after_article = math_svg.replace_formulas(contents, math, eager_text=0).split("</article>")[1]
    assert after_article.count("<mjx-container") == 4 and "data-course-lazy" not in after_article
    # All drawn at once when the whole page is within reach, none when none is.
    assert "data-course-lazy" not in math_svg.replace_formulas(page, math, eager_text=10**6)
    assert finished.count("data-course-lazy") == 4
    assert math_svg.replace_formulas(page, math, eager_text=0).count("data-course-lazy") == 8


def test_a_formula_with_svgs_inside_it_waits_whole():
    """Stretchy delimiters are SVGs inside the formula's SVG: the whole drawing waits."""
    formula = ("\\begin{pmatrix}1&2\\\\3&4\\\\5&6\\\\7&8\\end{pmatrix}", True)
    svg = math_svg.render_pages({"page": [formula]})["page"].svgs[formula]
    assert svg.count("<svg") == 3
    box, rest = math_svg.wait_to_draw(svg).split("<template>")
    assert box.count("<svg") == 1 and box.endswith('aria-hidden="true"></svg>')
    drawing, after = rest.split("</template>")
    assert drawing.count("<svg") == drawing.count("</svg>") == 3
    assert after.startswith("<mjx-assistive-mml") and after.count("<svg") == 0


def test_each_page_draws_the_glyphs_it_uses_once():
    import re

    math = math_svg.render_pages({"sum": [("x + y", False), ("x - y", True)], "angle": [("\\theta", False)]})
    for page, wanted in (("sum", {"x", "y", "+", "-"}), ("angle", {"θ"})):
        drawn = re.findall(r'<path id="([^"]+)"', math[page].glyphs)
        assert len(drawn) == len(set(drawn)) == len(wanted), (page, drawn)
        used = {ref for svg in math[page].svgs.values() for ref in re.findall(r'href="#([^"]+)"', svg)}
        assert used == set(drawn), page  # every glyph a formula points to is on its page
        assert 'style="display: none"' in math[page].glyphs


def test_glyph_wrappers_that_draw_nothing_are_left_out():
    formula = ("x^2 + \\frac{a}{b}", False)
    svg = math_svg.render_pages({"page": [formula]})["page"].svgs[formula]
    assert " data-" not in svg.split("<mjx-assistive-mml")[0]  # MathJax's explorer data
    assert "<g>" not in svg  # a wrapper with no attribute
    assert '<use xlink:href="#MJX-TEX-N-32" transform="translate(605,363) scale(0.707)">' in svg
    assert svg.count("<use") == 5 and "<rect" in svg  # x, 2, +, a, b and the fraction bar
    # Only the group that flips the formula is left: the others handed their transform on.
    assert svg.count("<g ") == 1 and 'transform="scale(1,-1)"' in svg
    assert re.search(r'<use xlink:href="#MJX-TEX-I-1D44E" transform="translate\([^"]*\) translate', svg), svg


@pytest.mark.parametrize("tex", ["\\frac{1}{2", "\\notamacro x", "x^^"])
def test_tex_that_does_not_render_fails_loudly(tex):
    with pytest.raises(math_svg.MathRenderError, match="could not render"):
        math_svg.render_pages({"page": [(tex, False), ("x", False)]})


def test_math_markup_that_is_not_understood_fails_loudly():
    odd = '<span class="math notranslate nohighlight">$x$</span>'
    with pytest.raises(math_svg.MathRenderError, match="left as TeX"):
        math_svg.replace_formulas(odd, math_svg.NO_MATH, page="odd.html")
