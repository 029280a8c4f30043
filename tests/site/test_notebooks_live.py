"""Run every lesson notebook top to bottom in a live kernel, as Binder, Colab or Jupyter would.

Here the static-site switch is off, so the live ipywidgets explorers are really built and
displayed, and the Plotly figures use Plotly's own notebook renderer. Each notebook runs in
its own process (tools/run_notebook.py) with a time limit per cell and per notebook, so a
kernel that stops answering fails the test, naming the cell, instead of stalling the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat
import pytest

from .conftest import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "book" / "lessons").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
DRAWABLE = {"text/plain", "text/html", "text/markdown", "image/png", "image/svg+xml", "text/latex",
            "application/vnd.plotly.v1+json", WIDGET_MIME}
CELL_LIMIT_SECONDS = 120  # no cell takes more than a few seconds here
NOTEBOOK_LIMIT_SECONDS = 600


def run_notebook(notebook_path, executed_path, cell_limit=CELL_LIMIT_SECONDS, environment=None):
    """Run tools/run_notebook.py on one notebook in its own process."""
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "tools" / "run_notebook.py"), str(notebook_path),
         str(executed_path), "--timeout", str(cell_limit)],
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


@pytest.mark.parametrize("notebook_path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs_top_to_bottom_with_live_explorers(notebook_path, tmp_path):
    environment = dict(os.environ)
    executed_path = tmp_path / notebook_path.name
    try:
        result = run_notebook(notebook_path, executed_path, environment=environment)
    except subprocess.TimeoutExpired as error:
        progress = error.stderr.decode() if isinstance(error.stderr, bytes) else error.stderr or ""
        limit = NOTEBOOK_LIMIT_SECONDS
        pytest.fail(f"{notebook_path.name} did not finish within {limit} s\n{progress[-3000:]}")
    assert result.returncode == 0, result.stderr[-5000:]
    notebook = nbformat.read(executed_path, as_version=4)
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
