"""Open every page of the built site in Chromium with the network cut off, and use it.

Only 127.0.0.1 is reachable: no other host's name resolves (``CHROMIUM_ARGS``), and a failed
request fails the test, so a page that needs a CDN cannot pass.
"""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse
from xml.etree import ElementTree

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import REPO_ROOT, BrowserStalled, toc_docnames

DOCNAMES = toc_docnames()
# Known console noise that is not ours to fix would go here; there is none today.
IGNORED_CONSOLE = ()


@dataclass
class PageVisit:
    page: object
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)


def visit(browser, url: str, base: str, color_scheme: str = "light",
          viewport: tuple[int, int] = (1280, 900), pixel_ratio: float = 1,
          service_workers: str = "block") -> PageVisit:
    """Open ``url``; record every request that fails, a request to another host than ``base``
    (which the browser cannot reach: ``CHROMIUM_ARGS``) as off-site.

    Service workers are blocked unless asked for: a request that the site's worker answers
    would not show among the page's own.
    """
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                  color_scheme=color_scheme, has_touch=viewport[0] < 600,
                                  device_scale_factor=pixel_ratio, service_workers=service_workers)
    page = context.new_page()
    result = PageVisit(page)
    page.add_init_script("""window.courseFiguresDrawn = [];
        document.addEventListener('course:figure-drawn',
                                  e => window.courseFiguresDrawn.push(e.detail.element.id));""")
    page.on("console", lambda message: message.type == "error"
            and not any(noise in message.text for noise in IGNORED_CONSOLE)
            and result.console_errors.append(message.text))
    page.on("pageerror", lambda error: result.console_errors.append(f"page error: {error}"))
    page.on("requestfailed", lambda request: result.failed_requests.append(
        f"{request.url}: {request.failure}" if request.url.startswith(base)
        else f"blocked off-site request: {request.url}"))
    page.on("response", lambda response: response.status >= 400 and result.failed_requests.append(
        f"{response.url}: HTTP {response.status}"))
    # The page's load event: its scripts have run. A test that needs more (a figure drawn, a
    # formula drawn, the offline copy kept) waits for that itself; waiting for a quiet network
    # (500 ms without a request) cost each visit half a second of nothing.
    page.goto(url, wait_until="load")
    return result


@pytest.fixture(scope="module", params=DOCNAMES)
def page_visit(request, browser, site_url, built_site):
    docname = request.param
    assert (built_site / f"{docname}.html").exists(), f"{docname}.html was not built"
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    yield docname, result
    result.page.context.close()


def draw_every_figure(page) -> int:
    """Scroll each figure into view and wait until it is drawn (figures are drawn lazily)."""
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        figure.locator(".main-svg").first.wait_for(state="attached", timeout=30_000)
    page.wait_for_function("""() => [...document.querySelectorAll('.course-plot')]
        .every(gd => gd.dataset.state === 'drawn')""", timeout=30_000)
    return figures.count()


def draw_every_formula(page) -> int:
    """Scroll to each formula that waits to be drawn, and wait until it is (math_svg.py)."""
    waiting = page.locator("mjx-container[data-course-lazy]")
    drawn = 0
    while waiting.count():
        formula = waiting.first.element_handle()
        formula.scroll_into_view_if_needed()
        page.wait_for_function("formula => !formula.hasAttribute('data-course-lazy')", arg=formula,
                               timeout=10_000)
        drawn += 1
    return drawn


def test_a_page_that_draws_no_frame_fails_its_test_in_seconds(browser):
    """``after_frames`` gives up on a renderer that stopped drawing (here one whose script runs
    for 3 s): one stalled page would otherwise hold its worker for pytest-timeout's 15 minutes,
    and with it the rest of its file."""
    page = browser.new_page()
    try:
        page.set_content("<p>A page</p>")
        after_frames(page)  # a live page draws its frames
        page.evaluate("() => setTimeout(() => { const end = Date.now() + 3000; while (Date.now() < end); })")
        started = time.monotonic()
        with pytest.raises(BrowserStalled, match="frames in 500 ms"):
            after_frames(page, timeout=500)
        assert time.monotonic() - started < 5
    finally:
        page.context.close()


STALLING_TESTS = """\
import pytest

from tests.site.test_pages_in_browser import after_frames


@pytest.mark.timeout(3)
def test_a_promise_that_never_settles(browser):
    browser.new_page().evaluate("() => new Promise(() => {})")


def test_a_script_that_holds_the_page(browser):
    assert browser.contexts == [], "the stalled browser was kept"
    page = browser.new_page()
    page.evaluate("() => setTimeout(() => { const end = Date.now() + 3000; while (Date.now() < end); })")
    after_frames(page, timeout=500)


def test_an_ordinary_failure(browser):
    assert browser.contexts == [], "the stalled browser was kept"
    browser.new_page()
    assert False


def test_after_an_ordinary_failure(browser):
    assert len(browser.contexts) == 1, "the browser was launched again after an ordinary failure"
"""


def test_a_test_that_stalls_the_browser_leaves_the_next_test_a_new_one(tmp_path):
    """A test that ends with the browser stalled (``BrowserStalled``, or pytest-timeout's limit)
    has its worker's Chromium launched again; after any other failure the browser stays, with
    the pages its file keeps open. (Each test here leaves its page open on purpose.)"""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_stalls.py").write_text(STALLING_TESTS)
    report = tmp_path / "report.xml"
    command = [sys.executable, "-m", "pytest", "-p", "tests.site.conftest", "-q", "-p", "no:cacheprovider",
               f"--junitxml={report}", "--rootdir", str(tmp_path), str(tmp_path)]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    outcomes = {}  # each test's failure, its first four words
    for case in ElementTree.parse(report).iter("testcase"):
        failure = case.find("failure")
        outcomes[case.get("name")] = "" if failure is None else " ".join(failure.get("message").split()[:4])
    assert outcomes == {
        "test_a_promise_that_never_settles": "Failed: Timeout (>3.0s) from",
        "test_a_script_that_holds_the_page": "tests.site.conftest.BrowserStalled: Chromium did not",
        "test_an_ordinary_failure": "assert False",
        "test_after_an_ordinary_failure": "",
    }, result.stdout[-3000:]


def test_a_request_to_another_host_fails_and_is_recorded(browser, site_url):
    """What makes a page that needs a CDN fail its tests: the browser reaches 127.0.0.1 only.
    The host asked for here is the test's own server by another name, which answers when the
    browser may resolve it: so this fails on any machine, networked or not, if the rule goes."""
    elsewhere = site_url.replace("127.0.0.1", "localhost") + "/book/intro.html"
    result = visit(browser, f"{site_url}/book/intro.html", site_url)
    try:
        with result.page.expect_event("requestfailed"):  # (and visit's listener has had it)
            answered = result.page.evaluate(
                "url => fetch(url, {mode: 'no-cors'}).then(() => 'answered', error => error.name)", elsewhere)
        assert answered == "TypeError"  # a network error
        assert result.failed_requests == [f"blocked off-site request: {elsewhere}"]
    finally:
        result.page.context.close()


