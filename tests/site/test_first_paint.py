"""A page's head holds up its first paint with no script: one stylesheet, every script deferred,
the search scripts on the search page only, the icons from a font in the stylesheet; and a
lesson's first paint waits for its article to be read (``_ext/course_theme/layout.html``,
``_ext/first_paint.py``)."""

from __future__ import annotations

import base64
import importlib.util
import io
import re
import shutil
import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import REPO_ROOT, toc_docnames
from .test_pages_in_browser import after_frames, visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import first_paint


def external_scripts(head: str) -> list[str]:
    return re.findall(r"<script\b[^>]*\bsrc=[^>]*>", head)


# Every value the root's data-theme takes after the head's first script.
THEME_VALUES = """window.courseThemeValues = [];
new MutationObserver(records => { for (const record of records)
    window.courseThemeValues.push(record.oldValue); })
  .observe(document, {attributes: true, subtree: true, attributeFilter: ['data-theme'],
                      attributeOldValue: true});"""


@pytest.mark.parametrize(("scheme", "stored_mode", "theme"), [
    ("dark", None, "dark"), ("light", None, "light"), ("dark", "light", "light"),
    ("light", "dark", "dark"), ("dark", "auto", "dark")])
def test_the_page_is_styled_in_its_final_theme_from_the_start(browser, site_url, scheme, stored_mode,
                                                              theme):
    """No second styling of the whole page when the theme's script runs, and no light flash
    for a reader in dark mode: data-theme is final before the body is parsed."""
    context = browser.new_context(color_scheme=scheme)
    try:
        page = context.new_page()
        if stored_mode is not None:
            page.add_init_script(f"localStorage.setItem('mode', '{stored_mode}');")
        page.add_init_script(THEME_VALUES)
        page.goto(f"{site_url}/book/lessons/05_combined_pipeline.html", wait_until="load")
        page.wait_for_function("document.documentElement.dataset.mode !== undefined")
        after_frames(page)  # the deferred scripts have run (load); their mutation records are in
        old_values, final = page.evaluate(
            "[window.courseThemeValues, document.documentElement.dataset.theme]")
        # old_values[0] is the HTML's own attribute, before the head's first script.
        taken = [*old_values[1:], final]
        assert taken == [theme] * len(taken), (scheme, stored_mode, old_values, final)
    finally:
        context.close()


# What the page holds when the browser first renders it (its first animation frame).
FIRST_FRAME = """requestAnimationFrame(() => { window.courseFirstFrame = {
  articleRead: document.getElementById('pst-secondary-sidebar') !== null,
  elements: document.getElementsByTagName('*').length}; });"""


@pytest.mark.parametrize("docname", [name for name in toc_docnames() if "/lessons/" in name])
def test_a_lesson_is_first_drawn_once_its_whole_article_is_read(browser, gzip_site_url, docname):
    """The first paint waits for the whole article (layout.html's render-blocking link), so
    the browser lays a long lesson out once, not its top first and the rest again just after.

    The page arrives slowly (a phone's connection, 80 KB/s), so a browser that paints as it
    reads draws a lesson's first frame with a part of its article only."""
    context = browser.new_context()
    try:
        page = context.new_page()
        network = context.new_cdp_session(page)
        network.send("Network.enable")
        network.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": 40, "downloadThroughput": 80_000, "uploadThroughput": 80_000})
        page.add_init_script(FIRST_FRAME)
        # Wait for the first frame, not for the page's images too: on a loaded machine, at this
        # speed, the whole load took more than a minute.
        page.goto(f"{gzip_site_url}/{docname}.html", wait_until="commit", timeout=60_000)
        # Polled on a timer, with a limit: once, awaiting a promise that the first frame
        # resolves held the whole run for 15 minutes (pytest-timeout) on a loaded machine.
        try:
            page.wait_for_function("() => window.courseFirstFrame !== undefined", polling=250,
                                   timeout=120_000)
        except PlaywrightTimeout:
            state = page.evaluate("[document.readyState, document.getElementsByTagName('*').length]")
            pytest.fail(f"{docname}: no first frame within 2 minutes "
                        f"(document {state[0]}, {state[1]} elements)")
        first = page.evaluate("window.courseFirstFrame")
        assert first["articleRead"], (docname, first,
                                      page.evaluate("document.getElementsByTagName('*').length"))
    finally:
        context.close()


