"""Fixtures for testing the built site: its pages, a local server, and Chromium."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILT_SITE = REPO_ROOT / "_build" / "html"
# The front matter of a MyST notebook page, for the small pages that tests write
FRONT_MATTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""
sys.path.insert(0, str(REPO_ROOT / "tools"))

import build_book  # noqa: E402
from site_server import serve  # noqa: E402

# Debian's whole browser (package chromium, `make browser`), for what the headless shell does
# otherwise than a reader's Chromium: it asks for no page icon, and as a page loads it sends it
# a pointer event, as from a mouse resting over the page (``whole_browser``).
WHOLE_CHROMIUM = os.environ.get("WHOLE_CHROMIUM_PATH", "/usr/bin/chromium")
# Debian's headless Chromium (package chromium-headless-shell, `make browser`) for the rest:
# Debian's chromium without the desktop browser around it, so a page costs less to load (a test
# file ran in 0.72-0.90 of the time); the same engine parses, styles, lays out and draws the
# pages. Where Debian has none for the machine, the whole browser serves instead.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("CHROMIUM_PATH",
                          HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else WHOLE_CHROMIUM)
# Only the test's own server answers: no other host's name resolves, so a request off the site
# fails (and `visit` records it). Playwright's routing of every request through the test did
# the same at 0.25 s more per visit of a lesson (1.36 s against 1.11 s, medians of 12).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


def code_cell(source: str) -> str:
    """A MyST code cell holding ``source`` (options such as ``:tags: [...]`` on its first lines)."""
    return f"```{{code-cell}} ipython3\n{source}\n```\n\n"


def toc_docnames() -> list[str]:
    """Every page of the table of contents, in order (e.g. 'book/lessons/02_one_hot')."""
    return build_book.toc_docnames(Path(os.environ.get("COURSE_TOC", REPO_ROOT / "_toc.yml")))


@pytest.fixture(scope="session")
def built_site() -> Path:
    if not (BUILT_SITE / "index.html").exists():
        pytest.fail(f"no built site at {BUILT_SITE}: run `make` (or `make test`, which builds it) first")
    return BUILT_SITE


@pytest.fixture(scope="session")
def site_url(built_site):
    with serve(built_site) as base:
        yield base


@pytest.fixture(scope="session")
def gzip_site_url(built_site):
    """The site served with gzip, as a static host serves it (for measuring downloads)."""
    with serve(built_site, gzip=True) as base:
        yield base


class BrowserStalled(AssertionError):
    """Chromium stopped drawing frames: the worker's browser is started afresh."""


class SessionBrowser:
    """A worker's Chromium, shared by its tests, and launched again after a test that found it
    stalled (BrowserStalled, or pytest-timeout's limit): every later test would hang in it too.
    Pages that a test file opened earlier stay with the old one."""

    def __init__(self, playwright, executable: str):
        self._playwright, self._executable = playwright, executable
        self._current = self._launch()
        self.stalled = False

    def _launch(self):
        return self._playwright.chromium.launch(executable_path=self._executable, args=CHROMIUM_ARGS)

    def __getattr__(self, name):  # new_page, new_context, version, ...
        if self.stalled:
            self._current, self.stalled = self._launch(), False
        return getattr(self._current, name)


def stalled_browser(call) -> bool:
    """Whether a test's ``call`` ended in a browser that stopped answering."""
    if call.excinfo is None:
        return False
    return (call.excinfo.errisinstance(BrowserStalled)
            or str(call.excinfo.value).endswith("from pytest-timeout."))  # its failure's message


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and stalled_browser(call):
        for name in ("browser", "whole_browser"):
            if isinstance(item.funcargs.get(name), SessionBrowser):
                item.funcargs[name].stalled = True
    return report


@pytest.fixture(scope="session")
def playwright_driver():
    """Playwright's driver, which launches the worker's browsers."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as running:  # on leaving, every browser it launched is closed
        yield running


def session_browser(playwright, executable: str) -> SessionBrowser:
    if not Path(executable).exists():
        package = "chromium-headless-shell" if "headless-shell" in executable else "chromium"
        pytest.fail(f"Chromium is missing at {executable}: run `make browser` (Debian's package {package})")
    return SessionBrowser(playwright, executable)


@pytest.fixture(scope="session")
def browser(playwright_driver):
    """The worker's headless Chromium (or its whole one, where Debian has no headless shell)."""
    return session_browser(playwright_driver, CHROMIUM)


@pytest.fixture(scope="session")
def whole_browser(playwright_driver):
    """The worker's whole Chromium, for a test of what only it does as readers' browsers do."""
    return session_browser(playwright_driver, WHOLE_CHROMIUM)
