"""What a notebook reader sees in the twins: numbered, captioned figures, references that lead
somewhere, and no website plumbing in the code cells."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from .conftest import FRONT_MATTER, REPO_ROOT, code_cell

sys.path.insert(0, str(REPO_ROOT / "tools"))

import sync_notebooks
import twin_cells

# every page's twin (not a copy Jupyter keeps in .ipynb_checkpoints/)
TWINS = [page.with_suffix(".ipynb") for page in sync_notebooks.notebook_pages(REPO_ROOT)]
LESSON_TWINS = [path for path in TWINS if twin_cells.lesson_number(path)]
FIGURE_CAPTION = re.compile(r"^\*\*Figure (?P<number>[\d.]+)\.\*\* \S")
FIGURE_MENTION = re.compile(r"\b(?:Fig\.|Figure|Figs\.|Figures)\s+(?P<number>\d+(?:\.\d+)?)")
DATA_LINES = ("from ", "import ", "#", ")", "print(")  # the checker's import, the question's data
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def markdown_cells(twin: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(twin, as_version=4).cells if cell.cell_type == "markdown"]


def code_cells(twin: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(twin, as_version=4).cells if cell.cell_type == "code"]


@pytest.mark.parametrize("twin", TWINS, ids=lambda path: path.stem)
def test_every_figure_of_the_page_has_its_numbered_caption_in_the_twin(twin):
    page = jupytext.reads(twin.with_suffix(".md").read_text(), fmt="md:myst")
    captions = [" ".join(found[1].split()) for cell in page.cells
                if twin_cells.in_twin(cell) and (found := twin_cells.figure_name_and_caption(cell))]
    shown = [cell for cell in markdown_cells(twin) if FIGURE_CAPTION.match(cell)]
    assert len(shown) == len(captions), f"{len(shown)} caption cells for {len(captions)} figures"
    numbers = [FIGURE_CAPTION.match(cell)["number"] for cell in shown]
    lesson = twin_cells.lesson_number(twin)
    assert numbers == [f"{lesson}.{n}" if lesson else str(n) for n in range(1, len(shown) + 1)]


@pytest.mark.parametrize("twin", TWINS, ids=lambda path: path.stem)
def test_every_figure_the_text_names_is_in_the_twin(twin):
    cells = markdown_cells(twin)
    numbers = {FIGURE_CAPTION.match(cell)["number"] for cell in cells if FIGURE_CAPTION.match(cell)}
    named = {match["number"] for cell in cells if not FIGURE_CAPTION.match(cell)
             for match in FIGURE_MENTION.finditer(cell)}
    assert named <= numbers, f"the text names figures {sorted(named - numbers)} that the twin does not have"


def heading_anchors(twin: Path) -> set[str]:
    return {twin_cells.heading_anchor(title) for cell in markdown_cells(twin)
            for title in twin_cells.headings(cell)}


@pytest.mark.parametrize("twin", TWINS, ids=lambda path: path.stem)
def test_links_between_notebooks_lead_to_a_notebook_and_heading(twin):
    for cell in markdown_cells(twin):
        for match in LINK.finditer(cell):
            target = match["target"]
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            notebook = twin.parent / path if path else twin
            assert not path.endswith(".md"), f"a link to the MyST source {target}; link the .ipynb"
            assert notebook.is_file(), f"{twin.name}: a link to a missing file: {target}"
            if anchor:
                assert anchor in heading_anchors(notebook), f"{twin.name}: no heading for {target}"


def test_the_lesson_4_reference_to_the_libraries_section_is_a_link():
    text = "\n".join(markdown_cells(REPO_ROOT / "book" / "lessons" / "04_sinusoidal_positions.ipynb"))
    assert "see\n[Sinusoidal encodings in the wild](#Sinusoidal-encodings-in-the-wild)" in text \
        or "see [Sinusoidal encodings in the wild](#Sinusoidal-encodings-in-the-wild)" in text


@pytest.mark.parametrize("twin", TWINS, ids=lambda path: path.stem)
def test_no_website_plumbing_in_the_twin_code(twin):
    for source in code_cells(twin):
        assert not re.search(r"\bglue\b", source), source
        assert "on_static_site" not in source and "COURSE_STATIC_SITE" not in source, source


@pytest.mark.parametrize("twin", LESSON_TWINS, ids=lambda path: path.stem)
def test_exercise_cells_start_with_the_question_and_an_empty_answer(twin):
    """Above ``answer = None`` only the checker's import and the question's data."""
    exercises = [source for source in code_cells(twin) if "answer = None" in source]
    assert exercises
    for source in exercises:
        above = source.split("answer = None")[0]
        for line in above.splitlines():
            stripped = line.strip()
            data = stripped.startswith(DATA_LINES) or re.match(r"^[\w, ]+=", line) or line.startswith(" ")
            assert not stripped or data, f"plumbing above the answer: {line!r}\n{source}"


def test_without_glue_keeps_the_computation():
    source = ("from course_glue import glue\nimport numpy as np\n\nx = np.arange(3)\n"
              "glue('x', x.sum())\n\nfor name in ['a']:\n    glue(f'{name}', 1)\n"
              "print(x)\nglue(\n    'y',\n    2,\n)")
    assert twin_cells.without_glue(source) == "import numpy as np\n\nx = np.arange(3)\n\nprint(x)"
    kept = "from course_glue import glue\nglue('a', 1)\nkeep = glue\n"
    assert twin_cells.without_glue(kept).startswith("from course_glue import glue")
    assert twin_cells.without_glue("%time x = 1\nglue('x', 1)") == "%time x = 1\nglue('x', 1)"  # not Python


def test_glue_code_is_what_without_glue_drops_and_refuses_glue_inside_other_code():
    source = "x = 2\nglue('x', x)\nfor name in ['a', 'b']:\n    glue(name, 1)\nprint(x)"
    assert twin_cells.glue_code(source) == "glue('x', x)\nfor name in ['a', 'b']:\n    glue(name, 1)"
    assert twin_cells.glue_code("x = 1") == ""
    with pytest.raises(ValueError, match="inside other code"):
        twin_cells.glue_code("for n in range(3):\n    y = n * n\n    glue(f'y{n}', y)")


def test_glue_after_cells_puts_each_glue_after_the_twin_cell_that_computes_its_value():
    page = (FRONT_MATTER + code_cell('from course_glue import glue\n\nx = 2\nglue("x", x)')
            + code_cell(':tags: [remove-cell]\n\ny = x + 1\nglue("y", y)')
            + code_cell("z = 3") + code_cell('glue("z", z)'))
    twin = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A page"),
                                           nbformat.v4.new_code_cell("x = 2"),
                                           nbformat.v4.new_code_cell("z = 3")])
    code = twin_cells.glue_after_cells(page, twin)
    assert sorted(code) == [1, 2]
    assert code[1] == 'from course_glue import glue\n\nglue("x", x)\ny = x + 1\nglue("y", y)'
    assert code[2] == 'from course_glue import glue\n\nglue("z", z)'
    twin.cells[2].source = "z = 4"  # a twin that is out of sync with its page
    with pytest.raises(ValueError, match="sync the twin"):
        twin_cells.glue_after_cells(page, twin)


def test_every_page_glue_runs_after_a_twin_cell():
    """Each page's glue can be read out from a run of its twin (none sits inside other code)."""
    for twin_path in TWINS:
        page = twin_path.with_suffix(".md")
        code = twin_cells.glue_after_cells(page.read_text(), nbformat.read(twin_path, as_version=4))
        glued = sum(part.count("glue(") for part in code.values())
        assert glued == page.read_text().count("glue("), page.name


