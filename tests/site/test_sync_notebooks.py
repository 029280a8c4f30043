"""The notebook twins read as the website reads: no MyST markup, numbers in, solutions collapsed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
from markdown_it import MarkdownIt
from myst_markdown import UnsupportedMyST, as_text, text_of, to_jupyter
from prose_stability import glue_roles
from sync_notebooks import (
    SETUP_MARK,
    differences,
    executed_notebook,
    execution_caches,
    glue_lookup,
    notebook_cells,
    notebook_json,
    notebook_pages,
    same_reading,
)

from .conftest import REPO_ROOT

PAGES = notebook_pages(REPO_ROOT)
MYST_ONLY = {
    "role": re.compile(r"\{[a-zA-Z][\w:-]*\}`"),
    "colon fence directive": re.compile(r"^\s*:{3,}\s*\{", re.MULTILINE),
    "directive option": re.compile(r"^\s*:[\w-]+:(\s|$)", re.MULTILINE),
    "label target": re.compile(r"^\s*\([\w-]+\)=\s*$", re.MULTILINE),
    "substitution": re.compile(r"\{\{[^}]*\}\}"),
}


def markdown_findings(markdown: str) -> list[str]:
    """MyST-only syntax in the text of a Markdown cell, as a CommonMark parser sees it."""
    findings = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type == "fence" and token.info.strip().startswith("{"):
            findings.append(f"directive fence ```{token.info.strip()}")
        if token.type == "inline":
            for name, pattern in MYST_ONLY.items():
                findings += [f"{name}: {match.group(0)!r}" for match in pattern.finditer(token.content)]
    return findings


def fixed_glue(key: str, spec: str) -> str:
    values = {"count": "30522", "gap": "1.5e-07"}
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(values[key], spec)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.stem)
def test_twin_markdown_has_no_myst_only_syntax(page):
    notebook = nbformat.read(page.with_suffix(".ipynb"), as_version=4)
    findings = [f"cell {index}: {finding}" for index, cell in enumerate(notebook.cells)
                if cell.cell_type == "markdown" for finding in markdown_findings(cell.source)]
    assert not findings, "\n".join(findings)


def exercise_named_before(cells, cell) -> int | None:
    """The number of the last exercise the text names before ``cell`` ("**Exercise 2.**",
    "Check yourself (exercise 2)")."""
    for earlier in reversed(cells[:cells.index(cell)]):
        numbers = re.findall(r"(?i)\bexercise (\d+)", earlier.source)
        if numbers:
            return int(numbers[-1])
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.stem)
def test_twin_has_set_up_and_explorers_and_collapsed_solutions(page):
    source = jupytext.reads(page.read_text(), fmt="md:myst")
    twin = nbformat.read(page.with_suffix(".ipynb"), as_version=4)
    code = [cell.source for cell in twin.cells if cell.cell_type == "code"]
    assert code[0].startswith(SETUP_MARK), "the set-up cell must be the notebook's first code cell"
    page_cells = [cell for cell in source.cells if cell.cell_type == "code"]
    for cell in page_cells:
        tags = cell.metadata.get("tags", [])
        if "live.show(" in cell.source:
            assert cell.source in code, "a live explorer cell is missing from the notebook"
        if "remove-cell" in tags and "notebook-only" not in tags:
            assert cell.source not in code, "a cell for the website alone is in the notebook"
    solutions = [cell.source for cell in twin.cells if cell.cell_type == "markdown"
                 and cell.source.startswith("<details>") and "<b>Solution to exercise" in cell.source]
    exercises_start = next((i for i, cell in enumerate(source.cells)
                            if re.search(r"^## Exercises\s*$", cell.source, re.MULTILINE)), None)
    expected = [] if exercises_start is None else [
        cell for cell in source.cells[exercises_start:]
        if {"hide-input", "hide-cell"} & set(cell.metadata.get("tags", []))]
    assert len(solutions) == len(expected)
    # the site numbers the answer boxes in reading order ("Check exercise 2"): the Nth box
    # follows the text of exercise N
    boxes = [cell for cell in source.cells if cell.cell_type == "code" and "answer = None" in cell.source]
    assert len(boxes) == len(expected)
    for number, box in enumerate(boxes, start=1):
        assert exercise_named_before(source.cells, box) == number, f"answer box {number}"
    for number, (solution, cell) in enumerate(zip(solutions, expected, strict=True), start=1):
        assert cell.source.strip() in solution and solution.rstrip().endswith("</details>")
        assert cell.source not in code, "a solution would run with Run All"
        # exercise N's solution is the Nth, and is named so: on the site, in the notebook
        assert f"<b>Solution to exercise {number}</b>" in solution
        prompts = cell.metadata.get("mystnb", {})
        assert prompts.get("code_prompt_show") == f"Show the solution to exercise {number}", (
            f"the site names solution {number} by what it answers: give the cell mystnb: code_prompt_show")
        assert prompts.get("code_prompt_hide") == f"Hide the solution to exercise {number}"
        assert exercise_named_before(source.cells, cell) == number, f"solution {number}"


def test_glue_values_are_formatted_as_on_the_page():
    text = ("The vocabulary holds {glue:text}`count:,` tokens; the gap is {glue:text}`gap:.1e` "
            "and {glue}`count`.")
    assert to_jupyter(text, REPO_ROOT / "book/x.md", fixed_glue) == (
        "The vocabulary holds 30,522 tokens; the gap is 1.5e-07 and 30522.")


def test_a_glued_value_reads_as_itself_not_as_markup():
    """Brackets as character references: Colab reads a backslash-escaped pair as display math."""
    values = {"ids": "[2, 0, 3, 2]", "name": "x_*y*"}
    text = to_jupyter("ids {glue:text}`ids` for $x$, {glue:text}`name`", REPO_ROOT / "book/x.md",
                      lambda key, spec: values[key])
    assert text == "ids &#91;2, 0, 3, 2&#93; for $x$, x\\_\\*y\\*"
    for value in [*values.values(), "a \\ b | <c> `d` [e]"]:  # the twin check reads each back
        assert text_of(as_text(value)) == value


def test_a_glue_call_inside_other_code_stops_the_generator():
    """The twin's run redoes each cell's glue after the cell (``twin_cells.glue_after_cells``),
    which it cannot for a glue call inside a loop that also computes: the sync, which ``make``
    runs, says so, not the twin's run in the site tests."""
    page = ("```{code-cell} ipython3\nfor n in range(3):\n    square = n * n\n"
            "    glue(f'square_{n}', square)\n```\n")
    with pytest.raises(ValueError, match="inside other code"):
        notebook_cells(page, REPO_ROOT / "book" / "x.md", fixed_glue, [])


