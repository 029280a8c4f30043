"""Every solution in a notebook twin runs on its own after the lesson's cells above it.

Run All skips the solutions (they are collapsed Markdown), so a learner who opens one solution
runs it after the lesson's own cells only. For each twin, one fresh kernel runs the twin's code
cells top to bottom, as Run All does; at each solution it runs the solution's code in a copy of
the kernel's namespace at that point (so an import made in one solution is not there for the
next), and expects the checker's "Correct!".
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from .conftest import REPO_ROOT

TWINS = sorted((REPO_ROOT / "book" / "lessons").glob("*.ipynb"))
SOLUTION = re.compile(
    r"^<details>\n<summary><b>Solution</b>.*?\n(?P<fence>`{3,})python\n(?P<source>.*?)\n(?P=fence)\n",
    re.DOTALL)
RUN_ALONE = '''
def _course_run_alone(source):
    """Run ``source`` as a cell would, in a copy of this namespace."""
    import ast
    from IPython.display import display

    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    namespace = dict(globals())  # a copy: what the solution defines stays out of the lesson
    exec(compile(tree, "<solution>", "exec"), namespace)
    if last is not None:
        display(eval(compile(ast.Expression(last.value), "<solution>", "eval"), namespace))


_course_run_alone({source!r})
del _course_run_alone
'''


def solutions(notebook: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """(cell index, code) of every solution block in a twin."""
    return [(index, match["source"]) for index, cell in enumerate(notebook.cells)
            if cell.cell_type == "markdown" and (match := SOLUTION.match(cell.source))]


def output_text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts += [str(value) for value in output.get("data", {}).values()]
    return "\n".join(parts)


@pytest.mark.parametrize("twin", TWINS, ids=lambda path: path.stem)
def test_every_solution_runs_alone_after_the_cells_above_it(twin: Path):
    notebook = nbformat.read(twin, as_version=4)
    found = solutions(notebook)
    checks = sum(bool(re.search(r"^answer = None\b", cell.source, re.MULTILINE))
                 for cell in notebook.cells if cell.cell_type == "code")  # the learner's exercise cells
    assert found and len(found) == checks, f"{len(found)} solutions for {checks} exercise cells"
    by_index = dict(found)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(twin.parent)}})
    failures = []
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)  # a lesson cell: an error here fails the test
            elif index in by_index:
                probe = nbformat.v4.new_code_cell(RUN_ALONE.format(source=by_index[index]))
                try:
                    client.execute_cell(probe, index)
                except CellExecutionError as error:
                    failures.append(f"cell {index}: {str(error).splitlines()[-1]}")
                    continue
                text = output_text(probe)
                if "Correct!" not in text or "Not yet." in text:
                    failures.append(f"cell {index}: {text[-500:]}")
    assert not failures, f"{twin.name}: solutions that fail on their own:\n" + "\n".join(failures)
