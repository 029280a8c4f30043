"""Math drawn at build time: Sphinx's HTML math renderer ``svg`` writes every formula as SVG.

Sphinx hands each formula to the HTML math renderer that ``html_math_renderer`` names. This
extension registers one, ``svg``, and selects it: its visitors write each formula as
MathJax's own markup, an SVG drawn in ``currentColor`` (so dark mode works) followed by its
MathML for screen readers. No page loads MathJax. One node process
(``tools/math-js/tex_to_svg.js``, MathJax 3 from the npm package ``mathjax-full``) draws the
formulas of every page when writing starts (``write-started``); each glyph a page uses is
drawn once, in a hidden SVG at the top of the page's text (the template's ``body``, in
``html-page-context``), and its formulas point to it. (A section title's formula that a table
of contents shows on another page carries its own glyphs.) An inline formula and the
punctuation right after it stay on one line (``KeepPunctuationWithMath``). A formula MathJax
cannot render fails the build, naming its file and line.

A phone lays out every glyph of every formula while it parses the page, long before the reader
scrolls to most of them. So only the formulas near the top of the page (within the first
``EAGER_TEXT`` characters of the page's text, counted on its doctree when it is resolved) are
drawn in the page as it loads. Each formula further down keeps its SVG box, at its exact size,
and its MathML; its glyphs wait, unrendered, in a ``<template>``. ``course-math-lazy.js``
draws them when the formula comes near the screen (and all of them before printing). Without
JavaScript, those formulas show their MathML, which browsers draw themselves
(``course-math.css``). Formulas outside the text (the page's table of contents) are drawn at
once.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from docutils import nodes
from node_tools import run_node_script
from sphinx.errors import SphinxError
from sphinx.locale import _
from sphinx.transforms import SphinxTransform
from sphinx.util.logging import get_node_location
from sphinx.util.math import get_node_equation_number

REPO_ROOT = Path(__file__).resolve().parent.parent
TEX_TO_SVG = REPO_ROOT / "tools" / "math-js" / "tex_to_svg.js"
RENDERER = "svg"  # the name html_math_renderer selects
# Formulas within this much text from the top of the page are drawn as the page loads:
# more than a desktop's first screen holds, three of a phone's.
EAGER_TEXT = 3000
LAZY = "math_svg_lazy"  # a formula node's attribute: its glyphs wait (set when it is resolved)
PUNCTUATION = ".,;:!?)"  # kept on the line of the inline formula it follows

Formula = tuple[str, bool]  # (TeX, is display math)


class PageMath(NamedTuple):
    """One page's formulas drawn as SVG."""

    formulas: dict[Formula, dict[str, str]]  # {"eager": markup, "lazy": markup} or {"error": why}
    glyphs: str  # the hidden SVG with every glyph the page's formulas use


class Drawings(NamedTuple):
    """The formulas of the pages, and formulas drawn with their own glyphs (``{"eager": markup}``
    or ``{"error": why}``)."""

    pages: dict[str, PageMath]
    alone: dict[Formula, dict[str, str]]


class MathRenderError(SphinxError):
    """MathJax could not render a formula, or a formula was not drawn."""

    category = "Math render error"


def block_tex(node: nodes.math_block) -> str:
    """The TeX of a display formula, as ``sphinx.ext.mathjax`` hands it to MathJax: a formula
    with line breaks in a ``split``, several formulas (blank lines apart) aligned."""
    if node["nowrap"]:
        return node.astext().strip()
    parts = [part if "\\\\" not in part else f"\\begin{{split}}{part}\\end{{split}}"
             for part in node.astext().split("\n\n") if part.strip()]
    if len(parts) > 1:
        return "\\begin{align}\\begin{aligned}" + "\\\\".join(parts) + "\\end{aligned}\\end{align}"
    return "".join(parts).strip()


def formula_of(node: nodes.math | nodes.math_block) -> Formula:
    if isinstance(node, nodes.math_block):
        return block_tex(node), True
    return node.astext(), False


def is_formula(node: nodes.Node) -> bool:
    return isinstance(node, (nodes.math, nodes.math_block))


def formulas_in(tree: nodes.Node) -> list[Formula]:
    """The formulas of a doctree (or part of one), in document order."""
    return [formula_of(node) for node in tree.findall(is_formula)]


def render(pages: dict[str, list[Formula]], alone: list[Formula] = ()) -> Drawings:
    """Render the formulas of many pages to SVG, all in one node process.

    Args:
        pages: for each page name, its formulas; repeats are rendered once.
        alone: formulas to draw with their own glyphs, for any page.
    Returns:
        A ``PageMath`` for each page that has a formula, and the drawings of ``alone``. A
        formula MathJax cannot render is ``{"error": MathJax's message}``.
    Raises:
        MathRenderError: node or mathjax-full is missing, or the script failed.
    """
    unique = {page: sorted(set(formulas)) for page, formulas in pages.items() if formulas}
    alone = sorted(set(alone))
    if not unique and not alone:
        return Drawings({}, {})

    def request(formulas: list[Formula]) -> list[dict]:
        return [{"tex": tex, "display": display} for tex, display in formulas]

    drawn = run_node_script(TEX_TO_SVG, {"pages": [request(formulas) for formulas in unique.values()],
                                         "alone": request(alone)},
                            MathRenderError, package="mathjax-full")
    pages = {page: PageMath(dict(zip(formulas, page_drawn["formulas"], strict=True)), page_drawn["glyphs"])
             for (page, formulas), page_drawn in zip(unique.items(), drawn["pages"], strict=True)}
    return Drawings(pages, dict(zip(alone, drawn["alone"], strict=True)))