def test_a_missing_glue_value_stops_the_generator():
    with pytest.raises(UnsupportedMyST, match=r"no value for .*unknown"):
        to_jupyter("{glue:text}`unknown:.2f`", REPO_ROOT / "book/x.md", fixed_glue)


def test_admonitions_become_blockquotes_and_listings_code():
    page = REPO_ROOT / "book" / "lessons" / "04_sinusoidal_positions.md"
    text = ("Before.\n\n:::{admonition} Learning goals\n:class: tip\n"
            "- one {glue:text}`count:,`\n- two\n:::\n\n"
            "```{literalinclude} ../../code/embedding_course/positional.py\n:language: python\n"
            ":pyobject: sinusoidal_encoding_loop\n```\n\n```{note}\nA note.\n```")
    converted = to_jupyter(text, page, fixed_glue)
    assert "> **Learning goals**\n>\n> - one 30,522\n> - two" in converted
    assert "```python\ndef sinusoidal_encoding_loop(" in converted
    assert "> **Note**\n>\n> A note." in converted
    assert not markdown_findings(converted)


def test_unknown_markup_is_refused_not_copied():
    page = REPO_ROOT / "book" / "x.md"
    with pytest.raises(UnsupportedMyST, match="directive \\{mermaid\\}"):
        to_jupyter("```{mermaid}\ngraph\n```", page, fixed_glue)
    with pytest.raises(UnsupportedMyST, match="role \\{sub-ref\\}"):
        to_jupyter("see {sub-ref}`today`", page, fixed_glue)


