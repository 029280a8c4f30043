"""A page's head holds up its first paint as little as it can: one stylesheet, every script
deferred, the search scripts on the search page only (``_ext/first_paint.py``)."""

from __future__ import annotations

import re
import sys

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import REPO_ROOT, toc_docnames
from .test_pages_in_browser import after_frames, visit

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import first_paint

OPTIONS_JS = "const DOCUMENTATION_OPTIONS = {VERSION: ''};"
HEAD = """<html><head>
<script data-cfasync="false">
    document.documentElement.dataset.mode = localStorage.getItem("mode") || "auto";
    document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";
  </script>
<link href="../_static/styles/theme.css?digest=1" rel="stylesheet" />
<link rel="stylesheet" type="text/css" href="../_static/course.css?v=2" />
<script src="../_static/documentation_options.js?v=3"></script>
<script src="../_static/doctools.js?v=4"></script>
<script defer="defer" src="../_static/course-figures.js?v=5"></script>
<script>DOCUMENTATION_OPTIONS.pagename = 'book/page';</script>
<script src="../_static/searchtools.js"></script>
<script src="../searchindex.js"></script>
</head><body><p class="used">Hello</p>
<script defer src="../_static/scripts/bootstrap.js?digest=1"></script></body></html>"""


def external_scripts(head: str) -> list[str]:
    return re.findall(r"<script\b[^>]*\bsrc=[^>]*>", head)


def test_every_head_script_is_deferred_and_the_options_are_inline():
    finished = first_paint.defer_head_scripts(HEAD, "book/page.html", OPTIONS_JS)
    head = finished[:finished.index("</head>")]
    scripts = external_scripts(head)
    assert scripts and all(re.search(r"\bdefer\b", tag) for tag in scripts), scripts
    assert "documentation_options.js" not in head
    # The options are defined before the inline script that extends them, and the order of
    # the deferred scripts is kept.
    assert head.index(OPTIONS_JS) < head.index("DOCUMENTATION_OPTIONS.pagename")
    assert head.index("doctools.js") < head.index("course-figures.js")
    assert "searchtools.js" not in head and "searchindex.js" not in head
    assert first_paint.is_done(finished) and not first_paint.is_done(HEAD)


def test_the_search_page_keeps_its_search_scripts():
    finished = first_paint.defer_head_scripts(HEAD, "search.html", OPTIONS_JS)
    assert '<script defer src="../_static/searchtools.js">' in finished
    assert finished.index("searchtools.js") < finished.index("searchindex.js")


def test_a_head_without_the_options_script_is_an_error():
    with pytest.raises(first_paint.FirstPaintError, match=r"documentation_options\.js"):
        first_paint.defer_head_scripts("<head><script src='x.js'></script></head>", "odd.html", OPTIONS_JS)


def test_the_theme_script_is_replaced_by_one_that_settles_auto():
    settled = first_paint.settle_theme(HEAD, "page.html")
    assert 'localStorage.getItem("theme")' not in settled
    assert "prefers-color-scheme: dark" in settled and '|| "auto"' in settled
    with pytest.raises(first_paint.FirstPaintError, match="light/dark script"):
        first_paint.settle_theme("<head><script>x()</script></head>", "odd.html")


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


def test_preloads_of_deferred_scripts_are_dropped():
    page = ('<head>\n  <link rel="preload" as="script" href="../s/theme.js?digest=1" />\n'
            '<link rel="preload" as="script" href="../s/other.js" />\n</head><body>'
            '<script defer src="../s/theme.js?digest=1"></script>'
            '<script src="../s/other.js"></script></body>')
    lean = first_paint.drop_script_preloads(page, "page.html")
    assert 'href="../s/theme.js?digest=1"' not in lean and 'src="../s/theme.js?digest=1"' in lean
    assert '<link rel="preload" as="script" href="../s/other.js" />' in lean