class KeepPunctuationWithMath(SphinxTransform):
    """A line may break between an inline formula's SVG and the punctuation right after it:
    the two go into one ``<span class="course-math-nowrap">``. Applied when a page is read,
    so the section titles of the tables of contents have it too."""

    default_priority = 800

    def apply(self, **kwargs) -> None:
        for math in list(self.document.findall(nodes.math)):
            parent = math.parent
            after = parent.index(math) + 1
            if after >= len(parent) or not isinstance(parent[after], nodes.Text):
                continue
            text = parent[after].astext()
            kept = text[:len(text) - len(text.lstrip(PUNCTUATION))]
            if not kept:
                continue
            if text[len(kept):]:
                parent[after] = nodes.Text(text[len(kept):])
            else:
                parent.remove(parent[after])
            together = nodes.inline("", "", classes=["course-math-nowrap"])
            parent.replace(math, together)
            together += [math, nodes.Text(kept)]


def _draws_math(builder) -> bool:
    return builder.format == "html" and getattr(builder, "math_renderer_name", None) == RENDERER


def draw_every_page(app, builder) -> None:
    """``write-started``: one node process draws the formulas of every page, and those of the
    section titles with their own glyphs (another page's table of contents may show them)."""
    if not _draws_math(builder):
        return
    env = builder.env
    titles = [formula for toc in env.tocs.values() for formula in formulas_in(toc)]
    builder.math_svg = render({docname: formulas_in(env.get_doctree(docname))
                               for docname in sorted(env.found_docs)}, titles)


def place_formulas(app, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: a formula that does not render fails the build; each formula past
    the first ``EAGER_TEXT`` characters of the page's text is marked to wait (``LAZY``)."""
    if not _draws_math(app.builder):
        return
    if not hasattr(app.builder, "math_svg"):  # a builder that starts no writing (singlehtml)
        app.builder.math_svg = Drawings({}, {})
    formulas = list(doctree.findall(is_formula))
    pages = app.builder.math_svg.pages
    drawn = pages.get(docname)
    if formulas and (drawn is None or any(formula_of(node) not in drawn.formulas for node in formulas)):
        # A formula the page did not have when it was read (a post-transform added it).
        drawn = pages[docname] = render({docname: formulas_in(doctree)}).pages[docname]
    failures = [f"{get_node_location(node) or docname}: MathJax could not render a formula: "
                f"{drawn.formulas[formula_of(node)]['error']}\n  TeX: {formula_of(node)[0]}"
                for node in formulas if "error" in drawn.formulas[formula_of(node)]]
    if failures:
        raise MathRenderError("\n".join(failures))
    text_before = 0
    for node in doctree.findall(lambda node: isinstance(node, nodes.Text) or is_formula(node)):
        if isinstance(node, nodes.Text):
            text_before += len(node.astext()) if _shown(node) else 0
        elif text_before > EAGER_TEXT:
            node[LAZY] = True


def _shown(text: nodes.Text) -> bool:
    """Text the page shows: not the markup of raw HTML, nor a comment or another invisible node."""
    node = text.parent
    while node is not None:
        if isinstance(node, (nodes.raw, nodes.Invisible)):
            return False
        node = node.parent
    return True


def _drawing(translator, node: nodes.math | nodes.math_block) -> str:
    """The formula's markup: from its page, or with its own glyphs (a title from elsewhere)."""
    drawings, formula = translator.builder.math_svg, formula_of(node)
    page = drawings.pages.get(translator.builder.current_docname)
    drawn = (page.formulas.get(formula) if page else None) or drawings.alone.get(formula)
    if not drawn or "error" in drawn:
        raise MathRenderError(f"{translator.builder.current_docname}: a formula that was not drawn "
                              f"for this page: {formula[0]}")
    return drawn["lazy" if node.get(LAZY) else "eager"]


def visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight course-math"))
    self.body.append(_drawing(self, node) + "</span>")
    raise nodes.SkipNode


def visit_math_block(self, node: nodes.math_block) -> None:
    # The theme lets the formula's box scroll sideways when it is wider than a phone's
    # screen; static/course-tab-stops.js makes it a tab stop then, and only then.
    self.body.append(self.starttag(node, "div", "", CLASS="math notranslate nohighlight course-math"))
    if node["number"] and not node["nowrap"]:
        self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_drawing(self, node) + "</div>\n")
    raise nodes.SkipNode


def add_glyphs(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    """``html-page-context``: the page's glyphs first in its body, and its math script."""
    page = app.builder.math_svg.pages.get(pagename) if hasattr(app.builder, "math_svg") else None
    if page is None or doctree is None or "body" not in context:
        return
    context["body"] = page.glyphs + context["body"]
    app.add_js_file("course-math-lazy.js", loading_method="defer")


def select_renderer(app, config) -> None:
    config.html_math_renderer = RENDERER


def setup(app):
    app.add_html_math_renderer(RENDERER, inline_renderers=(visit_math, None),
                               block_renderers=(visit_math_block, None))
    app.add_transform(KeepPunctuationWithMath)
    app.add_css_file("course-math.css")  # on every page: the site links one stylesheet (first_paint.py)
    app.connect("config-inited", select_renderer)
    app.connect("write-started", draw_every_page)
    app.connect("doctree-resolved", place_formulas)
    app.connect("html-page-context", add_glyphs, priority=900)  # after the page's other assets
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "2.0"}
