"""Live explorers: ipywidgets versions of the site's sliders, for a running kernel.

On the static website there is no kernel behind a widget, so a widget would move its
readout and nothing else. There, :func:`show` prints a short note instead; in Jupyter,
Binder or Colab it displays the widget, which calls the same package functions as
the precomputed figures on the site.
"""

from __future__ import annotations

from collections.abc import Callable

from embedding_course.web import on_static_site

STATIC_NOTE = (
    "**Live explorer.** Launch this page in Binder or Colab (the rocket icon at the top) or run "
    "it in Jupyter to drive this explorer with widgets. The figures above work without a kernel."
)


def show(make_widget: Callable[[], object]):
    """Display the widget built by ``make_widget`` in a live kernel; a note on the static site.

    Returns:
        The widget, or ``None`` on the static site.
    """
    from IPython.display import Markdown, display

    if on_static_site():
        display(Markdown(f"> {STATIC_NOTE}"))
        return None

    widget = make_widget()
    display(widget)
    return widget
