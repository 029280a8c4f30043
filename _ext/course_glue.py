"""``glue`` for the pages' cells: store a computed value for the prose, show nothing.

MyST-NB's ``glue`` also displays the value unless told ``display=False``; the pages' prose
inserts each value itself (`` {glue:text}`name:.3f` ``). The notebook twins leave every
``glue`` call out (``tools/twin_cells.py``), so a learner's notebook never imports this.
"""

from __future__ import annotations


def glue(name: str, value) -> None:
    """Store ``value`` under ``name`` for the page's prose; returns nothing, so prints nothing."""
    from myst_nb import glue as myst_glue

    myst_glue(name, value, display=False)
