"""Math drawn at build time: every formula of the written pages becomes an inline SVG.

Sphinx writes inline math as ``<span class="math ...">\\(...\\)</span>`` and display math as
``<div class="math ...">\\[...\\]</div>`` for MathJax to typeset in the browser. Instead, one
node process (``tools/math-js/tex_to_svg.js``, MathJax 3 from the npm package ``mathjax-full``)
turns all formulas of the site into SVG, drawn in ``currentColor`` (so dark mode works) and
followed by its MathML for screen readers. Each glyph a page uses is drawn once, in a hidden SVG
at the top of the page, and its formulas point to it; MathJax's wrappers that draw nothing are
left out (the drawing is the same, pixel for pixel). No page loads MathJax.
A formula MathJax cannot render fails the build.

A phone lays out every glyph of every formula while it parses the page, long before the reader
scrolls to most of them. So only the formulas near the top of the page (the first
``EAGER_TEXT`` characters of text) are drawn in the page as it loads. Each formula further
down keeps its SVG box, at its exact size, and its MathML; its glyphs wait, unrendered, in a
``<template>``. ``course-math-lazy.js`` draws them when the formula comes near the screen
(and all of them before printing). Without JavaScript, those formulas show their MathML,
which browsers draw themselves (``course-math.css``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import NamedTuple

from node_tools import run_node_script

REPO_ROOT = Path(__file__).resolve().parent.parent
MATH_JS = REPO_ROOT / "tools" / "math-js"
TEX_TO_SVG = MATH_JS / "tex_to_svg.js"
# Inline math, with the punctuation right after it (kept on the formula's line).
INLINE_MATH = re.compile(r'<span class="math notranslate nohighlight">\\\((.*?)\\\)</span>([.,;:!?)]*)', re.S)
# Display math, with the equation number Sphinx puts first when the equation has a label.
DISPLAY_MATH = re.compile(r'(<div class="math notranslate nohighlight"[^>]*>)\s*'
                          r'((?:<span class="eqno">.*?</span>)?)\s*\\\[(.*?)\\\]\s*</div>', re.S)
ANY_MATH = re.compile(f"{INLINE_MATH.pattern}|{DISPLAY_MATH.pattern}", re.S)
LEFT_OVER = re.compile(r'class="math notranslate nohighlight"')
BODY_TAG = re.compile(r"<body\b[^>]*>")
ARTICLE_TAG = re.compile(r"<article\b[^>]*>")
TAG = re.compile(r"<[^>]*>")
# The formula's SVG: its opening tag (its box) and the glyphs it draws.
FORMULA_SVG = re.compile(r"(<svg\b[^>]*>)(.*)(</svg>)(?=<mjx-assistive-mml)", re.S)  # SVGs nest
# Formulas within this much text from the top of the article are drawn as the page loads:
# more than a desktop's first screen holds, three of a phone's.
EAGER_TEXT = 3000
LAZY = "data-course-lazy"


class PageMath(NamedTuple):
    """One page's formulas drawn as SVG."""

    svgs: dict[tuple[str, bool], str]  # (TeX, is display math) -> <mjx-container> markup
    glyphs: str  # the hidden SVG with every glyph the page's formulas use


NO_MATH = PageMath({}, "")


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


def render_pages(pages: dict[str, list[tuple[str, bool]]]) -> dict[str, PageMath]:
    """Render the formulas of many pages to SVG, all in one node process.

    Args:
        pages: for each page name, its (TeX, is display math) pairs; repeats are rendered once.
    Returns:
        A ``PageMath`` for each page that has a formula.
    Raises:
        MathRenderError: node or mathjax-full is missing, or a formula does not render.
    """
    unique = {page: sorted(set(formulas)) for page, formulas in pages.items() if formulas}
    if not unique:
        return {}
    request = [[{"tex": tex, "display": display} for tex, display in formulas]
               for formulas in unique.values()]
    rendered = run_node_script(TEX_TO_SVG, request, MathRenderError, package="mathjax-full")
    return {page: PageMath(dict(zip(formulas, drawn["formulas"], strict=True)), drawn["glyphs"])
            for (page, formulas), drawn in zip(unique.items(), rendered, strict=True)}


