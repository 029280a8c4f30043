"""How figures reach a page: on the static site, and in a live notebook.

On the course website (built with ``COURSE_STATIC_SITE=1``) Plotly figures are written
as HTML that expects plotly.js to be loaded once by the page from the site's own
files, instead of inlining 4.8 MB of JavaScript into every page or fetching it from a
CDN. In a live kernel (Jupyter, Binder, Colab) nothing changes: Plotly's own renderer
is used.
"""

from __future__ import annotations

import itertools
import json
import os

import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

STATIC_SITE_ENV_VAR = "COURSE_STATIC_SITE"
RENDERER_NAME = "course_static"


def on_static_site() -> bool:
    """True while the course website is being built (not in a learner's notebook)."""
    return os.environ.get(STATIC_SITE_ENV_VAR, "") == "1"


class StaticSiteRenderer(MimetypeRenderer):
    """Render a figure as a ``<div>`` plus a call to the page's shared plotly.js.

    Div ids come from a counter, not a random UUID, so two builds write identical pages.
    """

    _ids = itertools.count(1)

    def to_mimebundle(self, fig_dict):
        div_id = f"course-plot-{next(self._ids)}"
        figure_json = pio.to_json(fig_dict, validate=False, remove_uids=True)
        layout = fig_dict.get("layout", {})
        height = layout.get("height", 450)
        config = json.dumps({"responsive": True, "displaylogo": False})
        html = (
            f'<div class="course-plot" id="{div_id}" style="width:100%;height:{height}px;"></div>\n'
            f'<script type="text/javascript">\n'
            f"(function() {{\n"
            f"  var spec = {figure_json};\n"
            f"  var draw = function() {{\n"
            f"    Plotly.newPlot({json.dumps(div_id)}, spec.data, spec.layout, {config});\n"
            f"  }};\n"
            f"  if (window.Plotly) {{ draw(); }}\n"
            f"  else {{ document.addEventListener('DOMContentLoaded', draw); }}\n"
            f"}})();\n"
            f"</script>"
        )
        return {"text/html": html}


def use_static_site_renderer() -> None:
    """Make Plotly figures render for the static site (called on import when building)."""
    if RENDERER_NAME not in pio.renderers:
        pio.renderers[RENDERER_NAME] = StaticSiteRenderer()
    pio.renderers.default = RENDERER_NAME


def glue(name: str, value, display: bool = False) -> None:
    """Store a computed value so the page's prose can insert it (MyST-NB ``glue``).

    Returns nothing, so a ``glue`` call at the end of a cell prints nothing. In a learner's
    notebook (Jupyter, Colab, Binder) it does nothing: the value is already in its variable,
    and the notebook's text already holds it; a stored value would show there as an output
    that no renderer can draw.
    """
    if not on_static_site():
        return
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        return
    myst_glue(name, value, display=display)


if on_static_site():
    use_static_site_renderer()