def test_a_page_waits_only_for_an_element_it_has(built_site):
    """A render-blocking link to an element that a page lacks holds its first paint until the
    whole page is read, and Chromium warns: the link goes only where the theme writes its
    right-hand sidebar (every lesson has one; the search page and the index do not)."""
    waiting = {}
    for path in built_site.rglob("*.html"):
        html = path.read_text()
        for element in re.findall(r'<link rel="expect" href="#([^"]+)"', html):
            waiting[path.relative_to(built_site).as_posix()] = element
            assert f'id="{element}"' in html, f"{path} waits for #{element}, which it does not have"
    lessons = {name for name in waiting if "/lessons/" in name}
    assert len(lessons) == 9 and "search.html" not in waiting, sorted(waiting)


def _requests(page, *names: str) -> list[str]:
    """The page's requests for files whose address holds one of ``names``."""
    return page.evaluate("names => performance.getEntriesByType('resource').map(e => e.name)"
                         ".filter(name => names.some(part => name.includes(part)))", list(names))


def _bootstrap_requests(page) -> list[str]:
    return _requests(page, "scripts/bootstrap.js")


@pytest.mark.parametrize("how", ["mouse", "keyboard", "touch"])
def test_bootstrap_loads_at_the_first_move_and_the_first_click_opens_a_menu(whole_browser, site_url, how):
    """No Bootstrap while the page loads; a menu button works at once, however it is pressed.
    (In the whole browser: the headless shell points at the page as it loads, a first move.)"""
    viewport = (390, 844) if how == "touch" else (1280, 900)
    result = visit(whole_browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   viewport=viewport)
    page = result.page
    try:
        assert _bootstrap_requests(page) == [] and page.evaluate("window.bootstrap === undefined")
        menu = page.locator('.article-header-buttons button[aria-label="Download this page"]')
        if how == "mouse":
            menu.click()
        elif how == "touch":
            menu.tap()
        else:
            menu.focus()
            page.keyboard.press("Enter")
        items = page.locator(".article-header-buttons .dropdown-menu.show")
        items.wait_for(state="visible", timeout=5000)
        assert menu.get_attribute("aria-expanded") == "true"
        assert len(_bootstrap_requests(page)) == 1
        page.keyboard.press("Escape")
        page.wait_for_function("!document.querySelector('.article-header-buttons .dropdown-menu.show')")
        # Tooltips are set up too, once Bootstrap is there.
        assert page.evaluate("document.querySelector('[data-bs-toggle=\"tooltip\"]')"
                             ".hasAttribute('data-bs-original-title')")
        assert not result.console_errors and not result.failed_requests, (result.console_errors,
                                                                          result.failed_requests)
    finally:
        page.context.close()


@pytest.mark.parametrize("press", ["colour mode", "search shortcut", "full screen"])
def test_what_the_reader_presses_before_the_theme_s_scripts_arrive_is_done_once_they_have(whole_browser,
                                                                                          site_url, press):
    """The colour-mode button, the search shortcut and the full-screen button answer the first
    press, which comes before their scripts have loaded (in the whole browser, as above)."""
    result = visit(whole_browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   viewport=(1280, 900))
    page = result.page
    try:
        assert _requests(page, "pydata-sphinx-theme.js", "sphinx-book-theme.js") == []
        if press == "colour mode":
            page.locator(".article-header-buttons .theme-switch-button").first.click()
            page.wait_for_function("document.documentElement.dataset.mode !== 'auto'")
        elif press == "search shortcut":
            page.keyboard.press("Control+KeyK")
            page.wait_for_function("document.activeElement.matches('dialog[open] [name=q]')")
        else:
            page.locator('.article-header-buttons button[onclick="toggleFullScreen()"]').click()
            page.wait_for_function("window.toggleFullScreen !== undefined")
        assert not result.console_errors and not result.failed_requests, (result.console_errors,
                                                                          result.failed_requests)
    finally:
        page.context.close()


