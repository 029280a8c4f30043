"""A page the reader has opened reads the same offline (course-offline.js and the service
worker course-offline-worker.js): once the reader has started reading, the page keeps itself
and all it loads later, so that with the network gone its figures draw, its images show, its
exercises answer and it opens again; online the reader gets what the server has now; and
nothing of this happens before the reader moves or when they asked their browser to save
data."""

from __future__ import annotations

import shutil

import pytest

from .conftest import serve
from .test_pages_in_browser import DOCNAMES, visit
from .test_phone_width import PHONE

LESSONS = [name for name in DOCNAMES if "/lessons/" in name]
KEPT = "document.documentElement.dataset.offline === 'kept'"
WAIT_S = 8  # course-offline.js, WAIT_MS
# What the page would show in its place, resolved when it has tried (drawn, or failed).
FIGURE_SETTLED = "gd => ['drawn', 'failed'].includes(gd.dataset.state)"
IMAGE_SETTLED = "image => image.complete"
KEPT_URL = "url => caches.open('course-offline').then(cache => cache.match(url)).then(Boolean)"
REGISTERED_WITHIN_3_S = """() => Promise.race([
    navigator.serviceWorker.ready.then(() => 'registered'),
    new Promise(resolve => setTimeout(() => resolve('none'), 3000))])"""


def start_reading(page) -> None:
    """The reader's first move: a key (as a touch or a wheel turn would be)."""
    page.keyboard.press("Shift")


def open_and_keep(browser, base: str, docname: str, pixel_ratio: float = 1):
    """Open a lesson on a phone and start reading, until it has kept itself: the visit."""
    result = visit(browser, f"{base}/{docname}.html", base, viewport=PHONE, service_workers="allow",
                   pixel_ratio=pixel_ratio)
    try:
        start_reading(result.page)
        result.page.wait_for_function(KEPT, timeout=60_000)
        # The browser asks for the favicon after the load event, outside what the page keeps:
        # a reader goes offline once that answer is back, not while it is on its way.
        result.page.wait_for_load_state("networkidle")
    except Exception:
        result.page.context.close()
        raise
    return result


def unshown_after_scrolling(page) -> list[str]:
    """Scroll to each figure and image as a reader would; the ones the page could not show."""
    problems = []
    for selector, settled, shown, kind in [
            (".course-plot", FIGURE_SETTLED, "gd => gd.dataset.state === 'drawn'", "figure"),
            ("article img", IMAGE_SETTLED, "image => image.naturalWidth > 0", "image")]:
        elements = page.locator(selector)
        for index in range(elements.count()):
            element = elements.nth(index)
            element.scroll_into_view_if_needed()
            page.wait_for_function(settled, arg=element.element_handle(), timeout=30_000)
            if not element.evaluate(shown):
                name = element.get_attribute("id") or element.get_attribute("alt")[:50]
                problems.append(f"{kind} {index + 1} ({name})")
    return problems


def assert_an_exercise_answers(page, docname: str) -> None:
    """The page's first exercise (if it has one) judges an answer."""
    forms = page.locator("form.course-self-check")
    if forms.count() == 0:
        return
    form = forms.first
    form.locator("input, textarea").first.fill("0")
    form.locator("input, textarea").first.press("Enter")
    feedback = form.locator(".course-self-check-feedback")
    assert feedback.inner_text().strip(), f"{docname} offline: the first exercise gave no verdict"


@pytest.mark.parametrize("docname", LESSONS)
def test_a_lesson_read_online_reads_the_same_offline(browser, site_url, built_site, docname):
    """Kept after the first move; then offline: every figure draws, every image shows, an
    exercise answers, and the page opens again (and draws and shows all again)."""
    result = open_and_keep(browser, site_url, docname)
    page = result.page
    try:
        page.context.set_offline(True)
        problems = unshown_after_scrolling(page)
        assert problems == [], f"{docname} offline, not shown: {problems}"
        assert_an_exercise_answers(page, docname)
        page.reload(wait_until="load")
        assert page.locator("article h1").count() == 1, f"{docname} did not open again offline"
        assert unshown_after_scrolling(page) == [], f"{docname} opened again offline, not shown"
        assert result.console_errors == [], f"{docname}: {result.console_errors}"
    finally:
        page.context.close()