def test_page_loads_without_console_errors_or_failed_requests(page_visit):
    docname, result = page_visit
    # The browser asks for the favicon after the load event, where `visit` stops waiting: this
    # test waits until no request is left (a missing favicon passed unseen without it).
    result.page.wait_for_load_state("networkidle")
    assert result.console_errors == [], f"{docname}: console errors"
    assert result.failed_requests == [], f"{docname}: failed requests"


# Where the page's first bar is (document coordinates) and how many search fields show
TOP_OF_PAGE = """() => ({
    bar: document.querySelector('.bd-header-article').getBoundingClientRect().top + scrollY,
    searchFields: [...document.querySelectorAll('.search-button-field')]
        .filter(field => field.getBoundingClientRect().width > 0).length})"""


@pytest.mark.parametrize("width", [970, 1280])
def test_a_page_begins_with_its_own_header_and_one_search_field(browser, site_url, width):
    """No band of the parent theme's navbar above the article's header (it held only a second
    search field, or nothing, from 960 px up); the sidebar's search field shows once."""
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   viewport=(width, 900))
    try:
        top = result.page.evaluate(TOP_OF_PAGE)
        assert top["bar"] < 1, f"at {width} px the article's header starts {top['bar']:.0f} px down"
        assert top["searchFields"] <= 1, f"at {width} px {top['searchFields']} search fields show"
    finally:
        result.page.context.close()


def test_no_broken_images(page_visit):
    _, result = page_visit
    # Output images load lazily: ask for all of them now.
    result.page.evaluate("""() => Promise.all([...document.images].map(img => {
        img.loading = 'eager';
        return Promise.race([img.decode().catch(() => null),
                             new Promise(resolve => setTimeout(resolve, 30000))]); }))""")
    broken = result.page.evaluate("""() => [...document.images]
        .filter(img => !img.complete || img.naturalWidth === 0).map(img => img.src)""")
    assert broken == []


def test_no_python_traceback_on_the_page(page_visit):
    _, result = page_visit
    text = result.page.inner_text("main")
    assert "Traceback (most recent call last)" not in text
    assert result.page.locator(".output.traceback, .output.error").count() == 0


def test_printed_numbers_read_as_numbers(page_visit):
    """A printed NumPy number shows as 0.731, not as NumPy 2's repr np.float64(0.731)."""
    docname, result = page_visit
    outputs = " ".join(result.page.locator(".cell_output").all_inner_texts())
    reprs = re.findall(r"np\.(?:float|int|uint|bool|complex)\w*\([^)]*\)", outputs)
    assert reprs == [], f"{docname}: print .tolist() or float(...) instead"


def test_math_is_svg_drawn_at_build_time(page_visit):
    """Every formula is an SVG with its MathML for screen readers; no MathJax, no TeX left."""
    docname, result = page_visit
    page = result.page
    assert page.evaluate("""() => !window.MathJax && ![...document.scripts]
        .some(script => /mathjax/i.test(script.src))"""), f"{docname}: the page loads MathJax"
    formulas = page.locator(".math")
    if formulas.count() == 0:
        assert page.locator("mjx-container").count() == 0
        return
    draw_every_formula(page)
    missing = page.evaluate("""() => [...document.querySelectorAll('.math')].filter(math => {
        const container = math.querySelector(':scope > mjx-container[jax="SVG"]');
        const svg = container && container.querySelector(':scope > svg');
        const mathml = container && container.querySelector('mjx-assistive-mml > math');
        // A glyph is a <use> of the page's one drawing of it (its hidden glyph SVG).
        const glyphs = svg ? [...svg.querySelectorAll('use')] : [];
        return !svg || svg.getAttribute('aria-hidden') !== 'true' || !svg.querySelector('path, rect, use')
            || glyphs.some(use => !document.getElementById(
                   (use.getAttribute('href') || use.getAttribute('xlink:href') || '').slice(1)))
            || !mathml || !mathml.textContent.trim();
    }).map(math => math.outerHTML.slice(0, 120))""")
    assert missing == [], f"{docname}: formulas without an SVG (and its glyphs) and its MathML"
    text = page.inner_text("main")
    assert "\\(" not in text and "\\[" not in text, f"{docname}: TeX left in the text"
    assert page.locator("mjx-merror, [data-mjx-error]").count() == 0, f"{docname}: a MathJax error"


def test_math_follows_dark_mode_and_fits_a_phone(browser, site_url):
    """Formulas are drawn in the text colour; a wide formula scrolls inside its own box."""
    docname = next(name for name in DOCNAMES if "04_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme="dark",
                   viewport=(390, 844))
    try:
        page = result.page
        draw_every_formula(page)
        colours = page.evaluate("""() => [...document.querySelectorAll('.math')].slice(0, 40)
            .map(math => [getComputedStyle(math.querySelector('svg g')).fill,
                          getComputedStyle(math).color])""")
        assert colours and all(fill == color for fill, color in colours), colours
        channels = [int(value) for value in re.findall(r"\d+", colours[0][0])[:3]]
        assert min(channels) > 150, f"math is drawn in {colours[0][0]} in dark mode: too dark to read"
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        wide = page.evaluate("""() => [...document.querySelectorAll('div.math > mjx-container')]
            .filter(box => box.scrollWidth > box.clientWidth + 1)
            .map(box => [getComputedStyle(box).overflowX, box.tabIndex])""")
        assert wide, "no formula is wider than a phone: the test checks nothing"
        assert all(overflow == "auto" and tab_index == 0 for overflow, tab_index in wide), wide
    finally:
        result.page.context.close()


# The size of each formula's drawing and of the line box around it, to a tenth of a pixel.
BOXES = """() => [...document.querySelectorAll('article mjx-container')].map(formula =>
    [formula.querySelector(':scope > svg'), formula.parentElement]
        .map(element => element.getBoundingClientRect())
        .flatMap(box => [Math.round(box.width * 10), Math.round(box.height * 10)]))"""


