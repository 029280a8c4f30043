"""What a notebook twin shows in place of the website's machinery: no glue, numbered figures.

The website inserts computed values into its prose with ``glue(...)`` and numbers its figures
from the cells' ``mystnb`` metadata. A notebook reader gets the values already written into the
Markdown (``myst_markdown.py``), so:

* :func:`without_glue` drops every ``glue(...)`` statement from a code cell (and the import of
  ``glue`` when nothing else uses it); the cell computes what it did before;
* :func:`figure_labels` numbers each page's figures per lesson ("Figure 4.3": lesson 4, third
  figure) and :func:`section_labels` finds the heading under each ``(label)=`` target, so that
  ``{numref}`` and ``{ref}`` become a figure number and a link a notebook reader can follow;
* :func:`caption_cell` is the Markdown cell under a figure: its number and caption;
* :func:`glue_after_cells` gives back what the twin left out, so that a run of the twin can
  also say what the page's prose would quote (``tools/run_notebook.py --glue``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

GLUE_IMPORT = re.compile(r"^from course_glue import glue[ \t]*$")
LABELLED_HEADING = re.compile(r"^\((?P<label>[\w.:-]+)\)=[ \t]*\n+#+[ \t]+(?P<title>.+?)[ \t]*$",
                              re.MULTILINE)


@dataclass(frozen=True)
class Target:
    """Where a cross-reference label points in the notebooks."""

    page: Path
    text: str
    """What a reference shows: "Figure 4.3", or a section's title."""
    anchor: str = ""
    """The heading's anchor in Jupyter (its title with spaces as '-'); empty for a figure."""


def _is_glue_call(statement: ast.stmt) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and isinstance(statement.value.func, ast.Name) and statement.value.func.id == "glue")


def _only_glue(statement: ast.stmt) -> bool:
    """A glue call, or a loop or ``if`` whose whole body is glue calls."""
    if _is_glue_call(statement):
        return True
    blocks = isinstance(statement, (ast.For, ast.While, ast.If, ast.With))
    return blocks and not getattr(statement, "orelse", []) and all(_only_glue(s) for s in statement.body)


def _glue_lines(body: list[ast.stmt]) -> set[int]:
    """The (1-based) line numbers of every glue-only statement in ``body``, at any depth."""
    lines: set[int] = set()
    for statement in body:
        if _only_glue(statement):
            lines.update(range(statement.lineno, statement.end_lineno + 1))
            continue
        for field in ("body", "orelse", "finalbody"):
            lines |= _glue_lines(getattr(statement, field, []) or [])
    return lines


def without_glue(source: str) -> str:
    """``source`` without its ``glue(...)`` statements (and ``glue``'s import once unused).

    Args:
        source: a code cell's Python source.
    Returns:
        The same code minus glue; a blank line left between two removed blocks goes too.
        Source that is not plain Python (a cell magic) is returned unchanged.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.split("\n")
    dropped = _glue_lines(tree.body)
    still_used = any(isinstance(node, ast.Name) and node.id == "glue" and node.lineno not in dropped
                     for node in ast.walk(tree))
    if not still_used:  # the import goes too, also from a cell that only imports it
        dropped |= {number for number, line in enumerate(lines, start=1) if GLUE_IMPORT.match(line)}
    if not dropped:
        return source
    kept: list[str] = []
    removed_since_kept = False
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            removed_since_kept = True
            continue
        if not line.strip() and removed_since_kept and (not kept or not kept[-1].strip()):
            continue  # the blank line that separated a removed block
        kept.append(line)
        removed_since_kept = False
    return "\n".join(kept).strip("\n")


def glue_code(source: str) -> str:
    """The ``glue(...)`` statements that :func:`without_glue` drops from ``source``, as code to run.

    Each must stand at the top level of the cell (or be a loop or ``if`` of glue alone there),
    so that it can run after the cell: a glue call inside other code raises ``ValueError``.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    top_level = [statement for statement in tree.body if _only_glue(statement)]
    if len(_glue_lines(tree.body)) != sum(s.end_lineno - s.lineno + 1 for s in top_level):
        raise ValueError(f"a glue call sits inside other code; move it to the cell's top level:\n{source}")
    return "\n".join(ast.get_source_segment(source, statement) for statement in top_level)