@pytest.mark.parametrize("pixel_ratio", [1, 3])
def test_a_phone_turned_offline_still_shows_every_figure(browser, site_url, pixel_ratio):
    """A phone keeps each static figure in its narrow drawing; turned to landscape offline, it
    asks for the wide one, which it never loaded, and shows the narrow one (kept) instead; and
    so again when the page is opened again offline on the turned phone. So on a sharp phone
    too, which keeps the narrow drawing at 2x and asks for the wide one at 2x."""
    docname = "book/lessons/04_sinusoidal_positions"  # the lesson with the most drawings
    result = open_and_keep(browser, site_url, docname, pixel_ratio)
    page = result.page
    try:
        page.context.set_offline(True)
        page.set_viewport_size({"width": PHONE[1], "height": PHONE[0]})  # turned
        drawings = page.locator("article picture img")
        assert drawings.count() > 1, f"{docname}: no figure drawn twice; the test checks nothing"
        assert unshown_after_scrolling(page) == [], f"{docname} turned offline, not shown"
        page.reload(wait_until="load")
        assert unshown_after_scrolling(page) == [], f"{docname} opened again offline turned, not shown"
    finally:
        page.context.close()


def test_a_page_keeps_its_icon_even_when_the_icon_comes_after_the_first_move(whole_browser, site_url):
    """The browser asks for the icon itself, after the load event; on a slow network the reader
    moves before it has come. The page keeps it anyway, so that it opens again offline with it.
    (In the whole browser: the headless shell asks for no icon.)"""
    docname = LESSONS[0]
    held = []
    context = whole_browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}, has_touch=True,
                                        service_workers="allow")
    page = context.new_page()
    try:
        page.route("**/favicon.*", lambda route: route.continue_() if held else held.append(route))
        page.goto(f"{site_url}/{docname}.html", wait_until="load")
        for _ in range(100):  # the browser asks for the icon after the load event
            if held:
                break
            page.wait_for_timeout(100)
        assert held, f"{docname}: the browser asked for no icon in 10 s; the test checks nothing"
        start_reading(page)
        page.wait_for_function(KEPT, timeout=60_000)
        held[0].continue_()  # it comes after the page has kept itself
        icon = page.evaluate("document.querySelector('link[rel~=\"icon\"]').href")
        assert page.evaluate(KEPT_URL, icon), f"{docname} did not keep its icon {icon}"
    finally:
        context.close()


def test_nothing_is_kept_before_the_reader_moves_until_the_page_has_been_open_a_while(browser, site_url):
    """The first screen loads alone (Lighthouse and the page-weight budget see no more); then,
    with no move at all, the page keeps itself anyway."""
    docname = LESSONS[0]
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=PHONE, service_workers="allow")
    page = result.page
    try:
        assert page.evaluate("navigator.serviceWorker.getRegistration()") is None
        assert page.evaluate(f"() => {KEPT}") is False
        page.wait_for_function(KEPT, timeout=(WAIT_S + 30) * 1000)
    finally:
        page.context.close()


def test_nothing_is_kept_when_the_reader_asked_to_save_data(browser, site_url):
    docname = LESSONS[0]
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=PHONE, service_workers="allow")
    page = result.page
    try:
        page.add_init_script("Object.defineProperty(navigator, 'connection', {value: {saveData: true}})")
        page.reload(wait_until="load")
        start_reading(page)
        assert page.evaluate(REGISTERED_WITHIN_3_S) == "none"
    finally:
        page.context.close()


def test_online_the_reader_gets_the_page_as_the_server_has_it_now(browser, built_site, tmp_path):
    """The worker asks the network first: a page changed on the server after it was kept shows
    its new text when the reader opens it again online."""
    site = tmp_path / "html"
    shutil.copytree(built_site, site)
    docname = LESSONS[0]
    page_file = site / f"{docname}.html"
    with serve(site) as base:
        result = open_and_keep(browser, base, docname)
        page = result.page
        try:
            kept_title = page.locator("article h1").inner_text()
            head, article = page_file.read_text(encoding="utf-8").split("<article", 1)
            page_file.write_text(head + "<article" + article.replace("<h1>", "<h1>Changed: ", 1),
                                 encoding="utf-8")
            page.reload(wait_until="load")
            assert page.locator("article h1").inner_text() == f"Changed: {kept_title}"
        finally:
            page.context.close()