@pytest.mark.parametrize("viewport", [(1280, 700), (390, 844)])  # the sidebar is taller than both
@pytest.mark.parametrize("docname", ["book/lessons/09_questions", "book/about/instructors"])
def test_the_theme_s_scripts_wait_for_the_readers_move_and_then_show_the_page_s_link(whole_browser, site_url,
                                                                                     docname, viewport):
    """None of the scripts that only answer the reader runs as the page loads, nor when a box
    inside the page scrolls; at the page's first scroll they all do, and the theme scrolls its
    sidebar to the page's link (in the whole browser, as above)."""
    result = visit(whole_browser, f"{site_url}/{docname}.html", site_url, viewport=viewport)
    page = result.page
    try:
        page.evaluate("document.querySelector('.bd-sidebar-primary').scrollTop = 1")
        after_frames(page, 4)  # the sidebar's scroll event has been dispatched
        waiting = page.evaluate("document.querySelector('script[data-scripts]').dataset.scripts.split(' ')")
        assert len(waiting) == 7 and any("pydata-sphinx-theme.js" in source for source in waiting), waiting
        assert _requests(page, "copybutton.js", "doctools.js", "scripts/bootstrap.js",
                         "pydata-sphinx-theme.js", "sphinx-book-theme.js") == []
        page.mouse.wheel(0, 300)
        page.wait_for_function("window.bootstrap !== undefined && window.toggleFullScreen !== undefined")
        page.wait_for_function("""() => {
            const sidebar = document.querySelector('.bd-sidebar-primary');
            const link = sidebar.querySelector('li.current.active > a').getBoundingClientRect();
            const box = sidebar.getBoundingClientRect();
            return link.top >= box.top && link.bottom <= box.bottom;
        }""")
        assert not result.console_errors and not result.failed_requests, (result.console_errors,
                                                                          result.failed_requests)
    finally:
        page.context.close()


@pytest.fixture
def tiny_site(tmp_path):
    """A built site's static folder in miniature: a theme sheet that imports another, the
    course's own sheet, a script, a page."""
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "basic.css").write_text("body { margin: 0 }\n.caption { background: url(file.png) }\n")
    (static / "styles" / "theme.css").write_text(
        '@charset "UTF-8";\n@import "../basic.css";\n'
        ".used { color: red }\n.never-used { color: blue }\n.added-by-script { color: green }\n"
        '.fa-sun:before { content: "\\f185" }\n.fa-moon:before { content: "\\f186" }\n'
        "@font-face { font-family: icons; src: url(../vendor/fontawesome/webfonts/fa-solid-900.woff2) "
        'format("woff2") }\n/*# sourceMappingURL=theme.css.map */\n')
    (static / "course.css").write_text(".course-own-rule { color: black }\n")  # kept whole
    (static / "theme.js").write_text("element.classList.add('added-by-script');\n")
    page = tmp_path / "book" / "page.html"
    page.parent.mkdir()
    page.write_text('<p class="used"><i class="fa-sun"></i>Hello</p>')
    return tmp_path, ["_static/styles/theme.css", "_static/course.css"], [str(page), str(static / "theme.js")]


def test_the_bundle_holds_every_sheet_in_order_imports_inlined_urls_rebased(tiny_site):
    outdir, sheets, _ = tiny_site
    css, icons = first_paint.make_bundle(outdir, sheets)
    assert css.startswith('@charset "UTF-8";') and css.count("@charset") == 1
    assert css.index("margin: 0") < css.index(".used") < css.index(".course-own-rule")
    assert "url(../file.png)" in css  # basic.css's url, from the bundle's folder (styles/)
    assert ".never-used" in css and "sourceMappingURL" not in css  # not purged: every rule
    assert icons == [0xF185, 0xF186]


def test_purging_drops_the_theme_s_rules_that_no_page_or_script_uses(tiny_site):
    outdir, sheets, content = tiny_site
    css, icons = first_paint.make_bundle(outdir, sheets, content)
    assert ".used" in css and ".added-by-script" in css  # a page, a script names it
    assert ".never-used" not in css and ".fa-moon" not in css
    assert ".course-own-rule" in css  # the course's own sheets stay whole
    assert icons == [0xF185]  # the icons left are the ones the pages use


