"""In a real kernel, ``live.show`` puts an explorer's first drawing inside the explorer.

nbclient plays the front end here: the widget is displayed once in the cell, and the explorer's
Output widget holds what its callback printed (not a traceback from the kernel's shell).
"""

from __future__ import annotations

import nbformat
from nbclient import NotebookClient

EXPLORER = ("import ipywidgets as w\nfrom embedding_course import live\n"
            "live.show(lambda: w.interactive(lambda x: print('value', x), x=w.IntSlider(value=3)))")


def test_the_first_drawing_is_inside_the_explorer():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(EXPLORER)])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    assert [output["output_type"] for output in notebook.cells[0].outputs] == ["display_data"]
    state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    drawn = [model["state"]["outputs"] for model in state.values() if model["model_name"] == "OutputModel"]
    assert drawn == [[{"output_type": "stream", "name": "stdout", "text": "value 3\n"}]], drawn