def test_the_bootstrap_tag_becomes_the_on_demand_loader():
    page = '<body><script defer src="../../_static/scripts/bootstrap.js?digest=55c2"></script></body>'
    lean = first_paint.bootstrap_on_demand(page, "book/page.html")
    assert lean == ('<body><script defer src="../../_static/course-bootstrap-on-demand.js" '
                    'data-bootstrap="../../_static/scripts/bootstrap.js?digest=55c2"></script></body>')
    with pytest.raises(first_paint.FirstPaintError, match=r"bootstrap\.js"):
        first_paint.bootstrap_on_demand("<body></body>", "odd.html")


def _bootstrap_requests(page) -> list[str]:
    return page.evaluate("performance.getEntriesByType('resource').map(e => e.name)"
                         ".filter(name => name.includes('scripts/bootstrap.js'))")


@pytest.mark.parametrize("how", ["mouse", "keyboard", "touch"])
def test_bootstrap_loads_at_the_first_move_and_the_first_click_opens_a_menu(browser, site_url, how):
    """No Bootstrap while the page loads; a menu button works at once, however it is pressed."""
    viewport = (390, 844) if how == "touch" else (1280, 900)
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
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


def test_stylesheets_of_many_pages_merge_in_one_order():
    order = first_paint.stylesheet_order([["theme.css", "course.css"],
                                          ["theme.css", "course.css", "self_check.css"],
                                          ["theme.css", "math.css", "course.css"]])
    assert order == ["theme.css", "math.css", "course.css", "self_check.css"]
    with pytest.raises(first_paint.FirstPaintError, match="different orders"):
        first_paint.stylesheet_order([["a.css", "b.css"], ["b.css", "a.css"]])


@pytest.fixture
def tiny_site(tmp_path):
    static = tmp_path / "_static"
    (static / "styles").mkdir(parents=True)
    (static / "basic.css").write_text("body { margin: 0 }\n")
    (static / "styles" / "theme.css").write_text(
        '@charset "UTF-8";\n@import "../basic.css";\n'
        ".used { color: red }\n.never-used { color: blue }\n.added-by-script { color: green }\n"
        "@font-face { font-family: icons; src: url(../fonts/icons.woff) }\n"
        "/*# sourceMappingURL=theme.css.map */\n")
    (static / "course.css").write_text(".course-own-rule { color: black }\n")  # kept whole
    (static / "documentation_options.js").write_text(OPTIONS_JS)
    (static / "theme.js").write_text("element.classList.add('added-by-script');\n")
    page = tmp_path / "book" / "page.html"
    page.parent.mkdir()
    page.write_text(HEAD)
    return tmp_path, page


def test_one_purged_stylesheet_replaces_the_head_s_stylesheets(tiny_site):
    outdir, page = tiny_site
    finished = first_paint.finish_heads(outdir, {page: page.read_text()})[page]
    head = finished[:finished.index("</head>")]
    links = re.findall(r'<link\b[^>]*rel="stylesheet"[^>]*>', head)
    assert len(links) == 1 and 'href="../_static/styles/course-site.css?v=' in links[0]
    css = (outdir / first_paint.BUNDLE).read_text()
    assert css.startswith('@charset "UTF-8";') and css.count("@charset") == 1
    assert css.index("margin: 0") < css.index(".used")  # @import in place, order kept
    assert ".added-by-script" in css  # a script names it
    assert ".never-used" not in css
    assert ".course-own-rule" in css
    assert "url(../fonts/icons.woff)" in css  # same folder as theme.css: unchanged
    assert "sourceMappingURL" not in css


def test_a_second_build_keeps_a_finished_page_and_updates_its_stylesheet(tiny_site):
    outdir, page = tiny_site
    first = first_paint.finish_heads(outdir, {page: page.read_text()})[page]
    assert first_paint.finish_heads(outdir, {page: first})[page] == first
    (outdir / "_static" / "course.css").write_text(".course-own-rule { color: navy }\n")
    again = first_paint.finish_heads(outdir, {page: first})[page]
    assert again != first and "navy" in (outdir / first_paint.BUNDLE).read_text()
    assert again.count('rel="stylesheet"') == 1


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
