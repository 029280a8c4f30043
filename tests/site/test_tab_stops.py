"""A box that scrolls sideways is a tab stop, one that does not is not; the theme no longer
measures every box at load (``_ext/tab_stops.py``, ``_ext/static/course-tab-stops.js``)."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO_ROOT
from .test_pages_in_browser import after_frames, visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import tab_stops
import theme_script

THEME = ("function I(){const e=()=>{document.querySelectorAll(" + tab_stops.THEME_BOXES
         + ").forEach(e=>{e.tabIndex=0})}}\n//# sourceMappingURL=pydata-sphinx-theme.js.map\n")


def test_the_theme_measures_no_box_and_the_change_is_made_once(tmp_path):
    script = tmp_path / theme_script.THEME_SCRIPT
    script.parent.mkdir()
    script.write_text(THEME)
    tab_stops.hand_over_tab_stops(tmp_path)
    changed = script.read_text()
    assert tab_stops.THEME_BOXES not in changed and tab_stops.NO_BOXES in changed
    assert "sourceMappingURL" not in changed  # the theme's map no longer fits
    tab_stops.hand_over_tab_stops(tmp_path)  # a second build finds it done
    assert script.read_text() == changed


BOXES = "pre, div.math.course-math > mjx-container"
STOP = """box => [box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight, box.tabIndex]"""


@pytest.mark.parametrize("width", [390, 1280])
def test_only_boxes_that_scroll_are_tab_stops(browser, site_url, width):
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   viewport=(width, 900))
    page = result.page
    try:
        boxes = []
        for box in page.locator(BOXES).all():  # as a reader scrolls down the page
            box.scroll_into_view_if_needed()
            after_frames(page)  # the browser lays the box out; the observer reports it
            boxes.append(box.evaluate(STOP))
        scrolling = [index for index, (scrolls, _) in enumerate(boxes) if scrolls]
        still = [index for index, (scrolls, _) in enumerate(boxes) if not scrolls]
        assert scrolling, boxes
        if width > 1000:
            assert still, boxes  # a wide screen has boxes of both kinds
        assert [boxes[index] for index in scrolling if boxes[index][1] != 0] == [], boxes
        assert [boxes[index] for index in still if boxes[index][1] != -1] == [], boxes
        assert not result.console_errors, result.console_errors
    finally:
        page.context.close()


def test_a_formula_is_no_tab_stop_until_it_is_measured(built_site):
    """A keyboard reader does not tab through every formula: the page gives none a tab stop of
    its own; course-tab-stops.js makes one that scrolls sideways a stop (the test above)."""
    pages = "".join(page.read_text() for page in (built_site / "book").rglob("*.html"))
    displayed = [tag for tag in re.findall(r"<mjx-container [^>]*>", pages) if 'display="true"' in tag]
    assert len(displayed) > 10
    assert [tag for tag in displayed if "tabindex" in tag] == []
