"""Every page is usable with the keyboard alone and by a screen reader, in light and dark mode.

* Every explorer (a Plotly figure with a slider or a menu) is reached with Tab and driven with
  the arrow keys, Home and End; no mouse event is sent. The figure must change and the live
  region must say the new state.
* Every image has alt text that is not a file name; every Plotly figure has an accessible name.
* axe-core (from npm, pinned in js-requirements.txt, injected by the test) finds no violation
  of the WCAG 2.1 A and AA rules, in either colour scheme.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from .conftest import REPO_ROOT, toc_docnames
from .test_pages_in_browser import FIGURE_STATE, after_frames, state_after, visit

DOCNAMES = toc_docnames()
AXE_JS = REPO_ROOT / ".vendor" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
CONTROLS = ".course-explorer-control input[type=range], .course-explorer-control select"
MAX_TABS = 600


@pytest.fixture(scope="module", params=DOCNAMES)
def page_visit(request, browser, site_url, built_site):
    docname = request.param
    assert (built_site / f"{docname}.html").exists(), f"{docname}.html was not built"
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    yield docname, result
    result.page.context.close()


def _draw_every_figure(page) -> None:
    """Scroll through the page as a reader would, so that figures drawn lazily are drawn."""
    height = page.evaluate("document.body.scrollHeight")
    for y in range(0, height, 600):
        page.evaluate(f"window.scrollTo(0, {y})")
        after_frames(page)
    _wait_until_every_figure_is_drawn(page)


def _wait_until_every_figure_is_drawn(page) -> None:
    """Wait until each figure is drawn or has failed; name the ones that did not draw."""
    states = ("() => [...document.querySelectorAll('.course-plot')]"
              ".map(gd => [gd.id, gd.dataset.state || 'waiting'])")
    settled = f"() => ({states})().every(([id, state]) => state === 'drawn' || state === 'failed')"
    try:
        page.wait_for_function(settled, timeout=120_000, polling=250)  # a busy CI machine
    except PlaywrightTimeoutError:
        raise AssertionError(f"figures not drawn after 120 s: {page.evaluate(states)}") from None
    not_drawn = [pair for pair in page.evaluate(states) if pair[1] != "drawn"]
    assert not not_drawn, f"figures that failed to draw: {not_drawn}"


def _figures_with_controls(page) -> int:
    return page.evaluate("""() => [...document.querySelectorAll('.course-plot')].filter(gd =>
        (gd.layout.sliders || []).some(s => (s.steps || []).length > 1)
        || (gd.layout.updatemenus || []).length > 0).length""")


def _tab_to(page, control, tabs_left: int) -> int:
    """Press Tab until ``control`` has the focus; return how many presses are left."""
    while tabs_left > 0:
        page.keyboard.press("Tab")
        tabs_left -= 1
        if control.evaluate("element => element === document.activeElement"):
            return tabs_left
    raise AssertionError(f"Tab never reached the control {control.evaluate('e => e.id')}")


def _press(page, figure, status, key: str) -> tuple[str, str]:
    """Press ``key`` on the focused control; return the figure's new state and the announcement."""
    before, drawn = status.text_content(), figure.evaluate(FIGURE_STATE)
    page.keyboard.press(key)
    page.wait_for_function("([element, text]) => element.textContent !== text",
                           arg=[status.element_handle(), before])
    return state_after(page, figure, drawn), status.text_content()


