"""Live explorers: ipywidgets versions of the site's sliders, for a running kernel.

In Jupyter, Binder or Colab, :func:`show` displays the widget, which calls the same package
functions as the precomputed figures on the site. The website, which has no kernel behind a
widget, does not run the explorer cells (they are tagged ``skip-execution``) and says once per
page where they run live.

The first drawing of an explorer is written into its output area as data, not printed
through it. An ``interactive`` prints into an ``Output`` widget; a notebook runner such as
``jupyter nbconvert --execute`` (nbclient) then plays the front end and answers each printed
line with a message on the kernel's shell socket, sent by jupyter_client through a blocking
twin of the runner's asyncio socket. That send can swallow the socket's wake-up for the
cell's own reply, which arrives at the same moment, and the runner then waits for a reply it
already has: until the cell's timeout, or for ever without one. Drawn as data (the
``Output`` widget's ``outputs``), the first drawing makes the runner send nothing; moving a
control later happens in a real front end, where the usual printing is safe.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def show(make_widget: Callable[[], object]) -> None:
    """Display the widget built by ``make_widget``.

    Returns nothing, so that a cell ending on ``show(...)`` shows the widget once (a returned
    widget would be displayed a second time as the cell's result).

    Args:
        make_widget: builds the widget.
    """
    from IPython.display import display, publish_display_data

    with _recorded() as drawn:  # ipywidgets 8 draws when built, 7 when displayed
        widget = make_widget()
        display(widget)
    views = [output for output in drawn if WIDGET_VIEW in output.get("data", {})]
    if not views:  # ipywidgets 7 (Colab's) shows itself, and draws, outside the record: as before
        display(widget)
        return
    rest = [output for output in drawn if output not in views]
    for view in views:
        publish_display_data(view["data"], view["metadata"])
    output_area = getattr(widget, "out", None)
    if output_area is not None:
        output_area.outputs = tuple(rest)
    else:  # not an ``interactive``: what it printed goes below it, as before
        for output in rest:
            if output["output_type"] == "stream":
                getattr(sys, output["name"]).write(output["text"])
            else:
                publish_display_data(output["data"], output["metadata"])


@contextmanager
def _recorded():
    """Record what the code in the block prints and displays, in order, as Jupyter outputs.

    Yields:
        The list of outputs (``stream`` and ``display_data`` dicts), filled as the block runs.
    """
    from IPython import get_ipython
    from IPython.core.displaypub import CapturingDisplayPublisher

    outputs: list[dict] = []

    class Stream:
        def __init__(self, name: str):
            self.name = name

        def write(self, text: str) -> int:
            if outputs and outputs[-1]["output_type"] == "stream" and outputs[-1]["name"] == self.name:
                outputs[-1]["text"] += text
            elif text:
                outputs.append({"output_type": "stream", "name": self.name, "text": text})
            return len(text)

        def flush(self) -> None:
            pass

    class Publisher(CapturingDisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False):
            outputs.append({"output_type": "display_data", "data": data, "metadata": metadata or {}})

        def clear_output(self, wait=False):
            outputs.clear()

        def set_parent(self, parent):
            """ipykernel's shell sets the parent message on its publisher (the Output widget does)."""

    shell = get_ipython()
    saved = sys.stdout, sys.stderr, getattr(shell, "display_pub", None)
    sys.stdout, sys.stderr = Stream("stdout"), Stream("stderr")
    if shell is not None:
        shell.display_pub = Publisher()
    try:
        yield outputs
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        if shell is not None:
            shell.display_pub = saved[2]