def test_the_checker_finds_myst_left_in_markdown():
    assert markdown_findings("x {glue:text}`a` y")
    assert markdown_findings(":::{admonition} Goals\n:class: tip\ntext\n:::")
    assert markdown_findings("```{literalinclude} a.py\n```")
    assert not markdown_findings("```python\nx = {1: 2}\n```\n\nA set $\\{x\\}$ and `code`.")


def test_without_a_build_no_notebook_is_written(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://example.org/course\n")
    (tmp_path / "requirements-nodeps.in").write_text("")
    (tmp_path / "code").mkdir()  # the set-up cell names the package's oldest Python
    (tmp_path / "code" / "pyproject.toml").write_text('[project]\nrequires-python = ">=3.11"\n')
    page = tmp_path / "book" / "page.md"
    page.write_text("---\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n# Page\n\n"
                    "```{code-cell} ipython3\n:tags: [remove-cell]\n\n# @title Set-up: old\n```\n\n"
                    "```{code-cell} ipython3\nglue('n', 3)\n```\n\nThere are {glue:text}`n` of them.\n")
    script = REPO_ROOT / "tools" / "sync_notebooks.py"
    result = subprocess.run([sys.executable, str(script), "--root", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "no executed copy" in result.stderr + result.stdout
    assert not Path(page.with_suffix(".ipynb")).exists()


@pytest.mark.parametrize(("new", "old", "same"), [
    ("0.17", "0.17", True), ("0.17", "0.16", True), ("0.17", "0.18", True), ("0.17", "0.15", False),
    ("0.17", "0.170", False), ("1,234", "1,235", True), ("1,234", "1,236", False), ("42%", "41%", True),
    ("1e-06", "1e-05", False), ("10⁻⁶", "10⁻⁵", False), ("RoPE", "ALiBi", False),
    ("[2, 0, 3]", "[2, 0, 4]", False),
])
def test_a_glued_number_may_move_one_unit_in_its_last_place_and_nothing_else(new, old, same):
    assert same_reading(new, old) is same


def test_the_twin_check_tolerates_a_tipped_last_digit_and_nothing_more(built_site):
    """Lesson 7's real twin against this build, with its glued numbers moved on purpose."""
    page = REPO_ROOT / "book" / "lessons" / "07_length_generalisation.md"
    markdown = page.read_text()
    lookup = glue_lookup(executed_notebook(markdown, page, execution_caches(REPO_ROOT)), page)
    twin = notebook_json(markdown, page, lookup, PAGES)
    assert differences(page, markdown, twin, lookup, PAGES) == []

    def moved(units):
        def shifted(key, spec):
            text = lookup(key, spec)
            if re.fullmatch(r"\d+\.\d+", text):
                decimals = len(text.partition(".")[2])
                return f"{float(text) + units * 10.0 ** -decimals:.{decimals}f}"
            return text
        return shifted

    assert any(re.fullmatch(r"\d+\.\d+", lookup(*role)) for role in glue_roles(page)), "no decimal is glued"
    assert differences(page, markdown, notebook_json(markdown, page, moved(1), PAGES), lookup, PAGES) == []
    two_units = notebook_json(markdown, page, moved(2), PAGES)
    assert differences(page, markdown, two_units, lookup, PAGES), "a real change passed"
    reworded = twin.replace("Learning goals", "Learning aims", 1)
    assert reworded != twin and differences(page, markdown, reworded, lookup, PAGES), "a reworded twin passed"
