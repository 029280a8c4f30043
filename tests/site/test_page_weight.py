"""What a phone downloads before the reader scrolls, from the site served with gzip.

A cheap stand-in for Lighthouse (`make bench`): bytes and requests only, no timings.
"""

from __future__ import annotations

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