def test_formulas_further_down_are_drawn_as_they_come_near(browser, site_url):
    """On a phone, formulas far below the screen wait; keys and the wheel bring them in, in place."""
    docname = next(name for name in DOCNAMES if "04_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(390, 844))
    try:
        page = result.page
        state = """() => [...document.querySelectorAll('mjx-container')].map(formula =>
            [formula.hasAttribute('data-course-lazy'),
             formula.querySelector(':scope > svg').getBoundingClientRect().top / innerHeight,
             formula.querySelectorAll(':scope > svg use, :scope > svg rect').length])"""
        formulas = page.evaluate(state)
        waiting = [top for lazy, top, _ in formulas if lazy]
        assert len(waiting) > len(formulas) / 2, "most of lesson 4's formulas are drawn as it loads"
        assert min(waiting) > 2, "a formula within two screens of the top waits to be drawn"
        assert all(glyphs for lazy, _, glyphs in formulas if not lazy)
        assert not any(glyphs for lazy, _, glyphs in formulas if lazy)
        boxes, height = page.evaluate(BOXES), page.evaluate("document.documentElement.scrollHeight")
        assert len(boxes) > 100 and all(box[0] and box[1] for box in boxes)
        # The keyboard (End) takes the reader to the bottom: the last formulas are drawn there,
        # the ones in the middle of the page still wait.
        page.locator("body").press("End")
        page.wait_for_function("() => scrollY + innerHeight >= document.documentElement.scrollHeight - 2",
                               timeout=10_000)
        page.wait_for_function("""() => { const seen = [...document.querySelectorAll('article mjx-container')]
            .filter(formula => { const box = formula.getBoundingClientRect();
                                 return box.bottom > 0 && box.top < innerHeight; });
            return seen.length && seen.every(formula => !formula.hasAttribute('data-course-lazy')); }""",
                               timeout=10_000)
        assert any(lazy for lazy, _, _ in page.evaluate(state)), "every formula was drawn at once"
        # The wheel brings the middle in.
        page.mouse.move(200, 400)
        page.evaluate("window.scrollTo(0, 0)")
        for _ in range(height // 600 + 5):
            page.mouse.wheel(0, 600)
            after_frames(page)
        page.wait_for_function("() => !document.querySelector('mjx-container[data-course-lazy]')",
                               timeout=20_000)
        # Every formula drawn in its box, at its size: nothing around it moved.
        assert page.evaluate(BOXES) == boxes
        assert all(glyphs for _, _, glyphs in page.evaluate(state)), "a formula was drawn without its glyphs"
        assert not page.locator("mjx-container > template").count(), "a formula's glyphs still wait"
        assert result.console_errors == []
    finally:
        result.page.context.close()


def test_without_javascript_formulas_further_down_show_their_mathml(browser, site_url):
    """No script: a waiting formula shows its MathML (the browser draws it), not an empty box."""
    docname = next(name for name in DOCNAMES if "04_" in name)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{docname}.html")
        shown = page.evaluate("""() => [...document.querySelectorAll('mjx-container')].map(formula => {
            const svg = formula.querySelector(':scope > svg').getBoundingClientRect();
            const mathml = formula.querySelector('mjx-assistive-mml > math').getBoundingClientRect();
            // Clipped away (the formula's SVG is shown) or in the flow of the text.
            const place = getComputedStyle(formula.querySelector('mjx-assistive-mml')).position;
            const room = formula.getBoundingClientRect();  // a display formula's box would cut it off
            return [formula.hasAttribute('data-course-lazy'), svg.width > 0,
                    mathml.width > 2 && mathml.height > 2 && place === 'static'
                    && room.height >= mathml.height - 1]; })
            .filter((_, index) => document.querySelectorAll('mjx-container')[index].checkVisibility())""")
        assert any(lazy for lazy, _, _ in shown) and not all(lazy for lazy, _, _ in shown)
        assert all(mathml and not svg for lazy, svg, mathml in shown if lazy)
        assert all(svg and not mathml for lazy, svg, mathml in shown if not lazy)
        # What a reader sees there is laid out as math, not as a line of loose symbols.
        assert set(page.evaluate("""() => [...document.querySelectorAll(
            'mjx-container[data-course-lazy] mjx-assistive-mml math')]
            .map(math => getComputedStyle(math).display)""")) <= {"math", "block math"}
    finally:
        context.close()


def math_accessibility_tree(session) -> list:
    """Every formula's MathML as Chromium exposes it: (role, name, children), nested."""
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    by_id = {node["nodeId"]: node for node in nodes}

    def exposed(node) -> list:
        children = [child for child_id in node.get("childIds", [])
                    if (child := by_id.get(child_id))]
        if node.get("ignored") or node["role"]["value"] == "InlineTextBox":
            return [entry for child in children for entry in exposed(child)]
        return [(node["role"]["value"], node.get("name", {}).get("value", ""),
                 [entry for child in children for entry in exposed(child)])]

    return [exposed(node) for node in nodes if node["role"]["value"] == "MathMLMath"]


def test_the_hidden_mathml_is_laid_out_as_text_and_read_as_math(browser, site_url):
    """The MathML nobody sees gets cheap inline layout; screen readers get the same math tree."""
    docname = next(name for name in DOCNAMES if "05_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(390, 844))
    try:
        page = result.page
        session = page.context.new_cdp_session(page)
        layout = """() => new Set([...document.querySelectorAll(
            'mjx-assistive-mml math, mjx-assistive-mml mi')]
            .map(element => getComputedStyle(element).display))"""
        assert page.evaluate(f"() => [...({layout})()]") == ["inline"]
        as_text = math_accessibility_tree(session)
        page.add_style_tag(content="mjx-assistive-mml math, mjx-assistive-mml math * "
                                   "{ display: revert !important; }")
        assert "inline" not in page.evaluate(f"() => [...({layout})()]"), "math layout is not back"
        as_math = math_accessibility_tree(session)
        for _ in range(50):  # the accessibility tree follows the new layout within a few frames
            if {role for tree in as_math for role, _, _ in tree} == {"MathMLMath"}:
                break
            after_frames(page)
            as_math = math_accessibility_tree(session)
        assert len(as_math) >= page.locator("article mjx-container").count() > 50
        roles = {role for tree in as_math for role, _, _ in tree}
        assert roles == {"MathMLMath"}
        inner_roles = ("MathMLIdentifier", "MathMLOperator", "StaticText")
        assert all(f"'{role}'" in str(as_math) for role in inner_roles)
        assert as_text == as_math
    finally:
        result.page.context.close()


def test_figures_below_the_screen_wait_until_they_are_near(browser, site_url):
    """On load only the figures near the screen are drawn; plotly.js loads only for them."""
    docname = next(name for name in DOCNAMES if "04_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    try:
        page = result.page
        states = page.evaluate("() => [...document.querySelectorAll('.course-plot')]"
                               ".map(gd => gd.dataset.state)")
        assert len(states) >= 2, f"{docname}: expected several figures, found {states}"
        assert states[-1] is None, f"{docname}: the last figure was drawn before the reader got near it"
        preview = page.locator(".course-plot").last.evaluate("gd => gd.getBoundingClientRect().height")
        draw_every_figure(page)
        drawn = page.locator(".course-plot").last.evaluate("gd => gd.getBoundingClientRect().height")
        assert drawn == preview, f"{docname}: placeholder {preview}px high, figure {drawn}px: the page jumps"
        announced = page.evaluate("() => window.courseFiguresDrawn")
        ids = page.evaluate("() => [...document.querySelectorAll('.course-plot')].map(gd => gd.id)")
        assert sorted(announced) == sorted(ids), "every figure is announced once with course:figure-drawn"
        assert result.console_errors == [] and result.failed_requests == []
    finally:
        result.page.context.close()


def test_every_plotly_figure_has_data(page_visit):
    docname, result = page_visit
    draw_every_figure(result.page)
    counts = result.page.evaluate("""() => [...document.querySelectorAll('.course-plot')]
        .map(gd => (gd.data || []).length)""")
    assert all(count > 0 for count in counts), f"{docname}: a Plotly figure has no data: {counts}"
    drawn = result.page.locator(".course-plot .main-svg").count()
    assert drawn >= len(counts), f"{docname}: {len(counts)} figures but {drawn} drawn"
    senders = result.page.evaluate("""() => [...document.querySelectorAll('.course-plot .modebar-btn')]
        .map(button => button.getAttribute('data-title') || '')
        .filter(title => /share|cloud|studio/i.test(title))""")
    assert senders == [], f"{docname}: a figure's toolbar offers to send it elsewhere: {senders}"


# What a reader sees of a figure: which traces are shown, what is drawn, the title. The
# slider's own position is left out on purpose: a slider that moves but changes nothing fails.
FIGURE_STATE = """gd => {
    const hash = text => {
        let h = 0;
        for (let i = 0; i < text.length; i++) { h = (h * 31 + text.charCodeAt(i)) | 0; }
        return h;
    };
    const drawn = [...gd.querySelectorAll('.main-svg .plot path, .main-svg image, .main-svg .plot text')]
        .map(e => e.getAttribute('d') || e.getAttribute('href') || e.textContent || '').join('|');
    return JSON.stringify({
        visible: gd.data.map(t => t.visible),
        drawn: hash(drawn),
        gl: gd.querySelector('.gl-container') ? hash(JSON.stringify(gd.data.map(t => [t.x, t.y, t.z]))) : 0,
        // what a 3-D view draws (its WebGL drawing is kept: course-figures.js)
        scene: [...gd.querySelectorAll('.gl-container canvas')].map(canvas => hash(canvas.toDataURL())),
        title: gd.querySelector('.gtitle') ? gd.querySelector('.gtitle').textContent : ''
    });
}"""


FRAME_WAIT_MS = 10_000  # two frames take a few ms; a renderer that draws none in 10 s has stalled
_frame_waits = itertools.count()


def after_frames(page, frames: int = 2, timeout: int = FRAME_WAIT_MS) -> None:
    """Wait until the browser has drawn ``frames`` frames: observers and layout have caught up.

    Raises ``BrowserStalled`` when they are not drawn in ``timeout`` ms: Playwright keeps that time
    itself, so a stalled renderer costs one test, not pytest-timeout's 15 minutes (and the
    worker's browser is started afresh: conftest.py).
    """
    counted = """([frames, wait]) => {
        const seen = (window.courseFramesSeen ||= {});
        seen[wait] = (seen[wait] || 0) + 1;  // once now, then once a frame
        return seen[wait] > frames;
    }"""
    try:
        page.wait_for_function(counted, arg=[frames, next(_frame_waits)], polling="raf", timeout=timeout)
    except PlaywrightTimeout:
        raise BrowserStalled(f"Chromium did not draw {frames} frames in {timeout} ms at {page.url}") from None


def state_after(page, figure, before: str, timeout: int = 10_000) -> str:
    """The figure's state (FIGURE_STATE) once Plotly has redrawn it into another and it holds for
    one frame; ``before`` if that does not happen within ``timeout`` ms."""
    settled = f"""([gd, before]) => {{
        const now = ({FIGURE_STATE})(gd);
        const held = now !== before && now === gd.courseLastState;
        gd.courseLastState = now;
        return held;
    }}"""
    try:
        page.wait_for_function(settled, arg=[figure.element_handle(), before], polling="raf", timeout=timeout)
    except PlaywrightTimeout:
        return before
    return figure.evaluate(FIGURE_STATE)


# Every text label of a drawn figure (titles, axis titles, tick labels, legend, slider and
# menu labels, annotations) with its box on the screen; labels Plotly hid are left out.
FIGURE_LABELS = r"""gd => {
    const selector = ['.infolayer text', '.xtick text', '.ytick text', '.slider-group text',
                      '.updatemenu-item-text', '.legend text', '.annotation-text'].join(',');
    const seen = new Set();
    return [...gd.querySelectorAll(selector)].filter(el => {
        if (seen.has(el)) return false;
        seen.add(el);
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        return el.textContent.trim() && style.display !== 'none' && style.visibility !== 'hidden'
            && Number(style.opacity) > 0 && box.width > 0 && box.height > 0
            && !el.closest('.hoverlayer');
    }).map(el => {
        const box = el.getBoundingClientRect();
        // the text's own box, turned as it is drawn: its four corners on the screen
        const own = el.getBBox(), matrix = el.getScreenCTM();
        const corners = [[own.x, own.y], [own.x + own.width, own.y],
                         [own.x + own.width, own.y + own.height], [own.x, own.y + own.height]]
            .map(([x, y]) => [matrix.a * x + matrix.c * y + matrix.e,
                              matrix.b * x + matrix.d * y + matrix.f]);
        return {text: el.textContent.trim(), left: box.left, right: box.right, top: box.top,
                bottom: box.bottom, title: el.classList.contains('gtitle'), corners};
    });
}"""
TOLERANCE = 1.0  # px: boxes that only touch do not count


def _corners(label: dict) -> list[tuple[float, float]]:
    """A label's four corners on the screen: its turned box when known, else its upright box."""
    if "corners" in label:
        return label["corners"]
    return [(label["left"], label["top"]), (label["right"], label["top"]),
            (label["right"], label["bottom"]), (label["left"], label["bottom"])]


def _boxes_overlap(first: list, second: list) -> bool:
    """Whether two boxes (four corners each, turned or not) share more than TOLERANCE px across
    every direction that could separate them (their edges' normals)."""
    for box in (first, second):
        for (x0, y0), (x1, y1) in zip(box, box[1:] + box[:1], strict=True):
            length = math.hypot(x1 - x0, y1 - y0)
            if length == 0:
                continue
            normal = ((y0 - y1) / length, (x1 - x0) / length)
            spans = [[px * normal[0] + py * normal[1] for px, py in corners] for corners in (first, second)]
            if min(max(spans[0]), max(spans[1])) - max(min(spans[0]), min(spans[1])) <= TOLERANCE:
                return False
    return True


def overlapping(labels: list[dict]) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes overlap: boxes turned as their text is drawn (tick labels
    at 30 or 45 degrees), so that two turned labels side by side count only when they touch."""
    return [(first["text"], second["text"]) for i, first in enumerate(labels) for second in labels[i + 1:]
            if _boxes_overlap(_corners(first), _corners(second))]

# The words written beside a map's points (scatter text), each with the box Plotly cuts it
# to (its subplot's clip path; none for a trace drawn with cliponaxis=false)
POINT_LABELS = r"""gd => [...gd.querySelectorAll('.scatterlayer .textpoint text')]
    .filter(el => el.textContent.trim()).map(el => {
        const box = el.getBoundingClientRect();
        let clip = null;
        for (let e = el; e && e !== gd && !clip; e = e.parentElement) {
            const url = e.getAttribute('clip-path');
            const id = url && url !== 'none' && url.slice(url.indexOf('#') + 1, url.lastIndexOf(')'));
            const rect = id && document.getElementById(id)?.querySelector('rect');
            if (rect) {  // in the user space of the element that it clips
                const m = e.getScreenCTM(), area = rect.getBBox();
                const xs = [area.x, area.x + area.width].map(x => m.a * x + m.e);
                const ys = [area.y, area.y + area.height].map(y => m.d * y + m.f);
                clip = {left: Math.min(...xs), right: Math.max(...xs),
                        top: Math.min(...ys), bottom: Math.max(...ys)};
            }
        }
        return {text: el.textContent.trim(), left: box.left, right: box.right, top: box.top,
                bottom: box.bottom, clip};
    })"""

# Each colour bar drawn (its bar, tick labels and title): Plotly draws only the visible traces'
COLOUR_BARS = r"""gd => [...gd.querySelectorAll('.infolayer .colorbar')].map(el => {
        const box = el.getBoundingClientRect();
        return {text: 'colour bar', left: box.left, right: box.right, top: box.top, bottom: box.bottom};
    }).filter(box => box.right > box.left && box.bottom > box.top)"""

# Plotly's toolbar shown only on hover: its groups of buttons are transparent
TOOLBAR_HIDDEN = "groups.every(group => getComputedStyle(group).opacity === '0')"


def figure_label_problems(page) -> list[str]:
    """Each drawn figure's text labels on top of each other, cut off at the side, or a title
    under the toolbar; and a map's words on each other (beside their points or at the end of
    their leaders) or on a colour bar."""
    figures = page.locator(".course-plot")
    problems = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        page.mouse.move(0, 0)  # off the chart and out of it: a toolbar shown on hover fades out
        figure.evaluate(f"""gd => new Promise(done => {{
            if (gd.contains(document.activeElement)) document.activeElement.blur();
            const groups = [...gd.querySelectorAll('.modebar-group')];
            if ({TOOLBAR_HIDDEN}) return done();
            groups[0].addEventListener('transitionend', () => done(), {{once: true}});
            setTimeout(done, 1000); }})""")
        labels = figure.evaluate(FIGURE_LABELS)
        pairs = overlapping(labels)
        if pairs:
            problems.append(f"figure {index}: overlapping labels {pairs[:5]}")
        words = figure.evaluate(POINT_LABELS)
        covered = overlapping(words)
        if covered:
            problems.append(f"figure {index}: {len(covered)} pairs of its {len(words)} words on "
                            f"each other {covered[:5]}")
        frame = figure.evaluate("gd => { const b = gd.getBoundingClientRect(); return [b.left, b.right]; }")
        toolbar = figure.evaluate(f"""gd => {{ const bar = gd.querySelector('.modebar');
            const groups = [...gd.querySelectorAll('.modebar-group')];
            if (!bar || {TOOLBAR_HIDDEN}) return null;
            const b = bar.getBoundingClientRect();
            return {{left: b.left, right: b.right, top: b.top, bottom: b.bottom, text: 'toolbar'}}; }}""")
        for label in labels + words:
            if label["left"] < frame[0] - TOLERANCE or label["right"] > frame[1] + TOLERANCE:
                problems.append(f"figure {index}: label {label['text']!r} is cut off at the side")
            if label.get("title") and toolbar and overlapping([label, toolbar]):
                problems.append(f"figure {index}: the title {label['text']!r} is under the toolbar")
        for bar in figure.evaluate(COLOUR_BARS):  # a word written beside a panel, under the next thing
            problems += [f"figure {index}: the word {word['text']!r} lies on a colour bar"
                         for word in words if overlapping([word, bar])]
        for word in words:  # Plotly cuts a word at the edge of its plot area
            clip = word["clip"]
            if clip and (word["left"] < clip["left"] - TOLERANCE or word["right"] > clip["right"] + TOLERANCE
                         or word["top"] < clip["top"] - TOLERANCE
                         or word["bottom"] > clip["bottom"] + TOLERANCE):
                problems.append(f"figure {index}: the word {word['text']!r} is cut at its plot area's edge")
    return problems


def test_figure_labels_do_not_overlap_on_a_desktop(page_visit):
    """As on a phone (test_phone_width.py): no label on another, none cut off, no title under
    the toolbar, at 1280 px."""
    docname, result = page_visit
    draw_every_figure(result.page)
    problems = figure_label_problems(result.page) + slider_value_problems(result.page)
    assert problems == [], f"{docname} at 1280 px:\n" + "\n".join(problems)


def test_the_toolbar_shown_on_hover_covers_no_menu_and_no_title(page_visit):
    """At 1280 px Plotly's toolbar shows while the pointer is over a chart, in the chart's top
    right corner: lesson 1's token menu lay 8 px under its lasso and box-select buttons, and
    the ends of long titles under the toolbar (lessons 3, 4 and 8) until titles were pinned
    below it (``plotting.style``)."""
    docname, result = page_visit
    page = result.page
    draw_every_figure(page)
    figures = page.locator(".course-plot")
    problems = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        box = figure.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        figure.evaluate("""gd => new Promise(done => { const bar = gd.querySelector('.modebar');
            if (!bar || getComputedStyle(bar.parentNode).opacity === '1') return done();
            const wait = () => getComputedStyle(bar.parentNode).opacity === '1' ? done()
                : requestAnimationFrame(wait);
            setTimeout(done, 2000); wait(); })""")
        covered = figure.evaluate("""gd => {
            const bar = gd.querySelector('.modebar'); if (!bar) return [];
            const b = bar.getBoundingClientRect();
            const parts = [...gd.querySelectorAll('.updatemenu-header-group, .gtitle')];
            return parts.filter(part => { const r = part.getBoundingClientRect();
                return r.width && Math.min(r.right, b.right) - Math.max(r.left, b.left) > 1
                    && Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 1; })
                .map(part => (part.classList.contains('gtitle') ? 'title ' : 'menu ')
                     + part.textContent); }""")
        if covered:
            problems.append(f"figure {index}: the toolbar covers {covered}")
        page.mouse.move(0, 0)
    assert problems == [], f"{docname} at 1280 px:\n" + "\n".join(problems)


def test_every_slider_moves_its_figure(page_visit):
    docname, result = page_visit
    page = result.page
    draw_every_figure(page)
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        figure = figures.nth(index)
        slider_count = figure.evaluate("gd => (gd.layout.sliders || []).length")
        for slider in range(slider_count):
            steps = figure.evaluate(f"gd => gd.layout.sliders[{slider}].steps.length")
            if steps < 2:
                continue
            figure.scroll_into_view_if_needed()
            before = figure.evaluate(FIGURE_STATE)
            rail = figure.locator(".slider-container .slider-rail-rect").nth(slider)
            box = rail.bounding_box()
            active = figure.evaluate(f"gd => gd._fullLayout.sliders[{slider}].active || 0")
            fraction = 0.9 if active < steps / 2 else 0.1
            page.mouse.click(box["x"] + box["width"] * fraction, box["y"] + box["height"] / 2)
            after = state_after(page, figure, before)
            moved_to = figure.evaluate(f"gd => gd._fullLayout.sliders[{slider}].active || 0")
            assert moved_to != active, f"{docname}: figure {index} slider {slider} did not move"
            assert after != before, f"{docname}: figure {index} slider {slider} changed nothing"
            assert result.console_errors == [], f"{docname}: errors after moving a slider"


# Records in the page, from Plotly's event for each step a slider takes as it is dragged or
# clicked, the steps that slider number ``slider`` of a figure shows from now on, in order.
WATCH_SLIDER = """(gd, slider) => {
    const seen = gd.courseStepsSeen = [gd._fullLayout.sliders[slider].active || 0];
    if (gd.courseStepWatch) { gd.removeListener('plotly_sliderchange', gd.courseStepWatch); }
    gd.courseStepWatch = event => {
        if (event.slider._index === slider && event.slider.active !== seen[seen.length - 1]) {
            seen.push(event.slider.active);
        }
    };
    gd.on('plotly_sliderchange', gd.courseStepWatch);
}"""


def slider_drag_problems(page, finger=None) -> list[str]:
    """Drag each slider by mouse (or by ``finger``, test_phone_width.finger_on) to its first
    step and on past its last, 4 px at a time: where it goes back a step, or misses the
    first or last. A step that changes the figure's margins (other tick labels, another colour
    bar) moves the slider, which is laid out on the plot area, under the pointer: the pointer
    then reads as another step, which moves the slider back, and so on."""
    if finger is None:
        def press(x, y):
            page.mouse.move(x, y)
            page.mouse.down()

        def sweep(start, end, y):  # one call: the browser gets each move in turn
            page.mouse.move(end, y, steps=round((end - start) / 4))
        move, lift = page.mouse.move, page.mouse.up
    else:
        def press(x, y):
            finger("touchStart", x, y)

        def move(x, y):
            finger("touchMove", x, y)

        def sweep(start, end, y):
            for step in range(1, round((end - start) / 4) + 1):
                move(start + 4 * step, y)

        def lift():
            finger("touchEnd")
    draw_every_figure(page)
    figures = page.locator(".course-plot")
    problems = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        for slider in range(figure.evaluate("gd => (gd.layout.sliders || []).length")):
            rail = figure.locator(".slider-container .slider-rail-rect").nth(slider)
            rail.scroll_into_view_if_needed()
            box = rail.bounding_box()
            y = box["y"] + box["height"] / 2
            grip = figure.locator(".slider-container .slider-grip-rect").nth(slider).bounding_box()
            press(grip["x"] + grip["width"] / 2, y)
            start, end = box["x"] - 20, box["x"] + box["width"] + 20
            move(start, y)  # to the first step, then on to the last without letting go
            figure.evaluate(WATCH_SLIDER, slider)
            sweep(start, end, y)
            lift()
            seen = figure.evaluate("gd => gd.courseStepsSeen")
            if seen != sorted(seen) or seen[0] != 0 or seen[-1] != figure.evaluate(
                    f"gd => gd.layout.sliders[{slider}].steps.length - 1"):
                problems.append(f"figure {index} slider {slider}: steps {seen}")
    return problems


def test_a_slider_dragged_by_mouse_passes_its_steps_in_order(page_visit):
    docname, result = page_visit
    problems = slider_drag_problems(result.page)
    assert problems == [], f"{docname} at 1280 px:\n" + "\n".join(problems)


def menu_problems(page, figure, index: int, press: str = "click") -> list[str]:
    """Open each menu of ``figure`` (number ``index`` on its page) and choose the item after the
    chosen one, by ``press`` ('click', or 'tap' as a finger would): where that chose nothing or
    left the figure as it was."""
    menus = figure.evaluate("gd => (gd.layout.updatemenus || []).map(m => m.type || 'dropdown')")
    problems = []
    # Plotly draws one header per dropdown (in order) and one shared list of items, which
    # shows the items of the dropdown just opened; a buttons menu draws its own group.
    dropdowns_seen = buttons_seen = 0
    for menu, kind in enumerate(menus):
        figure.scroll_into_view_if_needed()
        before = figure.evaluate(FIGURE_STATE)
        if kind == "dropdown":
            getattr(figure.locator(".updatemenu-header-group").nth(dropdowns_seen).locator(
                ".updatemenu-header"), press)()
            dropdowns_seen += 1
            buttons = figure.locator(".updatemenu-dropdown-button")
        else:
            buttons = figure.locator(".updatemenu-button-group").nth(buttons_seen).locator(
                ".updatemenu-button")
            buttons_seen += 1
        buttons.first.wait_for(state="visible", timeout=10_000)
        active = figure.evaluate(f"gd => gd._fullLayout.updatemenus[{menu}].active")
        # The next entry: long dropdowns scroll, and the next one is shown when it opens.
        target = (active + 1) % buttons.count()
        getattr(buttons.nth(target), press)()
        after = state_after(page, figure, before)
        chosen = figure.evaluate(f"gd => gd._fullLayout.updatemenus[{menu}].active")
        if chosen != target or after == before:
            problems.append(f"figure {index} menu {menu}: a {press} on item {target} chose nothing")
    return problems


def test_every_menu_changes_its_figure(page_visit):
    docname, result = page_visit
    page = result.page
    draw_every_figure(page)
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        problems = menu_problems(page, figures.nth(index), index)
        assert problems == [], f"{docname}: " + "; ".join(problems)
        assert result.console_errors == [], f"{docname}: errors after using a menu"


# A drawn figure's words: those its visible scatter traces write (calcdata: a point's text, or
# its text template when it has one, not blank, at a finite point) and those drawn on the page
WORDS_WRITTEN_AND_DRAWN = r"""gd => {
    const writes = cd => cd[0] && cd[0].trace.visible === true && cd[0].trace.type === 'scatter'
        && (cd[0].trace.mode || '').includes('text');
    const word = (d, trace) => String((d.txt ?? trace.texttemplate) || d.tx || '').trim();
    const written = gd.calcdata.filter(writes).reduce((sum, cd) => sum + cd.filter(
        d => word(d, cd[0].trace) && Number.isFinite(d.x) && Number.isFinite(d.y)).length, 0);
    const drawn = [...gd.querySelectorAll('.scatterlayer .textpoint text')]
        .filter(el => el.textContent.trim()).length;
    return [written, drawn];
}"""
STEPS_CHECKED = 60  # at most, of each slider or menu, spread evenly over its steps
# A figure's sliders and menus: [name, its steps (a menu's buttons), the step it opens with]
CONTROLS = r"""gd => [
    ...(gd.layout.sliders || []).map((c, i) => [`sliders[${i}]`, c.steps, c.active || 0]),
    ...(gd.layout.updatemenus || []).map((c, i) => [`updatemenus[${i}]`, c.buttons, c.active || 0])]"""
# Each step (up to `limit`, spread evenly) of each slider and menu that rewrites a trace's text,
# applied in turn: where fewer words are drawn than the traces write, which drawn words lie
# on each other (their boxes sharing more than TOLERANCE px each way), and which are cut off
# at the figure's edge or at their plot area's
STEP_WORD_PROBLEMS = r"""async (gd, [limit, tolerance]) => {
    const wordsWrittenAndDrawn = """ + WORDS_WRITTEN_AND_DRAWN + r""";
    const wordBoxes = """ + POINT_LABELS + r""";
    const problems = [];
    const controls = (""" + CONTROLS + r""")(gd);
    for (const [name, steps] of controls) {
        if (!steps.some(step => step.args && step.args[0] && 'text' in step.args[0])) continue;
        const stride = Math.ceil(steps.length / limit);
        for (let number = 0; number < steps.length; number += stride) {
            const step = steps[number];
            await Plotly[step.method](gd, ...step.args);
            const [written, drawn] = wordsWrittenAndDrawn(gd);
            if (written !== drawn) {
                problems.push(`${name} step ${number}: ${drawn} of ${written} words drawn`);
            }
            const boxes = wordBoxes(gd);
            const edge = gd.querySelector('.main-svg').getBoundingClientRect();
            for (const box of boxes) {
                if (box.left < edge.left - tolerance || box.right > edge.right + tolerance) {
                    problems.push(`${name} step ${number}: ${box.text} cut off at the figure's edge`);
                }
                const clip = box.clip;  // Plotly cuts a word at the edge of its plot area
                if (clip && (box.left < clip.left - tolerance || box.right > clip.right + tolerance
                             || box.top < clip.top - tolerance || box.bottom > clip.bottom + tolerance)) {
                    problems.push(`${name} step ${number}: ${box.text} cut at its plot area's edge`);
                }
            }
            for (const [i, first] of boxes.entries()) {
                for (const second of boxes.slice(i + 1)) {
                    const width = Math.min(first.right, second.right) - Math.max(first.left, second.left);
                    const height = Math.min(first.bottom, second.bottom) - Math.max(first.top, second.top);
                    if (width > tolerance && height > tolerance) {
                        problems.push(`${name} step ${number}: ${first.text} on ${second.text}`);
                    }
                }
            }
        }
    }
    return problems;
}"""


def every_figure_problems(page, script: str, limit: int) -> list[str]:
    """The problems ``script`` (a figure, [limit, TOLERANCE] -> strings) finds in every figure on
    the page, once each is drawn."""
    draw_every_figure(page)
    figures = page.locator(".course-plot")
    return [f"figure {index} {problem}" for index in range(figures.count())
            for problem in figures.nth(index).evaluate(script, [limit, TOLERANCE])]


# Each slider's value ("step 4. token vectors x sqrt(16)") at every step (up to `limit`, spread
# evenly), set as the slider's active step: where it reaches past the figure's side. The
# slider is put back at the step it opens with.
SLIDER_VALUE_PROBLEMS = r"""async (gd, [limit, tolerance]) => {
    const problems = [];
    const edge = gd.querySelector('.main-svg').getBoundingClientRect();
    const containers = gd.querySelectorAll('.slider-container');
    for (const [index, slider] of (gd.layout.sliders || []).entries()) {
        const stride = Math.ceil(slider.steps.length / limit), opening = slider.active || 0;
        for (let number = 0; number < slider.steps.length; number += stride) {
            await Plotly.relayout(gd, {[`sliders[${index}].active`]: number});
            const value = containers[index] && [...containers[index].querySelectorAll('text.slider-label')]
                .find(text => !text.closest('.slider-label-group'));  // not a step's label
            if (!value) continue;
            const box = value.getBoundingClientRect();
            if (box.left < edge.left - tolerance || box.right > edge.right + tolerance) {
                problems.push(`sliders[${index}] step ${number}: its value '${value.textContent}' `
                              + `reaches past the figure's side`);
            }
        }
        await Plotly.relayout(gd, {[`sliders[${index}].active`]: opening});
    }
    return problems;
}"""


def slider_value_problems(page) -> list[str]:
    return every_figure_problems(page, SLIDER_VALUE_PROBLEMS, STEPS_CHECKED)


def step_word_problems(page) -> list[str]:
    return every_figure_problems(page, STEP_WORD_PROBLEMS, STEPS_CHECKED)


LINE_STEPS_CHECKED = 12  # at most, of each slider or menu, spread evenly over its steps
# Each drawn line of the data (a trace's line, a line shape) sampled every 2 px along its path,
# against the legend's words and the annotations: the points that fall inside a word's box (by
# more than `tolerance` px), at each step checked of each slider and menu. The figure is put
# back in the state it opens with.
LINES_THROUGH_WORDS = r"""async (gd, [limit, tolerance]) => {
    const crossings = () => {
        const words = [...gd.querySelectorAll('.legend text, .annotation-text')]
            .filter(el => el.textContent.trim() && el.getBoundingClientRect().width > 0)
            .map(el => ({text: el.textContent.trim(), box: el.getBoundingClientRect()}));
        const lines = [...gd.querySelectorAll('.scatterlayer path.js-line, .shapelayer path')]
            .filter(path => !path.closest('.legend') && path.getTotalLength() > 0)
            .filter(path => { const style = getComputedStyle(path);
                return style.stroke !== 'none' && parseFloat(style.strokeWidth) > 0
                    && parseFloat(style.strokeOpacity) > 0 && parseFloat(style.opacity) > 0
                    && (style.fill === 'none' || parseFloat(style.fillOpacity) === 0); });
        const found = [];
        for (const path of lines) {
            const matrix = path.getScreenCTM(), length = path.getTotalLength();
            const name = (path.closest('.trace') && path.closest('.trace').__data__
                          && path.closest('.trace').__data__[0].trace.name) || 'a line shape';
            for (let at = 0; at <= length; at += 2) {
                const point = path.getPointAtLength(at);
                const x = matrix.a * point.x + matrix.c * point.y + matrix.e;
                const y = matrix.b * point.x + matrix.d * point.y + matrix.f;
                const word = words.find(({box}) => x > box.left + tolerance && x < box.right - tolerance
                                                 && y > box.top + tolerance && y < box.bottom - tolerance);
                if (word) { found.push(`${name} through '${word.text}'`); break; }
            }
        }
        return found;
    };
    const problems = crossings().map(problem => `as it opens: ${problem}`);
    const controls = (""" + CONTROLS + r""")(gd);
    for (const [name, steps, active] of controls) {
        const stride = Math.ceil(steps.length / limit);
        for (let number = 0; number < steps.length; number += stride) {
            await Plotly[steps[number].method](gd, ...steps[number].args);
            problems.push(...crossings().map(problem => `${name} step ${number}: ${problem}`));
        }
        const opening = steps[active];
        await Plotly[opening.method](gd, ...opening.args);
    }
    return problems;
}"""


def lines_through_words(page) -> list[str]:
    return every_figure_problems(page, LINES_THROUGH_WORDS, LINE_STEPS_CHECKED)


def test_no_line_of_the_data_runs_through_a_legend_or_a_note(page_visit):
    """Lesson 8's scaling explorer once had its legend inside the plot, where the target line
    ran through it, and lesson 7's explorer a note at the top of its plot, where the lines at
    accuracy 1 ran through it. At each step checked (LINE_STEPS_CHECKED of each slider and
    menu), no trace's line and no line shape may cross a legend entry's words or a note's (at a
    desktop's width here; test_phone_width checks a phone's)."""
    docname, result = page_visit
    problems = lines_through_words(result.page)
    assert problems == [], f"{docname} at 1280 px:\n" + "\n".join(problems[:10])


def test_every_step_of_a_control_draws_its_words_apart(page_visit):
    """A point whose text is empty loses its text element in plotly.js 4.1, and a later step
    that gives that point a word then draws nothing: lesson 6's neighbour explorer lost up to
    three of its nine words that way. Each step checked (STEPS_CHECKED, spread over each slider
    and menu that rewrites a trace's text) must draw every word its traces write, none on
    another (at a desktop's width here; test_phone_width checks a phone's)."""
    docname, result = page_visit
    problems = step_word_problems(result.page)
    assert problems == [], f"{docname}:\n" + "\n".join(problems[:10])


# Lesson 6's word maps place their words for plot areas measured in a browser (phone, desktop:
# word_labels.PLOT_AREAS and the two beside it); each map carries them in its layout.meta. A
# change to a map's height or margins makes them stale, and a map that changes its size as the
# reader moves its controls (on a phone the neighbour explorer's map once narrowed from 266 to
# 204 px when its bars named long words) is drawn at another size than its words were placed
# for: each map is measured at each step checked (STEPS_CHECKED), then put back in the state it
# opens with, as shipped (other tests move it too).
WORD_MAPS = {"book/lessons/06_seeing_embeddings": 3}
PLOT_AREA_TOLERANCE = 3  # px
PLOT_AREAS_DRAWN = """async ([index, tolerance, limit]) => {
    const maps = [...document.querySelectorAll('.course-plot')]
        .filter(gd => gd._fullLayout.meta && gd._fullLayout.meta.label_plot_areas);
    const problems = [];
    for (const gd of maps) {
        const placed = gd._fullLayout.meta.label_plot_areas[index];
        if (!placed) {
            problems.push(`${gd.id}: words placed for no plot area at this width (area ${index})`);
            continue;
        }
        const holder = document.querySelector(`script.course-plot-spec[data-for="${gd.id}"]`);
        const shipped = (await (await fetch(holder.dataset.src)).json()).layout;
        const control = (shipped.updatemenus || [])[0] || (shipped.sliders || [])[0];
        const steps = control ? (control.buttons || control.steps) : [];
        const stride = Math.ceil(steps.length / limit);
        const checked = steps.length ? steps.filter((step, number) => number % stride === 0)
            .concat([steps[control.active || 0]]) : [null];  // a map with no control: as it is
        let problem = '';
        for (const step of checked) {
            if (step) await Plotly[step.method](gd, ...step.args);
            const drawn = [gd._fullLayout.xaxis._length, gd._fullLayout.yaxis._length].map(Math.round);
            if (!problem && drawn.some((length, axis) => Math.abs(length - placed[axis]) > tolerance)) {
                problem = `${gd.id}${step ? ` at '${step.label}'` : ''}: words placed for `
                          + `${placed.join(' x ')} px, map drawn at ${drawn.join(' x ')} px`;
            }
        }
        problems.push(problem);
    }
    return problems;
}"""


def plot_area_problems(page, docname: str, index: int) -> list[str]:
    """Each word map on the page drawn at the plot area its words were placed for (``index``:
    0 on a phone, 1 on a desktop, 2 on the smallest phones); a page with another number of maps
    than WORD_MAPS says."""
    draw_every_figure(page)
    maps = page.evaluate(PLOT_AREAS_DRAWN, [index, PLOT_AREA_TOLERANCE, STEPS_CHECKED])
    if len(maps) != WORD_MAPS.get(docname, 0):
        return [f"{len(maps)} word maps, WORD_MAPS expects {WORD_MAPS.get(docname, 0)}"]
    return [problem for problem in maps if problem]


def test_word_maps_are_drawn_at_the_plot_areas_their_words_were_placed_for(page_visit):
    docname, result = page_visit
    problems = plot_area_problems(result.page, docname, 1)
    assert problems == [], f"{docname} at 1280 px:\n" + "\n".join(problems)


def _launch_targets(page) -> list[str]:
    hrefs = page.evaluate("""() => [...document.querySelectorAll('a')].map(a => a.href)
        .filter(h => h.includes('colab') || h.includes('binder'))""")
    targets = []
    for href in hrefs:
        url = urlparse(href)
        if "/blob/" in url.path:  # Colab: .../github/ORG/REPO/blob/BRANCH/PATH
            targets.append(url.path.split("/blob/", 1)[1].split("/", 1)[1])
        else:  # Binder: ...?urlpath=tree/PATH
            query = parse_qs(url.query).get("urlpath", [""])[0]
            targets.append(unquote(query).split("tree/", 1)[-1])
    return targets


# A number in Python's exponent form ("1e-06") in the prose, where the course writes a power of
# ten as one ("10⁻⁶", rounding.written); an exercise's answer box may show the form to type
E_NOTATION = r"""() => [...document.querySelectorAll('article :is(p, li, td, th, figcaption)')]
    .filter(block => !block.closest('.course-self-check'))
    .flatMap(block => block.textContent.match(/(?<![\w.])\d+(?:\.\d+)?e[-+]?\d+\b/g) || [])"""


def test_a_power_of_ten_is_written_as_one(page_visit):
    docname, result = page_visit
    assert result.page.evaluate(E_NOTATION) == [], f"{docname}: write 10⁻⁶ (rounding.written), not 1e-06"


def test_launch_links_open_notebooks_that_exist(page_visit):
    docname, result = page_visit
    if not (REPO_ROOT / f"{docname}.md").read_text().count("kernelspec:"):
        return  # a plain Markdown page has no launch buttons
    targets = _launch_targets(result.page)
    assert len(targets) >= 2, f"{docname}: expected Binder and Colab links, found {targets}"
    for target in targets:
        assert target.endswith(".ipynb"), f"{docname}: launch link opens {target}, not a notebook"
        assert (REPO_ROOT / target).exists(), f"{docname}: launch link opens missing {target}"


def test_notebook_download_is_offered(page_visit, built_site):
    docname, result = page_visit
    if not (REPO_ROOT / f"{docname}.md").read_text().count("kernelspec:"):
        return
    links = result.page.evaluate("""() => [...document.querySelectorAll('a')]
        .map(a => a.getAttribute('href') || '').filter(h => h.endsWith('.ipynb') && !h.includes('://'))""")
    assert links, f"{docname}: no notebook download link"
    page_dir = (built_site / docname).parent
    for link in links:
        assert (page_dir / link).resolve().exists(), f"{docname}: download link {link} is broken"


def test_dark_mode_plot_text_is_light(browser, site_url):
    docname = next(name for name in DOCNAMES if "04_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme="dark")
    try:
        result.page.evaluate("document.documentElement.dataset.theme = 'dark'")
        draw_every_figure(result.page)
        fill = result.page.evaluate("""() => {
            const text = document.querySelector('.course-plot .xtick text');
            return getComputedStyle(text).fill; }""")
        channels = [int(value) for value in re.findall(r"\d+", fill)[:3]]
        assert min(channels) > 150, f"axis text is {fill} in dark mode: too dark to read"
    finally:
        result.page.context.close()


def test_pages_stay_within_the_weight_budget(built_site):
    """At most 1.5 MB per page: its HTML plus its own images (shared JavaScript counted once)."""
    budget = 1.5 * 1024 * 1024
    for docname in DOCNAMES:
        html_path = built_site / f"{docname}.html"
        html = html_path.read_text()
        images = set(re.findall(r'src="([^"]+\.(?:png|svg|jpg))"', html))
        own = [(html_path.parent / src).resolve() for src in images if "_images" in src]
        total = html_path.stat().st_size + sum(Path(p).stat().st_size for p in own)
        assert total <= budget, f"{docname}: {total / 1024:.0f} KB is over the 1.5 MB budget"