def glue_after_cells(markdown: str, twin: nbformat.NotebookNode) -> dict[int, str]:
    """What to run in a twin's kernel, and after which of its cells, to glue what the page glues.

    A page's code cell is in its twin without its glue (or not at all, if it is for the website
    alone). Run after the twin's cell ``index``, ``code[index]`` publishes the same glue values
    as the page: the glue the cells up to there dropped, and the code of the page's cells for the
    website alone that glue (they compute only for the prose).

    Args:
        markdown: the page's MyST source.
        twin: its notebook twin, matched to the page by its code cells' text.
    Returns:
        ``{twin cell index: code}``; the code imports ``glue`` itself.
    Raises:
        ValueError: a twin code cell that is not a page cell without its glue (sync the twin).
    """
    twin_code = [(index, cell.source) for index, cell in enumerate(twin.cells) if cell.cell_type == "code"]
    code: dict[int, list[str]] = {}
    position, last = 0, None
    for cell in jupytext.reads(markdown, fmt="md:myst").cells:
        if cell.cell_type != "code":
            continue
        if position < len(twin_code) and twin_code[position][1] == without_glue(cell.source):
            last = twin_code[position][0]
            position += 1
            glue = glue_code(cell.source)
        else:  # the website's alone, a solution (Markdown in the twin), or all glue
            glue = cell.source if "glue(" in cell.source and not in_twin(cell) else glue_code(cell.source)
        if glue:
            if last is None:
                raise ValueError("the page glues before the twin's first code cell")
            code.setdefault(last, []).append(glue)
    if position != len(twin_code):
        raise ValueError(f"the twin's code cell {twin_code[position][0]} is not on the page: sync the twin")
    return {index: "from course_glue import glue\n\n" + "\n".join(parts) for index, parts in code.items()}


def lesson_number(page: Path) -> str:
    """The lesson's number from its file name (``04_sinusoidal_positions.md`` -> ``"4"``), else ``""``."""
    match = re.match(r"(\d+)_", page.name)
    return str(int(match[1])) if match else ""


def figure_name_and_caption(cell: nbformat.NotebookNode) -> tuple[str, str] | None:
    """The ``mystnb.figure`` name and caption of a code cell, if it draws a numbered figure."""
    figure = cell.metadata.get("mystnb", {}).get("figure") if cell.cell_type == "code" else None
    if not figure or not figure.get("caption"):
        return None
    return figure.get("name", ""), " ".join(str(figure["caption"]).split())


def in_twin(cell: nbformat.NotebookNode) -> bool:
    """Whether the twin keeps ``cell`` (cells for the website alone stay out)."""
    tags = set(cell.metadata.get("tags", []))
    return "site-only" not in tags and ("remove-cell" not in tags or "notebook-only" in tags)


def figure_number(page: Path, index: int) -> str:
    """The twin's number of the ``index``-th (0-based) figure of ``page``: "4.3", or "3" outside a lesson."""
    lesson = lesson_number(page)
    return f"{lesson}.{index + 1}" if lesson else str(index + 1)


def figure_labels(pages: list[Path]) -> dict[str, Target]:
    """Every named figure of ``pages``: label -> its page and "Figure N.M"."""
    labels = {}
    for page in pages:
        figures = [found for cell in jupytext.reads(page.read_text(), fmt="md:myst").cells
                   if in_twin(cell) and (found := figure_name_and_caption(cell))]
        for index, (name, _) in enumerate(figures):
            if name:
                labels[name] = Target(page, f"Figure {figure_number(page, index)}")
    return labels


