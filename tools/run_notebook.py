"""Execute a notebook top to bottom in a fresh kernel and save the executed copy.

Usage: python tools/run_notebook.py IN.ipynb OUT.ipynb [--timeout SECONDS] [--solutions REPORT.json]
                                   [--glue PAGE.md GLUED.json]

Runs in its own process so that a test can bound it with a time limit and read the result.
Exits 1 with the failing cell's traceback if a cell raises, 2 if a cell runs past the limit.
It uses nbclient, as the site build does.

With ``--solutions``, each exercise's solution (a collapsed ``<details>`` block in a twin, which
Run All skips) is also run where it sits, as a learner who opens it would run it: after the
lesson's cells above it, in a copy of the kernel's namespace (what one solution imports is not
there for the next). Its printed output is written to REPORT.json, one entry per solution;
the saved notebook holds the lesson's cells only, as Run All leaves them.

With ``--glue``, the run also says what the page's prose would quote if this run had built it:
after each cell, the ``glue(...)`` code the twin left out there (``twin_cells.glue_after_cells``)
runs in a copy of the kernel's namespace, and the values it glues are written to GLUED.json as
a notebook. ``tools/prose_stability.py`` compares them with the build's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from time import monotonic

import nbformat
import twin_cells  # beside this file
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

# A twin's solution block, as tools/sync_notebooks.py writes it (SOLUTION_TEMPLATE).
SOLUTION = re.compile(
    r"^<details>\n<summary><b>Solution to exercise \d+</b>.*?\n"
    r"(?P<fence>`{3,})python\n(?P<source>.*?)\n(?P=fence)\n", re.DOTALL)
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
GLUE_ALONE = '''
exec(compile({source!r}, "<glue>", "exec"), dict(globals()))  # a copy: the lesson's names stay as they are
'''


def solutions(notebook: nbformat.NotebookNode) -> dict[int, str]:
    """{cell index: code} of every solution block in a twin's Markdown cells."""
    return {index: match["source"] for index, cell in enumerate(notebook.cells)
            if cell.cell_type == "markdown" and (match := SOLUTION.match(cell.source))}


def output_text(cell: nbformat.NotebookNode) -> str:
    """Everything a cell printed or displayed, as text."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts += [str(value) for value in output.get("data", {}).values()]
        if output.get("output_type") == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
    return "\n".join(parts)


def execute(client: NotebookClient, notebook: nbformat.NotebookNode, run_solutions: bool,
            glue: dict[int, str] | None = None) -> tuple[list[dict], nbformat.NotebookNode]:
    """Run the code cells in order (and each solution where it sits, and ``glue`` after its cell).

    Returns:
        The solutions' reports, and a notebook of one cell that holds what ``glue`` glued.
    """
    found = solutions(notebook) if run_solutions else {}
    reports = []
    glued = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell()])
    client.reset_execution_trackers()
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)  # a lesson cell: an error here stops the run
                if glue and index in glue:
                    probe = nbformat.v4.new_code_cell(GLUE_ALONE.format(source=glue[index]))
                    client.execute_cell(probe, index)  # stored at this index: put the cell back
                    notebook.cells[index] = cell
                    glued.cells[0].outputs += probe.outputs
            elif index in found:
                probe = nbformat.v4.new_code_cell(RUN_ALONE.format(source=found[index]))
                try:
                    client.execute_cell(probe, index)  # nbclient stores the probe at this index...
                    error = ""
                except CellExecutionError as failure:
                    error = str(failure).strip().splitlines()[-1]
                notebook.cells[index] = cell  # ...where the Markdown solution stays
                reports.append({"cell": index, "output": output_text(probe), "error": error})
        client.set_widgets_metadata()
    return reports, glued


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell")
    parser.add_argument("--solutions", type=Path, metavar="REPORT",
                        help="also run every solution alone; write what each printed to this JSON file")
    parser.add_argument("--glue", nargs=2, type=Path, metavar=("PAGE", "GLUED"),
                        help="also run the page's glue code after its cells; write the values to GLUED")
    args = parser.parse_args()
    notebook = nbformat.read(args.notebook, as_version=4)
    glue = twin_cells.glue_after_cells(args.glue[0].read_text(), notebook) if args.glue else None
    started = {}

    def report(cell, cell_index, **_):
        seconds = monotonic() - started.pop(cell_index, monotonic())
        print(f"cell {cell_index}: {seconds:.1f} s", file=sys.stderr, flush=True)

    client = NotebookClient(notebook, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(args.notebook.resolve().parent)}},
                            on_cell_start=lambda cell, cell_index: started.update({cell_index: monotonic()}),
                            on_cell_executed=report)
    try:
        reports, glued = execute(client, notebook, run_solutions=args.solutions is not None, glue=glue)
    except CellTimeoutError as error:
        print(f"a cell ran past {args.timeout} s:\n{error}", file=sys.stderr)
        return 2
    except CellExecutionError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        nbformat.write(notebook, args.output)
    if args.solutions is not None:
        args.solutions.write_text(json.dumps(reports, indent=1) + "\n")
    if args.glue:
        nbformat.write(glued, args.glue[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
