"""Run every lesson notebook top to bottom in a live kernel, as Binder, Colab or Jupyter would.

Here the static-site switch is off, so the live ipywidgets explorers are really built and
displayed, and the Plotly figures use Plotly's own notebook renderer. Each notebook runs in
its own process with a time limit, so a kernel that stops answering fails the test instead
of stalling the run.
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
LIMIT_SECONDS = 300


@pytest.mark.parametrize("notebook_path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs_top_to_bottom_with_live_explorers(notebook_path, tmp_path):
    environment = {key: value for key, value in os.environ.items() if key != "COURSE_STATIC_SITE"}
    executed_path = tmp_path / notebook_path.name
    try:
        result = subprocess.run(
            [sys.executable, str(REPO_ROOT / "tools" / "run_notebook.py"), str(notebook_path),
             str(executed_path), "--timeout", str(LIMIT_SECONDS)],
            env=environment, capture_output=True, text=True, timeout=LIMIT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{notebook_path.name} did not finish within {LIMIT_SECONDS} s")
    assert result.returncode == 0, result.stderr[-5000:]
    notebook = nbformat.read(executed_path, as_version=4)
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    widgets = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    assert widgets, f"{notebook_path.name}: no live explorer (ipywidget) was displayed"