def test_the_icon_font_is_replaced_by_the_one_made_for_the_icons_the_rules_draw(tiny_site):
    outdir, sheets, content = tiny_site
    asked = []

    def fonts(icons):
        asked.append(icons)
        return {"fa-solid-900": "data:font/woff;base64,AAAA"}

    css, icons = first_paint.make_bundle(outdir, sheets, content, fonts)
    assert asked == [[0xF185]] and icons == [0xF185]  # asked once, for the icons left after purging
    assert 'src: url(data:font/woff;base64,AAAA) format("woff")' in css and "woff2" not in css


def test_a_bundle_that_fails_before_it_asks_for_fonts_says_why(tiny_site):
    outdir, sheets, content = tiny_site
    asked = []
    with pytest.raises(first_paint.FirstPaintError, match=r"no-such\.css"):
        first_paint.make_bundle(outdir, [*sheets, "_static/no-such.css"], content, asked.append)
    assert asked == []


def test_the_icon_fonts_are_cut_down_to_the_icons_in_use(tmp_path):
    from fontTools.ttLib import TTFont

    webfonts = tmp_path / first_paint.ICON_FONTS
    webfonts.mkdir(parents=True)
    theme = Path(importlib.util.find_spec("pydata_sphinx_theme").origin).parent
    source = theme / "theme/pydata_sphinx_theme/static/vendor/fontawesome/webfonts/fa-solid-900.ttf"
    shutil.copy(source, webfonts)
    fonts = first_paint.icon_fonts(tmp_path, [0xF185])
    assert list(fonts) == ["fa-solid-900"] and fonts["fa-solid-900"].startswith("data:font/woff;base64,")
    data = base64.b64decode(fonts["fa-solid-900"].split(",", 1)[1])
    assert len(data) < 3000 < source.stat().st_size  # a few KB, not 400
    assert set(TTFont(io.BytesIO(data)).getBestCmap()) == {0xF185}


def test_every_page_must_link_the_stylesheets_the_bundle_holds(tiny_site):
    outdir, sheets, _ = tiny_site
    (outdir / "_static" / "styles" / "course-site.css").parent.mkdir(exist_ok=True)
    bundle = first_paint.Bundle(outdir, sheets)
    bundle.check("book/page", sheets)
    with pytest.raises(first_paint.FirstPaintError, match=r"book/other links .*add_css_file"):
        bundle.check("book/other", [*sheets, "_static/extra.css"])


def test_the_bundle_s_version_follows_its_sheets_and_needs_every_one_of_them(tiny_site):
    outdir, sheets, _ = tiny_site
    version = first_paint.Bundle(outdir, sheets).version
    assert first_paint.Bundle(outdir, sheets).version == version
    with (outdir / "_static" / "course.css").open("a") as sheet:
        sheet.write(".another-rule { color: teal }\n")
    assert first_paint.Bundle(outdir, sheets).version != version
    with pytest.raises(first_paint.FirstPaintError, match=r"not in the site .*_static/late\.css"):
        first_paint.Bundle(outdir, [*sheets, "_static/late.css"])


def test_built_pages_have_one_stylesheet_and_no_blocking_script(built_site):
    pages = [f"{docname}.html" for docname in toc_docnames()] + ["search.html", "genindex.html"]
    for name in pages:
        text = (built_site / name).read_text()
        head = text[:text.index("</head>")]
        links = re.findall(r'<link\b[^>]*rel="stylesheet"[^>]*>', head)
        assert len(links) == 1 and "course-site.css?v=" in links[0], (name, links)
        blocking = [tag for tag in external_scripts(head) if not re.search(r"\b(defer|async)\b", tag)]
        assert not blocking, (name, blocking)
        assert ("searchindex.js" in head) == (name == "search.html"), name
        assert 'rel="preload" as="script"' not in head, name
        assert "fontawesome.js" not in text, name
    css = (built_site / first_paint.BUNDLE).read_text()
    assert "webfonts/fa-" not in css and css.count("url(data:font/woff;base64,") >= 2