def test_every_explorer_moves_with_the_keyboard_alone(page_visit):
    docname, result = page_visit
    page = result.page
    page.keyboard.press("Tab")  # no scrolling: a keyboard reader's first Tab draws every figure
    _wait_until_every_figure_is_drawn(page)
    controls = page.locator(CONTROLS)
    expected = _figures_with_controls(page)
    figures_with_keys = page.locator(".course-explorer-controls").count()
    assert figures_with_keys == expected, f"{docname}: {expected} explorers but {figures_with_keys} have keys"
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); }")
    tabs_left = MAX_TABS
    for index in range(controls.count()):
        control = controls.nth(index)
        label = control.evaluate("e => e.labels[0].textContent")
        assert label.strip() and not re.fullmatch(r"(slider|menu) \d+", label), (
            f"{docname}: control {index} has no telling label ({label!r}): name the slider or menu")
        figure = control.locator("xpath=ancestor::*[contains(@class,'course-explorer-controls')]"
                                 "/preceding-sibling::div[contains(@class,'course-plot')][1]")
        status = control.locator("xpath=ancestor::*[contains(@class,'course-explorer-controls')]"
                                 "//*[@aria-live='polite']")
        tabs_left = _tab_to(page, control, tabs_left)
        outline = control.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline != "none", f"{docname}: control '{label}' shows no focus ring"
        kind = control.evaluate("e => e.tagName.toLowerCase()")
        count = control.evaluate("e => e.tagName === 'SELECT' ? e.options.length : Number(e.max) + 1")
        names = control.evaluate("""e => e.tagName === 'SELECT' ? [...e.options].map(o => o.textContent)
            : null""")
        start = int(control.input_value())
        state = figure.evaluate(FIGURE_STATE)
        step_key = ("ArrowDown" if start < count - 1 else "ArrowUp") if kind == "select" else (
            "ArrowRight" if start < count - 1 else "ArrowLeft")
        for key, target in ((step_key, start + 1 if start < count - 1 else start - 1),
                            ("End", count - 1), ("Home", 0)):
            if target == int(control.input_value()):
                continue
            new_state, said = _press(page, figure, status, key)
            moved_to = int(control.input_value())
            assert moved_to == target, f"{docname}: '{label}' {key} moved to {moved_to}, not {target}"
            assert new_state != state, f"{docname}: '{label}' {key} did not change the figure"
            assert f"step {target + 1} of {count}" in said and said.startswith(label), (
                f"{docname}: '{label}' {key}: the live region says {said!r}")
            if names is not None:
                assert names[target] in said
            state = new_state
        assert result.console_errors == [], f"{docname}: errors while using the keyboard"


def test_native_slider_follows_plotly_slider(page_visit):
    """Moving Plotly's own slider with the mouse moves the keyboard control too."""
    docname, result = page_visit
    page = result.page
    _draw_every_figure(page)  # figures are drawn as they come near: every one, whatever ran before
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        figure = figures.nth(index)
        if figure.evaluate("gd => (gd.layout.sliders || []).length") == 0:
            continue
        figure.scroll_into_view_if_needed()
        rail = figure.locator(".slider-container .slider-rail-rect").first
        box = rail.bounding_box()
        active = figure.evaluate("gd => gd._fullLayout.sliders[0].active || 0")
        steps = figure.evaluate("gd => gd.layout.sliders[0].steps.length")
        page.mouse.click(box["x"] + box["width"] * (0.9 if active < steps / 2 else 0.1),
                         box["y"] + box["height"] / 2)
        page.wait_for_function("([gd, was]) => gd._fullLayout.sliders[0].active !== was",
                               arg=[figure.element_handle(), active], timeout=10_000)
        moved_to = figure.evaluate("gd => gd._fullLayout.sliders[0].active")
        native = figure.evaluate("""gd => Number(gd.parentNode.querySelector(
            '.course-explorer-control input[type=range]').value)""")
        assert native == moved_to != active, f"{docname}: figure {index}: keyboard control did not follow"


def test_native_menu_follows_plotly_menu(page_visit):
    """Picking an entry of Plotly's own dropdown with the mouse updates the keyboard control too."""
    docname, result = page_visit
    page = result.page
    _draw_every_figure(page)  # figures are drawn as they come near: every one, whatever ran before
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        figure = figures.nth(index)
        kinds = figure.evaluate("gd => (gd.layout.updatemenus || []).map(m => m.type || 'dropdown')")
        if not kinds or kinds[0] != "dropdown":
            continue
        figure.scroll_into_view_if_needed()
        figure.locator(".updatemenu-header-group").first.locator(".updatemenu-header").click()
        buttons = figure.locator(".updatemenu-dropdown-button")
        buttons.first.wait_for(state="visible", timeout=10_000)
        active = figure.evaluate("gd => gd._fullLayout.updatemenus[0].active")
        buttons.nth((active + 1) % buttons.count()).click()
        page.wait_for_function("([gd, was]) => gd._fullLayout.updatemenus[0].active !== was",
                               arg=[figure.element_handle(), active], timeout=10_000)
        moved_to = figure.evaluate("gd => gd._fullLayout.updatemenus[0].active")
        native = figure.evaluate("""gd => Number(gd.parentNode.querySelector(
            '.course-explorer-control select').value)""")
        assert native == moved_to != active, f"{docname}: figure {index}: keyboard menu did not follow"


