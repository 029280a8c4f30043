"""Math is drawn at build time: TeX in, SVG with MathML out; bad TeX fails the build."""

from __future__ import annotations

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
    finished = math_svg.replace_formulas(PAGE, math_svg.render_formulas(formulas + formulas))
    assert "\\(" not in finished and "\\[" not in finished
    assert finished.count("<svg") == 4 and finished.count("<mjx-assistive-mml") == 4
    assert finished.count('aria-hidden="true"') == 4
    assert 'fill="currentColor"' in finished and "<defs>" not in finished  # no shared font cache
    assert '<span class="eqno">(1)' in finished and 'id="equation-pe"' in finished
    assert "<mo>&lt;</mo>" in finished  # the MathML says what the formula says
    assert finished.count('<span class="course-math-nowrap">') == 1  # "b." stays on one line
    assert "</mjx-container></span>.</span></p>" in finished


@pytest.mark.parametrize("tex", ["\\frac{1}{2", "\\notamacro x", "x^^"])
def test_tex_that_does_not_render_fails_loudly(tex):
    with pytest.raises(math_svg.MathRenderError, match="could not render"):
        math_svg.render_formulas([(tex, False), ("x", False)])


def test_math_markup_that_is_not_understood_fails_loudly():
    odd = '<span class="math notranslate nohighlight">$x$</span>'
    with pytest.raises(math_svg.MathRenderError, match="left as TeX"):
        math_svg.replace_formulas(odd, {}, page="odd.html")
