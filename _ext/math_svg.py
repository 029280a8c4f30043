"""Math drawn at build time: every formula of the written pages becomes an inline SVG.

Sphinx writes inline math as ``<span class="math ...">\\(...\\)</span>`` and display math as
``<div class="math ...">\\[...\\]</div>`` for MathJax to typeset in the browser. Instead, one
node process (``tools/math-js/tex_to_svg.js``, MathJax 3 from the npm package ``mathjax-full``)
turns all formulas of the site into SVG, each self-contained, drawn in ``currentColor`` (so
dark mode works) and followed by its MathML for screen readers. No page loads MathJax.
A formula MathJax cannot render fails the build.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MATH_JS = REPO_ROOT / "tools" / "math-js"
TEX_TO_SVG = MATH_JS / "tex_to_svg.js"
# Inline math, with the punctuation right after it (kept on the formula's line).
INLINE_MATH = re.compile(r'<span class="math notranslate nohighlight">\\\((.*?)\\\)</span>([.,;:!?)]*)', re.S)
# Display math, with the equation number Sphinx puts first when the equation has a label.
DISPLAY_MATH = re.compile(r'(<div class="math notranslate nohighlight"[^>]*>)\s*'
                          r'((?:<span class="eqno">.*?</span>)?)\s*\\\[(.*?)\\\]\s*</div>', re.S)
LEFT_OVER = re.compile(r'class="math notranslate nohighlight"')


class MathRenderError(RuntimeError):
    """MathJax could not render a formula, or a formula was left in the page as TeX."""


def page_formulas(text: str) -> list[tuple[str, bool]]:
    """The formulas of one page, as (TeX, is display math), in page order.

    Args:
        text: the page's HTML.
    Returns:
        A list of (TeX source with HTML entities decoded, True for display math).
    """
    inline = [(html.unescape(tex), False) for tex, _ in INLINE_MATH.findall(text)]
    display = [(html.unescape(match[2]).strip(), True) for match in DISPLAY_MATH.findall(text)]
    return inline + display


def render_formulas(formulas: list[tuple[str, bool]]) -> dict[tuple[str, bool], str]:
    """Render formulas to SVG markup, all in one node process.

    Args:
        formulas: (TeX, is display math) pairs; repeats are rendered once.
    Returns:
        A dict from each (TeX, is display math) pair to its ``<mjx-container>`` markup.
    Raises:
        MathRenderError: node or mathjax-full is missing, or a formula does not render.
    """
    unique = sorted(set(formulas))
    if not unique:
        return {}
    node = shutil.which("node")
    if node is None or not (MATH_JS / "node_modules" / "mathjax-full").is_dir():
        raise MathRenderError("math is drawn at build time with node and the npm package mathjax-full; "
                              "run `make vendor` (it installs tools/math-js)")
    request = json.dumps([{"tex": tex, "display": display} for tex, display in unique])
    result = subprocess.run([node, str(TEX_TO_SVG)], input=request, capture_output=True, text=True,
                            cwd=MATH_JS)
    if result.returncode != 0:
        raise MathRenderError(result.stderr.strip() or f"tex_to_svg.js failed ({result.returncode})")
    return dict(zip(unique, json.loads(result.stdout), strict=True))


def replace_formulas(text: str, svgs: dict[tuple[str, bool], str], page: str = "page") -> str:
    """Put each formula's SVG in place of its TeX in one page.

    Args:
        text: the page's HTML.
        svgs: the output of ``render_formulas`` for (at least) this page's formulas.
        page: the page's name, for the error message.
    Returns:
        The page's HTML with no TeX left for MathJax.
    Raises:
        MathRenderError: a math element is left that neither pattern matched.
    """
    def inline(match: re.Match) -> str:
        tex, punctuation = match.groups()
        svg = svgs[(html.unescape(tex), False)]
        formula = f'<span class="math notranslate nohighlight course-math">{svg}</span>'
        # A line may break before the punctuation that follows an SVG; not here.
        return f'<span class="course-math-nowrap">{formula}{punctuation}</span>' if punctuation else formula

    def display(match: re.Match) -> str:
        opening, number, tex = match.groups()
        # The theme lets the formula's box scroll sideways when it is wider than a phone's
        # screen; a keyboard reaches it too.
        svg = svgs[(html.unescape(tex).strip(), True)]
        svg = svg.replace("<mjx-container ", '<mjx-container tabindex="0" ', 1)
        opening = opening.replace('class="math notranslate nohighlight"',
                                  'class="math notranslate nohighlight course-math"', 1)
        return f"{opening}{number}{svg}</div>"

    finished = DISPLAY_MATH.sub(display, INLINE_MATH.sub(inline, text))
    left = LEFT_OVER.findall(finished)
    if left:
        raise MathRenderError(f"{page}: {len(left)} math element(s) left as TeX (unexpected markup)")
    return finished
