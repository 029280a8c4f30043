"""Live explorers: ipywidgets versions of the site's sliders, for a running kernel.

In Jupyter, Binder or Colab, :func:`show` displays the widget, which calls the same package
functions as the precomputed figures on the site. On the static website there is no kernel
behind a widget, so there :func:`show` builds nothing and, the first time on a page, prints
one line saying where the explorers run live.
"""

from __future__ import annotations

from collections.abc import Callable

from embedding_course.web import on_static_site

STATIC_NOTE = (
    "*The widget explorers of this page run in a live notebook: open it in Binder or Colab "
    "with the rocket icon at the top.*"
)
_pages_noted: list[bool] = []  # one entry once the note is shown (one kernel per page)


def show(make_widget: Callable[[], object]) -> None:
    """Display the widget built by ``make_widget`` in a live kernel; one note per static page.

    Returns nothing, so that a cell ending on ``show(...)`` shows the widget once (a returned
    widget would be displayed a second time as the cell's result).

    Args:
        make_widget: builds the widget; called only in a live kernel.
    """
    from IPython.display import Markdown, display

    if on_static_site():
        if not _pages_noted:
            display(Markdown(STATIC_NOTE))
            _pages_noted.append(True)
        return
    display(make_widget())
