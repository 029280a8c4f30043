"""What a phone downloads before the reader scrolls, from the site served with gzip.

A cheap stand-in for Lighthouse (`make bench`): bytes and requests only, no timings.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from .test_pages_in_browser import DOCNAMES, visit

BUDGET_BYTES = 600 * 1024  # gzip, everything the first screen needs
BUDGET_REQUESTS = 40
TRANSFERRED = """() => {
    const entries = [...performance.getEntriesByType('navigation'),
                     ...performance.getEntriesByType('resource')];
    return {bytes: entries.reduce((sum, e) => sum + e.transferSize, 0), requests: entries.length,
            plotly: entries.some(e => e.name.includes('plotly'))};
}"""


@pytest.mark.parametrize("docname", DOCNAMES)
def test_first_screen_stays_light(browser, gzip_site_url, docname):
    result = visit(browser, f"{gzip_site_url}/{docname}.html", gzip_site_url, viewport=(390, 844))
    try:
        result.page.wait_for_load_state("networkidle")  # whatever the first screen fetches by itself
        measured = result.page.evaluate(TRANSFERRED)
    finally:
        result.page.context.close()
    assert measured["bytes"] <= BUDGET_BYTES, (
        f"{docname}: {measured['bytes'] / 1024:.0f} KB before scrolling (budget 600 KB)")
    assert measured["requests"] <= BUDGET_REQUESTS, f"{docname}: {measured['requests']} requests"


PLOTLY_BUDGET = 600 * 1024  # gzip; plotly.js's 3-D build is 0.56 MB, its full build 1.47 MB


def plotly_builds(built_site) -> dict[str, Path]:
    """Each built page that has figures: the plotly.js build its figure loader names."""
    builds = {}
    for page in built_site.rglob("*.html"):
        found = re.search(r'data-plotly="([^"]+)"', page.read_text())
        if found:
            builds[page.relative_to(built_site).with_suffix("").as_posix()] = (
                built_site / "_static" / found.group(1))
    return builds


def test_no_page_makes_a_reader_download_the_whole_plotly_js(built_site):
    """A page loads the smallest plotly.js build that draws its figures' traces, when its first
    figure comes near. Lesson 6 has a 3-D view: its neighbour explorer draws its cosines as dots
    on stems, which the 3-D build draws, not as bars (no partial build draws both bars and 3-D)."""
    builds = plotly_builds(built_site)
    assert sum("/lessons/" in docname for docname in builds) == 9, builds  # every lesson has figures
    sizes = {docname: (build.name, len(gzip.compress(build.read_bytes(), compresslevel=6)))
             for docname, build in builds.items()}  # compressed as the site server does
    heavy = {docname: f"{name}: {size / 1024:.0f} KB" for docname, (name, size) in sizes.items()
             if size > PLOTLY_BUDGET}
    assert not heavy, f"pages that load more than {PLOTLY_BUDGET // 1024} KB of plotly.js: {heavy}"


def test_the_site_ships_the_plotly_js_builds_its_pages_load_and_no_other(built_site):
    """The build copies a plotly.js build only when a page loads it (course_site.py)."""
    named = {build.name for build in plotly_builds(built_site).values()}
    shipped = {path.name for path in (built_site / "_static" / "vendor").glob("plotly*.js")}
    assert shipped == named, f"shipped {sorted(shipped)}, loaded by the pages {sorted(named)}"


def test_the_site_ships_none_of_the_theme_s_icon_script_and_fonts(built_site):
    """No page loads them (the stylesheet holds the icons it draws), nor the theme's template
    of macros: the build leaves them out."""
    static = built_site / "_static"
    names = ["scripts/fontawesome.js", "scripts/fontawesome.js.map", "vendor/fontawesome",
             "webpack-macros.html"]
    shipped = [name for name in names if (static / name).exists()]
    assert not shipped, f"shipped, yet loaded by no page: {shipped}"
    pages = "".join(path.read_text() for path in built_site.rglob("*.html"))
    assert "fontawesome" not in pages
