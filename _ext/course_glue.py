"""``glue`` for the pages' cells: store a computed value for the prose, show nothing.

MyST-NB's ``glue`` also displays the value unless told ``display=False``; the pages' prose
inserts each value itself (`` {glue:text}`name:.3f` ``). The notebook twins leave every
``glue`` call out (``tools/twin_cells.py``), so a learner's notebook never imports this.

Imported, it also has every static figure drawn again into its PNG output's metadata, which
the site turns into an image with a choice of drawings (``course_outputs.py``): at twice the
figure's density, for the sharp screens of most laptops; and, when the figure is wider than a
phone, for a narrow screen (``plotting.narrow_figure``), at the figure's density and at twice
it (for the sharp screens of most phones). Only the site's build asks for this.
"""

from __future__ import annotations

import base64

# The keys, in a PNG output's metadata, of the figure drawn again (base64 PNG): at twice its
# density; for a narrow screen, at the figure's own density and at twice it
SHARP_PNG = "embedding-course/png-2x"
NARROW_PNG = "embedding-course/narrow-png"
NARROW_PNG_2X = "embedding-course/narrow-png-2x"


def glue(name: str, value) -> None:
    """Store ``value`` under ``name`` for the page's prose; returns nothing, so prints nothing."""
    from myst_nb import glue as myst_glue

    myst_glue(name, value, display=False)


def figure_png_for_screens(figure):
    """A matplotlib figure's PNG, with its other drawings in the metadata: at twice its density,
    and for a narrow screen when it is wider than that."""
    from embedding_course import plotting

    drawings = [(SHARP_PNG, figure, 2)]
    if figure.get_figwidth() > plotting.NARROW_WIDTH:
        narrow = plotting.narrow_figure(figure)
        drawings += [(NARROW_PNG, narrow, 1), (NARROW_PNG_2X, narrow, 2)]
    metadata = {key: base64.b64encode(plotting.figure_png(drawn, density)).decode("ascii")
                for key, drawn, density in drawings}
    return plotting.figure_png(figure), metadata


def _draw_figures_for_screens() -> None:
    """In a kernel, show matplotlib figures with ``figure_png_for_screens``."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:  # imported by the site's renderer, not by a page
        return
    from embedding_course import plotting  # registers the package's formatter, which this replaces

    shell.display_formatter.formatters["image/png"].for_type(plotting.Figure, figure_png_for_screens)


_draw_figures_for_screens()