def test_images_have_meaningful_alt_text(page_visit):
    docname, result = page_visit
    images = result.page.evaluate("""() => [...document.querySelectorAll('img')].map(img => ({
        src: img.getAttribute('src'), alt: img.getAttribute('alt'),
        figure: !!img.closest('.cell_output')}))""")
    for image in images:
        alt = (image["alt"] or "").strip()
        assert alt, f"{docname}: {image['src']} has no alt text"
        assert not re.search(r"(^|\s)\.{0,2}/|\\|_images|\.(png|svg|jpe?g|gif)\b", alt), (
            f"{docname}: {image['src']} has a file name as alt text: {alt!r}")
        if image["figure"]:  # a figure says what it shows; a logo may say less
            assert len(alt.split()) >= 8, f"{docname}: alt text {alt!r} says too little"


def test_every_figure_has_a_numbered_caption(page_visit):
    docname, result = page_visit
    outputs = result.page.evaluate("""() => [...document.querySelectorAll(
        'main .cell_output img, main .cell_output .course-plot')]
        .map(e => { const f = e.closest('figure');
                    const c = f && f.querySelector('figcaption .caption-number');
                    return {what: e.id || e.getAttribute('src'),
                            number: c ? c.textContent.trim() : ''}; })""")
    missing = [output["what"] for output in outputs if not output["number"]]
    assert missing == [], f"{docname}: figures without a numbered caption: {missing}"
    session = result.page.context.new_cdp_session(result.page)
    root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    for node_id in session.send("DOM.querySelectorAll", {"nodeId": root, "selector": "figure"})["nodeIds"]:
        ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})
        name = ax["nodes"][0].get("name", {}).get("value", "")
        assert name.startswith("Fig."), f"{docname}: a figure is not named by its caption ({name!r})"


def test_every_plotly_figure_has_an_accessible_name(page_visit):
    docname, result = page_visit
    _draw_every_figure(result.page)
    session = result.page.context.new_cdp_session(result.page)
    figures = result.page.locator(".course-plot")
    for index in range(figures.count()):
        figure = figures.nth(index)
        node_id = figure.evaluate("gd => gd.id")
        document = session.send("DOM.getDocument", {"depth": 0})
        node = session.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"],
                                                  "selector": f"#{node_id}"})
        tree = session.send("Accessibility.getPartialAXTree", {"nodeId": node["nodeId"],
                                                               "fetchRelatives": False})
        ax = tree["nodes"][0]
        name = ax.get("name", {}).get("value", "")
        description = ax.get("description", {}).get("value", "")
        assert len(name.split()) >= 3, f"{docname}: Plotly figure {node_id} has no accessible name ({name!r})"
        assert description, f"{docname}: Plotly figure {node_id} has no accessible description"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("docname", DOCNAMES)
def test_axe_finds_no_wcag_violations(browser, site_url, docname, scheme):
    assert AXE_JS.exists(), f"{AXE_JS} is missing: run `make vendor`"
    result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme=scheme)
    try:
        page = result.page
        assert page.evaluate("document.documentElement.dataset.theme") == scheme
        page.evaluate("document.fonts.ready.then(() => true)")
        after_frames(page)
        page.add_script_tag(path=str(AXE_JS))
        report = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG_TAGS)
        problems = [f"{v['id']} ({v['impact']}): {v['help']} -- "
                    + "; ".join(" ".join(node["target"]) for node in v["nodes"][:6])
                    for v in report["violations"]]
        assert problems == [], f"{docname} ({scheme}): axe-core found:\n" + "\n".join(problems)
    finally:
        result.page.context.close()
