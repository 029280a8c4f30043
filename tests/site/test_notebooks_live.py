"""Run every notebook twin (the lessons and the about pages) top to bottom in a live kernel, as Binder,
Colab or Jupyter would.

The live ipywidgets explorers are really built and displayed (the site skips those cells; a
twin runs them), and the Plotly figures use Plotly's own notebook renderer. Each notebook runs in
its own process (tools/run_notebook.py) with a time limit per cell and per notebook, so a
kernel that stops answering fails the test, naming the cell, instead of stalling the run.

The same run also tries every solution on its own. Run All skips the solutions (they are
collapsed Markdown), so a learner who opens one runs it after the lesson's own cells only: at
each solution, the runner runs its code in a copy of the kernel's namespace at that point (an
import made in one solution is not there for the next), and the checker must say "Correct!".
The same run also says what the page's prose would quote had it built the page (the glue the
twin leaves out runs after its cells): the prose must read the same as the build's, and, on the
pages that train or sample, as a run with PyTorch's portable kernels. That makes three
arithmetic set-ups that round differently (``tools/prose_stability.py``): the build's path,
a learner's kernel (the libraries' own choices, two threads), and the portable kernels.
One run per notebook serves all three tests.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import prose_stability
import pytest
import sync_notebooks

from .conftest import FRONT_MATTER, REPO_ROOT, code_cell

# every page's twin: the lessons' and the about pages'
NOTEBOOKS = [page.with_suffix(".ipynb") for page in sync_notebooks.notebook_pages(REPO_ROOT)]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
DRAWABLE = {"text/plain", "text/html", "text/markdown", "image/png", "image/svg+xml", "text/latex",
            "application/vnd.plotly.v1+json", WIDGET_MIME}
CELL_LIMIT_SECONDS = 300  # lesson 7's experiment is the longest cell, about a minute and a half
NOTEBOOK_LIMIT_SECONDS = 900
# The pages whose glued numbers come from training, from random samples, or from searches over
# real float32 tables where a near-tie could tip: their prose is also checked against a run
# with PyTorch's portable kernels. Which of their raw values move between the set-ups depends
# on the CPU (lesson 8's moved on an AMD EPYC, none on an Intel Xeon, both with AVX-512), so
# no test asks that they move: test_prose_stability.py shows on every machine that the
# set-ups round differently.
TRAINS_OR_SAMPLES = [REPO_ROOT / "book" / "lessons" / name for name in (
    "03_dense_lookup.md", "04_sinusoidal_positions.md", "05_combined_pipeline.md", "06_seeing_embeddings.md",
    "07_length_generalisation.md", "08_rotary_positions.md", "09_questions.md")]


def run_notebook(notebook_path, executed_path, cell_limit=CELL_LIMIT_SECONDS, environment=None,
                 solutions=None, glue=None):
    """Run tools/run_notebook.py on one notebook in its own process.

    ``solutions``: its report file; ``glue``: (page, file for the glued values).
    """
    report = ["--solutions", str(solutions)] if solutions else []
    report += ["--glue", *map(str, glue)] if glue else []
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "tools" / "run_notebook.py"), str(notebook_path),
         str(executed_path), "--timeout", str(cell_limit), *report],
        env=environment, capture_output=True, text=True, timeout=NOTEBOOK_LIMIT_SECONDS,
    )


def write_notebook(path, *sources):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(notebook, path)
    return path


def test_runner_keeps_outputs_and_stops_at_a_failing_cell(tmp_path):
    notebook_path = write_notebook(tmp_path / "failing.ipynb", "print('before')", "1 / 0", "print('after')")
    result = run_notebook(notebook_path, tmp_path / "out.ipynb")
    assert result.returncode == 1
    assert "ZeroDivisionError" in result.stderr and "1 / 0" in result.stderr
    cells = nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
    assert cells[0].outputs[0]["text"] == "before\n"
    assert cells[1].outputs[0]["output_type"] == "error"
    assert cells[2].outputs == []


def test_runner_stops_a_cell_that_runs_past_its_limit(tmp_path):
    notebook_path = write_notebook(tmp_path / "slow.ipynb", "import time\ntime.sleep(30)")
    result = run_notebook(notebook_path, tmp_path / "out.ipynb", cell_limit=2)
    assert result.returncode == 2
    assert "ran past 2 s" in result.stderr and "time.sleep(30)" in result.stderr


def test_runner_runs_each_solution_alone_after_the_cells_above_it(tmp_path):
    solution = ("<details>\n<summary><b>Solution to exercise 1</b> (open it)</summary>\n\n```python\n{}\n```"
                "\n\n</details>")
    notebook = nbformat.v4.new_notebook()
    first = solution.format("import math\nprint('Correct!', math.pi * x)")
    second = solution.format("print(math.pi)")  # math was imported by the other solution only
    notebook.cells = [nbformat.v4.new_code_cell("x = 2"), nbformat.v4.new_markdown_cell(first),
                      nbformat.v4.new_markdown_cell(second), nbformat.v4.new_code_cell("y = x + 1")]
    nbformat.write(notebook, tmp_path / "twin.ipynb")
    report = tmp_path / "solutions.json"
    result = run_notebook(tmp_path / "twin.ipynb", tmp_path / "out.ipynb", solutions=report)
    assert result.returncode == 0, result.stderr
    first, second = json.loads(report.read_text())
    assert first["cell"] == 1 and "Correct! 6.28" in first["output"] and not first["error"]
    assert second["cell"] == 2 and "NameError" in second["error"]
    executed = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    # the saved notebook holds the lesson's cells only
    assert [len(cell.get("outputs", [])) for cell in executed.cells] == [0, 0, 0, 0]


def test_runner_reads_out_the_pages_glue_without_touching_the_lessons_names(tmp_path):
    page = tmp_path / "twin.md"
    page.write_text(FRONT_MATTER + code_cell('from course_glue import glue\n\nx = 2\nglue("x", x)')
                    + code_cell(':tags: [remove-cell]\n\nhidden = x * 10\nglue("hidden", hidden)')
                    + code_cell('print("hidden" in globals())'))
    notebook_path = write_notebook(tmp_path / "twin.ipynb", "x = 2", 'print("hidden" in globals())')
    glued = tmp_path / "glued.json"
    result = run_notebook(notebook_path, tmp_path / "out.ipynb", glue=(page, glued))
    assert result.returncode == 0, result.stderr
    lookup = sync_notebooks.glue_lookup(nbformat.read(glued, as_version=4), page)
    assert (lookup("x", ""), lookup("hidden", "")) == ("2", "20")
    executed = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert [cell.source for cell in executed.cells] == ["x = 2", 'print("hidden" in globals())']
    assert executed.cells[1].outputs[0]["text"] == "False\n"  # the site's cell ran in a copy


def test_each_twin_runs_once_on_one_worker_and_the_twins_share_the_workers(tmp_path):
    """This file takes about 10 minutes of one core: pytest-xdist gives each twin's run, with the
    three tests that share it, to one worker, and the twins to every worker (the units of
    ``tests/conftest.py``, with the Makefile's ``--dist loadfile``). Here a file of the same name
    with a set-up per parameter runs on two workers; each set-up must run once."""
    setups = tmp_path / "setups.txt"
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / Path(__file__).name).write_text(textwrap.dedent(f"""\
        import os

        import pytest


        @pytest.fixture(scope="module", params=["a", "b", "c", "d"])
        def twin(request):
            with open({str(setups)!r}, "a") as log:
                log.write(request.param + " " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")


        def test_runs(twin):
            pass


        def test_solutions(twin):
            pass


        def test_prose(twin):
            pass
        """))
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-n", "2", "--dist", "loadfile", "-q",
               "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert "12 passed" in result.stdout, result.stdout + result.stderr
    runs = [line.split() for line in setups.read_text().splitlines()]
    assert sorted(twin for twin, _ in runs) == ["a", "b", "c", "d"], runs  # each twin set up once
    assert len({worker for _, worker in runs}) == 2, runs  # on both workers


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=lambda path: path.stem)
def learners_run(request, tmp_path_factory):
    """One run of a twin in a learner's kernel: the executed notebook, its solutions' report, and
    what the page's glue gives in this run (a notebook of glue outputs)."""
    notebook_path = request.param
    environment = prose_stability.environment(prose_stability.LEARNERS)
    folder = tmp_path_factory.mktemp(notebook_path.stem)
    executed_path, report, glued = (folder / notebook_path.name, folder / "solutions.json",
                                    folder / "glued.json")
    try:
        result = run_notebook(notebook_path, executed_path, environment=environment, solutions=report,
                              glue=(notebook_path.with_suffix(".md"), glued))
    except subprocess.TimeoutExpired as error:
        progress = error.stderr.decode() if isinstance(error.stderr, bytes) else error.stderr or ""
        limit = NOTEBOOK_LIMIT_SECONDS
        pytest.fail(f"{notebook_path.name} did not finish within {limit} s\n{progress[-3000:]}")
    assert result.returncode == 0, result.stderr[-5000:]
    return (notebook_path, nbformat.read(executed_path, as_version=4), json.loads(report.read_text()),
            nbformat.read(glued, as_version=4))


def test_notebook_runs_top_to_bottom_with_live_explorers(learners_run):
    notebook_path, notebook, _, _ = learners_run
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    widgets = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    explorers = sum("live.show(" in cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert len(widgets) == explorers, f"{notebook_path.name}: {len(widgets)} shown for {explorers} explorers"
    for index, cell in enumerate(notebook.cells):
        shown = [o for o in cell.get("outputs", []) if WIDGET_MIME in o.get("data", {})]
        assert len(shown) <= 1, f"cell {index} shows its explorer {len(shown)} times"
    undrawable = [o for o in outputs if o.get("data") and not set(o["data"]) & DRAWABLE]
    assert not undrawable, f"outputs Jupyter cannot draw: {[sorted(o['data']) for o in undrawable]}"
    printed = "".join(o.get("text", "") for o in outputs) + "".join(
        str(o.get("data", {}).get("text/markdown", "")) for o in outputs)
    assert "Correct" not in printed, "Run All answered an exercise: a solution ran"


def test_every_solution_runs_alone_after_the_cells_above_it(learners_run):
    notebook_path, notebook, reports, _ = learners_run
    exercises = sum(bool(re.search(r"^answer = None\b", cell.source, re.MULTILINE))
                    for cell in notebook.cells if cell.cell_type == "code")  # the learner's exercise cells
    assert len(reports) == exercises, f"{len(reports)} solutions for {exercises} exercise cells"
    assert exercises or notebook_path.parent.name != "lessons", f"{notebook_path.name} has no exercise"
    failures = [f"cell {r['cell']}: {r['error'] or r['output'][-500:]}" for r in reports
                if r["error"] or "Correct!" not in r["output"] or "Not yet." in r["output"]]
    assert not failures, f"{notebook_path.name}: solutions that fail on their own:\n" + "\n".join(failures)


def test_every_number_the_prose_quotes_reads_the_same_under_every_set_up(learners_run):
    notebook_path, _, _, glued = learners_run
    page = notebook_path.with_suffix(".md")
    results = {prose_stability.BUILD: prose_stability.run(page, prose_stability.BUILD),
               prose_stability.LEARNERS: prose_stability.prose(page, glued)}
    if page in TRAINS_OR_SAMPLES:
        results[prose_stability.PORTABLE] = prose_stability.run(page, prose_stability.PORTABLE)
    moved = prose_stability.moved(results)
    assert not moved["texts"], f"{page.name}: the prose reads differently under {list(results)}: " + str(
        moved["texts"])