def lesson_prose(name: str) -> str:
    """A lesson twin's Markdown, with every run of white space made one space."""
    return " ".join(" ".join(markdown_cells(REPO_ROOT / "book" / "lessons" / f"{name}.ipynb")).split())


def test_lesson_9_questions_give_their_numbers_not_only_their_names():
    """A check-yourself question names its data by value (glued), so that a reader of the site,
    who does not see the constants' cell, reads numbers, not just `SLOW_BASE`."""
    from embedding_course.exercises import questions

    text = lesson_prose("09_questions")
    assert (f"A RoPE head {questions.SLOW_HEAD_DIM} wide (`SLOW_HEAD_DIM`) with base "
            f"{questions.SLOW_BASE:,.0f} (`SLOW_BASE`) runs on contexts of {questions.SLOW_CONTEXT:,} "
            "tokens (`SLOW_CONTEXT`)") in text
    mask = ", ".join(str(bit) for bit in questions.PADDING_MASK)
    assert f"has the mask {mask} (`PADDING_MASK`)" in text


def test_lesson_5_exercises_give_their_numbers_not_only_their_names():
    from embedding_course.exercises import pipeline

    text = lesson_prose("05_combined_pipeline")
    assert f"at most {pipeline.BATCH_MAX_LEN} tokens per sentence (`BATCH_MAX_LEN`)" in text
    assert (f"= {pipeline.SHAPE_D_MODEL} (`SHAPE_D_MODEL`), truncated to {pipeline.SHAPE_MAX_LEN} tokens "
            "(`SHAPE_MAX_LEN`)") in text


def test_a_twin_heading_has_no_math_and_code_comments_are_not_headings():
    cell = "## Why $2i$?\n\n```python\n# a comment with $x$\n```\n### `code` stays"
    with pytest.raises(ValueError, match="TWIN_HEADINGS"):
        twin_cells.plain_headings(cell)
    with pytest.raises(ValueError, match="non-ASCII"):
        twin_cells.plain_heading("king \u2212 man")
    assert twin_cells.headings(cell) == ["Why $2i$?", "`code` stays"]
    # fences as CommonMark closes them: the same character, at least as long, nothing after it
    nested = "````\n```\n# inside\n```\n````\n~~~\n# tilde\n```\n~~~\n## after"
    assert twin_cells.headings(nested) == ["after"]
    assert twin_cells.headings("```inline``` text\n## still a heading") == ["still a heading"]
    page_heading = r"The $\sqrt{d_\text{model}}$ scale, told truthfully"
    plain = twin_cells.plain_headings(f"## {page_heading}\n\n```\n# $x$\n```")
    assert plain == "## The scale by the square root of d_model, told truthfully\n\n```\n# $x$\n```"
    assert twin_cells.heading_anchor("9. `rotate_half` or interleaved?") == "9.-rotate_half-or-interleaved?"
    for twin_heading in twin_cells.TWIN_HEADINGS.values():  # what JupyterLab and a link both keep
        assert twin_heading.isascii() and not set("()[]$`") & set(twin_heading)