def test_search_still_finds_pages(browser, site_url):
    """From a lesson's search box to the search page's results, with the scripts deferred."""
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url)
    page = result.page
    try:
        field = page.locator("#pst-search-dialog input[name=q]")
        # The theme's deferred script adds the Ctrl+K shortcut when it has run; on a busy machine
        # that can come after the page reports itself idle. A press that came too early is
        # pressed again, as a reader would: up to 15 presses, 2 s apart.
        for _ in range(15):
            page.keyboard.press("Control+k")
            try:
                field.wait_for(state="visible", timeout=2000)
                break
            except PlaywrightTimeout:
                continue
        field.wait_for(state="visible", timeout=5000)
        field.fill("wavelength")
        field.press("Enter")
        page.wait_for_url(re.compile(r"search\.html\?q=wavelength"))
        page.locator("#search-results li").first.wait_for(timeout=15000)
        titles = page.locator("#search-results li > a").all_inner_texts()
        assert any("Sinusoidal" in title for title in titles), titles
        assert not result.console_errors and not result.failed_requests, (result.console_errors,
                                                                          result.failed_requests)
    finally:
        page.context.close()


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_no_page_requests_a_font_and_the_icons_are_drawn(browser, site_url, color_scheme):
    """Every page without a font request; lesson 4's tip title and the light/dark button show
    their icons (pixels other than the background), in light and dark mode."""
    from io import BytesIO

    from PIL import Image

    from .test_pages_in_browser import DOCNAMES

    def colours(page, box) -> int:
        shot = page.screenshot(clip={"x": box["x"], "y": box["y"], "width": min(box["width"], 40),
                                     "height": box["height"]})
        return len(Image.open(BytesIO(shot)).convert("RGB").getcolors(maxcolors=10_000))

    fonts = []
    for docname in DOCNAMES:
        result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme=color_scheme,
                       viewport=(390, 844))
        page = result.page
        try:
            fonts += page.evaluate("""() => performance.getEntriesByType('resource').map(e => e.name)
                .filter(name => /\\.(woff2?|ttf|otf|eot)(\\?|$)/.test(name))""")
            if "04_" in docname:
                loaded = page.evaluate("""document.fonts.ready.then(fonts => [...fonts]
                    .filter(face => face.status === 'loaded').map(face => face.family))""")
                assert "Font Awesome 6 Free" in loaded, loaded  # the icons' glyphs, not a fallback
                button = page.locator(".article-header-buttons .theme-switch-button").first
                assert colours(page, button.bounding_box()) > 8, f"no light/dark icon ({color_scheme})"
                title = page.locator("div.admonition.tip > .admonition-title").first
                title.scroll_into_view_if_needed()
                assert colours(page, title.bounding_box()) > 8, f"no icon in the tip's title ({color_scheme})"
        finally:
            page.context.close()
    assert fonts == []


@pytest.mark.parametrize("viewport", [(412, 823), (1350, 940)])
def test_every_icon_has_its_box_before_the_icon_font_is_ready(browser, site_url, viewport):
    """The icons' font is decoded after the first layout: each icon's box has Font Awesome's
    fixed width from the start, so nothing beside it moves when its glyph arrives. (The box is
    checked, not a layout-shift observer: on a loaded machine the header also shifts while it
    is still being parsed, with or without icons.)"""
    result = visit(browser, f"{site_url}/book/lessons/01_tokens_to_vectors.html", site_url, viewport=viewport)
    page = result.page
    try:
        # The icons at the top of the page, where a moving box would move the page (the
        # theme's previous/next arrows at the bottom have their own layout).
        boxes = page.evaluate("""() => [...document.querySelectorAll(
                ':is(.bd-header-article, .bd-sidebar-primary) '
                + ':is(i, span):is(.fa-solid, .fa-regular, .fa-brands, .fas, .far, .fab)')]
            .filter(icon => icon.getClientRects().length)  // shown at this width
            .map(icon => [icon.className, icon.getBoundingClientRect().width,
                          parseFloat(getComputedStyle(icon).fontSize)])""")
        assert len(boxes) >= 5, boxes
        wrong = [(name, width, size) for name, width, size in boxes if abs(width - 1.25 * size) > 0.5]
        assert not wrong, wrong
    finally:
        page.context.close()
