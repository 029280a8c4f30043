"""The theme's scripts stop measuring every scrollable box when the page loads.

pydata-sphinx-theme gives each code block and output a tab stop when it scrolls sideways,
and measures every one of them as soon as the page is parsed (``scrollWidth`` against
``clientWidth``), in one long task while a phone is still loading the page.
``static/course-tab-stops.js`` does the same job as each box is laid out;
this module hands the job over by pointing the theme's list of boxes at nothing, in the copy
of the theme's script the site serves. The theme version is pinned (requirements.txt): if its
script no longer holds the expected list, the build fails and says so.
"""

from __future__ import annotations

import re
from pathlib import Path

THEME_SCRIPT = Path("scripts") / "pydata-sphinx-theme.js"
THEME_BOXES = ('["pre",".nboutput > .output_area",".cell_output > .output",".jp-RenderedHTMLCommon",'
               '".pst-scrollable-table-container"].join(", ")')
NO_BOXES = '[":not(*)"].join(", ")'  # matches no element: course-tab-stops.js measures them
SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")  # no longer matches the changed script


class ThemeScriptChanged(RuntimeError):
    """The theme's script is not the one this module knows how to change."""


def hand_over_tab_stops(static: Path) -> None:
    """Point the theme's tab-stop measurement at no element, once; check it was done.

    Args:
        static: the built site's ``_static`` folder.
    Raises:
        ThemeScriptChanged: the theme's script has neither the expected list nor the change.
    """
    script = static / THEME_SCRIPT
    text = script.read_text(encoding="utf-8")
    if text.count(THEME_BOXES) == 1:
        script.write_text(SOURCE_MAP.sub("\n", text.replace(THEME_BOXES, NO_BOXES)), encoding="utf-8")
    elif NO_BOXES not in text:
        raise ThemeScriptChanged(f"{script} does not list the boxes it measures as expected "
                                 f"({THEME_BOXES}); has pydata-sphinx-theme changed? See tab_stops.py")
