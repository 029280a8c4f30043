"""Run every lesson notebook top to bottom in a live kernel, as Binder, Colab or Jupyter would.

Here the static-site switch is off, so the live ipywidgets explorers are really built and
displayed, and the Plotly figures use Plotly's own notebook renderer.
"""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from .conftest import REPO_ROOT

NOTEBOOKS = sorted((REPO_ROOT / "book" / "lessons").glob("*.ipynb"))
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("notebook_path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_runs_top_to_bottom_with_live_explorers(notebook_path, monkeypatch):
    monkeypatch.delenv("COURSE_STATIC_SITE", raising=False)
    notebook = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook_path.parent)}})
    client.execute()  # raises CellExecutionError, with the cell and traceback, if any cell fails
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    widgets = [o for o in outputs if WIDGET_MIME in o.get("data", {})]
    assert widgets, f"{notebook_path.name}: no live explorer (ipywidget) was displayed"