TWIN_HEADINGS = {
    # a page's heading with math or other non-ASCII text -> the plain heading its twin shows
    r"1. Why scale by $\sqrt{d_\text{model}}$, and why multiply?":
        "1. Why scale by the square root of d_model, and why multiply?",
    r"2. Why both sin and cos? Is $2i$ the position or the dimension?":
        "2. Why both sin and cos? Is 2i the position or the dimension?",
    r"The $\sqrt{d_\text{model}}$ scale, told truthfully":
        "The scale by the square root of d_model, told truthfully",
    r"Wavelengths: from $2\pi$ to almost $2\pi \cdot 10000$":
        "Wavelengths: from 2 pi to almost 2 pi times 10,000",
    "Analogies: king \u2212 man + woman": "Analogies: king - man + woman",
}


def plain_heading(title: str) -> str:
    """A heading's title as its twin writes it: plain ASCII (:data:`TWIN_HEADINGS`).

    Jupyter makes a heading's anchor from its rendered text, and rendered math is the
    renderer's (JupyterLab's MathJax gives "dmodel" for ``$\\sqrt{d_\\text{model}}$``), so a
    link to a heading with math in it leads nowhere. JupyterLab also matches a link's anchor
    to a heading's as written, not decoded: a link to "2π" arrives as "2%CF%80" and finds no
    heading. So a twin's heading is plain ASCII, and has no brackets, which end a link in some
    renderers.
    """
    if title.isascii() and "$" not in title:
        return title
    if title not in TWIN_HEADINGS:
        raise ValueError(f"the heading {title!r} has math or non-ASCII text, which a notebook's "
                         "anchor cannot hold: add its plain form to twin_cells.TWIN_HEADINGS")
    return TWIN_HEADINGS[title]


def _heading_lines(markdown: str):
    """(line index, "## ", title) of each heading of a Markdown cell, outside fenced code.

    A fence (CommonMark) opens with three or more backticks or tildes (a backtick fence's info
    string has no backtick) and closes with a line of at least as many of the same character.
    """
    fence = ""  # the open fence's marker
    for index, line in enumerate(markdown.split("\n")):
        if fence:
            closing = re.fullmatch(r" {0,3}(`{3,}|~{3,})\s*", line)
            if closing and closing[1][0] == fence[0] and len(closing[1]) >= len(fence):
                fence = ""
        elif opening := re.match(r" {0,3}(`{3,}(?!.*`)|~{3,})", line):
            fence = opening[1]
        elif heading := re.match(r"(#{1,6}\s+)(.*?)\s*$", line):
            yield index, heading[1], heading[2]


def headings(markdown: str) -> list[str]:
    """The titles of a Markdown cell's headings (not the comments of its code blocks)."""
    return [title for _, _, title in _heading_lines(markdown)]


def plain_headings(markdown: str) -> str:
    """The Markdown of a cell with each heading written by :func:`plain_heading`."""
    lines = markdown.split("\n")
    for index, prefix, title in _heading_lines(markdown):
        lines[index] = prefix + plain_heading(title)
    return "\n".join(lines)


def heading_anchor(title: str) -> str:
    """The anchor Jupyter gives a heading: its rendered text with each space as '-'.

    Its math is written as :func:`plain_heading` writes it, and code loses its backticks.
    """
    return plain_heading(title).replace("`", "").replace(" ", "-")


def section_labels(pages: list[Path]) -> dict[str, Target]:
    """Every ``(label)=`` target placed above a heading: label -> its page, title and anchor."""
    return {match["label"]: Target(page, match["title"], heading_anchor(match["title"]))
            for page in pages for match in LABELLED_HEADING.finditer(page.read_text())}


def caption_cell(number: str, caption_markdown: str) -> nbformat.NotebookNode:
    """The Markdown cell under a figure: "**Figure 4.3.** caption"."""
    return nbformat.v4.new_markdown_cell(f"**Figure {number}.** {caption_markdown}")
