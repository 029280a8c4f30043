"""How figures reach a page: on the static site, and in a live notebook.

On the course website (built with ``COURSE_STATIC_SITE=1``) Plotly figures are written
as a placeholder plus their data; the site loads plotly.js from its own files only when a
figure comes near the screen, instead of inlining 4.8 MB of JavaScript into every page or
fetching it from a CDN. In a live kernel (Jupyter, Binder, Colab) nothing changes: Plotly's own renderer
is used.
"""

from __future__ import annotations

import html
import itertools
import os
import re

import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

STATIC_SITE_ENV_VAR = "COURSE_STATIC_SITE"
RENDERER_NAME = "course_static"


def on_static_site() -> bool:
    """True while the course website is being built (not in a learner's notebook)."""
    return os.environ.get(STATIC_SITE_ENV_VAR, "") == "1"


def _title_text(layout: dict) -> str:
    """The figure's title as plain text (Plotly titles may hold <b>, <br> and the like)."""
    title = layout.get("title", "")
    text = title.get("text", "") if isinstance(title, dict) else str(title or "")
    return html.escape(re.sub(r"<[^>]+>", " ", text).strip())


class StaticSiteRenderer(MimetypeRenderer):
    """Render a figure as a ``<div>`` with a light preview, and its data as JSON.

    The site's figure loader (``_ext/static/course-figures.js``) loads plotly.js and draws
    the figure into the div when it comes near the screen. The div has the figure's final
    height from the start, so nothing moves when it is drawn. Div ids come from a counter,
    not a random UUID, so two builds write identical pages.
    """

    _ids = itertools.count(1)

    def to_mimebundle(self, fig_dict):
        div_id = f"course-plot-{next(self._ids)}"
        # "</" would end the <script> element early; "<\/" is the same string in JSON.
        figure_json = pio.to_json(fig_dict, validate=False, remove_uids=True).replace("</", "<\\/")
        layout = fig_dict.get("layout", {})
        height = layout.get("height", 450)
        markup = (
            f'<div class="course-plot" id="{div_id}" style="width:100%;height:{height}px;">'
            f'<div class="course-plot-preview"><p class="course-plot-preview-title">{_title_text(layout)}</p>'
            f'<p>Interactive figure: it is drawn when it comes into view.</p></div></div>\n'
            f'<script type="application/json" class="course-plot-spec" data-for="{div_id}">'
            f"{figure_json}</script>"
        )
        return {"text/html": markup}


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
