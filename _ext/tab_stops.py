"""The theme's scripts stop measuring every scrollable box when the page loads.

pydata-sphinx-theme gives each code block and output a tab stop when it scrolls sideways,
and measures every one of them as soon as the page is parsed (``scrollWidth`` against
``clientWidth``), in one long task while a phone is still loading the page.
``static/course-tab-stops.js`` does the same job as each box is laid out;
this module hands the job over by pointing the theme's list of boxes at nothing, in the copy
of the theme's script the site serves (``theme_script.py``).
"""

from __future__ import annotations

from pathlib import Path

from theme_script import change_theme_script

THEME_BOXES = ('["pre",".nboutput > .output_area",".cell_output > .output",".jp-RenderedHTMLCommon",'
               '".pst-scrollable-table-container"].join(", ")')
NO_BOXES = '[":not(*)"].join(", ")'  # matches no element: course-tab-stops.js measures them


def hand_over_tab_stops(static: Path) -> None:
    """Point the theme's tab-stop measurement at no element (``static``: the site's ``_static``)."""
    change_theme_script(static, THEME_BOXES, NO_BOXES, "tab_stops.py")