def wait_to_draw(svg: str) -> str:
    """A formula whose glyphs are drawn only when it comes near the screen.

    The SVG keeps its box (the same size, so nothing moves when it is drawn); its drawing goes
    into a ``<template>`` right after it, which the browser parses but neither styles nor lays
    out. ``course-math-lazy.js`` moves the drawing back into the SVG.

    Args:
        svg: a formula's ``<mjx-container>`` markup, from ``render_pages``.
    Returns:
        The same formula, marked ``data-course-lazy``, its drawing in a template.
    """
    box = FORMULA_SVG.search(svg)
    if box is None:
        raise MathRenderError(f"a formula without an SVG: {svg[:80]}")
    opening, drawing, closing = box.groups()
    waiting = f"{opening}{closing}<template><svg>{drawing}</svg></template>"
    svg = svg[:box.start()] + waiting + svg[box.end():]
    return svg.replace("<mjx-container ", f'<mjx-container {LAZY}="" ', 1)


def replace_formulas(text: str, math: PageMath, page: str = "page", eager_text: int = EAGER_TEXT) -> str:
    """Put each formula's SVG in place of its TeX in one page, and the page's glyphs first.

    Args:
        text: the page's HTML.
        math: this page's entry in the output of ``render_pages``.
        page: the page's name, for the error message.
        eager_text: the formulas within this many characters of text from the top of the
            article (or of the body) are drawn at once; the ones further down the article
            wait (``wait_to_draw``).
    Returns:
        The page's HTML with no TeX left for MathJax.
    Raises:
        MathRenderError: a math element is left that neither pattern matched.
    """
    svgs = math.svgs
    article = ARTICLE_TAG.search(text)
    top = article or BODY_TAG.search(text)
    counted, text_before = (top.end() if top else 0), 0
    # Outside the article (the page's table of contents, on a phone a drawer beside the
    # screen) every formula is drawn at once.
    article_end = text.find("</article>", article.end()) if article else len(text)

    def drawn(svg: str, at: int) -> str:
        nonlocal counted, text_before
        if at > article_end >= 0:
            return svg
        if at > counted:
            text_before += len(html.unescape(TAG.sub("", text[counted:at])))
            counted = at
        return svg if text_before <= eager_text else wait_to_draw(svg)

    def inline(match: re.Match) -> str:
        tex, punctuation = match.group(1, 2)
        svg = drawn(svgs[(html.unescape(tex), False)], match.start())
        formula = f'<span class="math notranslate nohighlight course-math">{svg}</span>'
        # A line may break before the punctuation that follows an SVG; not here.
        return f'<span class="course-math-nowrap">{formula}{punctuation}</span>' if punctuation else formula

    def display(match: re.Match) -> str:
        opening, number, tex = match.group(3, 4, 5)
        # The theme lets the formula's box scroll sideways when it is wider than a phone's
        # screen; static/course-tab-stops.js makes it a tab stop then, and only then.
        svg = drawn(svgs[(html.unescape(tex).strip(), True)], match.start())
        opening = opening.replace('class="math notranslate nohighlight"',
                                  'class="math notranslate nohighlight course-math"', 1)
        return f"{opening}{number}{svg}</div>"

    def formula(match: re.Match) -> str:
        return inline(match) if match.group(1) is not None else display(match)

    finished = ANY_MATH.sub(formula, text)
    left = LEFT_OVER.findall(finished)
    if left:
        raise MathRenderError(f"{page}: {len(left)} math element(s) left as TeX (unexpected markup)")
    if not math.glyphs:
        return finished
    body = BODY_TAG.search(finished)
    at = body.end() if body else 0
    return finished[:at] + math.glyphs + finished[at:]
