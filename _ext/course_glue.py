"""``glue`` for the pages' cells: store a computed value for the prose, show nothing.

MyST-NB's ``glue`` also displays the value unless told ``display=False``; the pages' prose
inserts each value itself (`` {glue:text}`name:.3f` ``). The notebook twins leave every
``glue`` call out (``tools/twin_cells.py``), so a learner's notebook never imports this.

Imported, it also has every static figure wider than a phone drawn a second time for a
narrow screen (``plotting.narrow_figure``), at the figure's density and at twice it (for the
sharp screens of most phones), into its PNG output's metadata, which the site turns into a
``<picture>`` (``course_outputs.py``). Only the site's build asks for this.
"""

from __future__ import annotations

import base64

# The keys, in a PNG output's metadata, of the figure drawn for a narrow screen (base64 PNG),
# at the figure's own density and at twice it
NARROW_PNG = "embedding-course/narrow-png"
NARROW_PNG_2X = "embedding-course/narrow-png-2x"


def glue(name: str, value) -> None:
    """Store ``value`` under ``name`` for the page's prose; returns nothing, so prints nothing."""
    from myst_nb import glue as myst_glue

    myst_glue(name, value, display=False)


def figure_png_with_narrow(figure):
    """A matplotlib figure's PNG, with its narrow drawing in the metadata when it is wider than that."""
    from embedding_course import plotting

    png = plotting.figure_png(figure)
    if figure.get_figwidth() <= plotting.NARROW_WIDTH:
        return png
    narrow = plotting.narrow_figure(figure)
    return png, {key: base64.b64encode(plotting.figure_png(narrow, density)).decode("ascii")
                 for key, density in ((NARROW_PNG, 1), (NARROW_PNG_2X, 2))}


def _draw_narrow_figures() -> None:
    """In a kernel, show matplotlib figures with ``figure_png_with_narrow``."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:  # imported by the site's renderer, not by a page
        return
    from embedding_course import plotting  # registers the package's formatter, which this replaces

    shell.display_formatter.formatters["image/png"].for_type(plotting.Figure, figure_png_with_narrow)


_draw_narrow_figures()
