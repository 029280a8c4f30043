"""The theme scrolls its sidebar to the current page's link at the next frame, not while its
script runs (``_ext/sidebar_scroll.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pydata_sphinx_theme

from .conftest import REPO_ROOT
from .test_pages_in_browser import DOCNAMES, visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import sidebar_scroll
import theme_script

THEME_STATIC = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"


def test_the_theme_script_waits_for_the_next_frame_and_stays_valid(tmp_path):
    script = tmp_path / theme_script.THEME_SCRIPT
    script.parent.mkdir()
    shutil.copy(THEME_STATIC / theme_script.THEME_SCRIPT, script)
    sidebar_scroll.scroll_sidebar_at_next_frame(tmp_path)
    changed = script.read_text()
    # the theme's code is still there once, inside the wrapper
    assert changed.count(sidebar_scroll.THEME_SCROLL) == changed.count(sidebar_scroll.NEXT_FRAME_SCROLL) == 1
    checked = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    sidebar_scroll.scroll_sidebar_at_next_frame(tmp_path)  # a second build finds it done
    assert script.read_text() == changed


def test_the_sidebar_still_shows_the_current_page(browser, site_url):
    """On a short window, the last lesson's link is below the middle: the sidebar scrolls to it."""
    docname = [name for name in DOCNAMES if "/lessons/" in name][-1]
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(1280, 420))
    try:
        page = result.page
        page.wait_for_function("() => document.querySelector('div.bd-sidebar').scrollTop > 0", timeout=5_000)
        sidebar, link = page.evaluate("""() => { const sidebar = document.querySelector('div.bd-sidebar');
            const links = sidebar.querySelectorAll('.bd-docs-nav .active');
            return [sidebar.getBoundingClientRect().toJSON(),
                    links[links.length - 1].getBoundingClientRect().toJSON()]; }""")
        assert sidebar["top"] <= link["top"] and link["bottom"] <= sidebar["bottom"], (sidebar, link)
        assert result.console_errors == []
    finally:
        result.page.context.close()
