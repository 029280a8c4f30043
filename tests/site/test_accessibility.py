"""Every page is usable with the keyboard alone and by a screen reader, in light and dark mode.

* Every explorer (a Plotly figure with a slider or a menu) is reached with Tab and driven with
  the arrow keys, Home and End; no mouse event is sent. The figure must change and the live
  region must say the new state.
* Every image has alt text that is not a file name; every Plotly figure has an accessible name.
* axe-core (from npm, pinned in js-requirements.txt, injected by the test) finds no violation
  of the WCAG 2.1 A and AA rules, in either colour scheme.
"""

from __future__ import annotations

import contextlib
import html
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


# Each chart's caption, in px below the chart's top: it must not move when the keyboard
# controls show (they lie over the band where Plotly's slider was).
CAPTION_OFFSET = """gd => { const figure = gd.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    return caption ? caption.getBoundingClientRect().top - gd.getBoundingClientRect().top : null; }"""
PLOT_INDEX = "gd => [...document.querySelectorAll('.course-plot')].indexOf(gd)"
# A chart with one control: a slider, or a dropdown menu (its keyboard twin takes its place).
ONE_CONTROL = "gd => gd.parentNode.querySelectorAll('.course-explorer-control').length === 1"
# Several dropdown menus and no slider (lesson 3's token picker): each control lies on its menu
DROPDOWN_ROW = """gd => (gd.layout.updatemenus || []).length > 1 && !(gd.layout.sliders || []).length
    && gd.layout.updatemenus.every(menu => (menu.type || 'dropdown') === 'dropdown')"""
# While a keyboard control has the focus: how many of Plotly's own controls still show, where the
# control is, and where the chart's slider band begins.
ON_SCREEN = """(gd, control) => {
    const own = [...gd.querySelectorAll('.slider-container, .updatemenu-container')];
    const box = control.getBoundingClientRect(), chart = gd.getBoundingClientRect();
    const sliders = [...gd.querySelectorAll('.slider-container')].map(g => g.getBoundingClientRect().top);
    const menus = [...gd.querySelectorAll('.updatemenu-header-group')].map(g => g.getBoundingClientRect());
    return {plotly_shown: own.filter(g => getComputedStyle(g).visibility !== 'hidden').length,
            plotly_drawn: own.length, width: box.width, top: box.top, bottom: box.bottom, right: box.right,
            chart_bottom: chart.bottom, slider_top: sliders.length ? Math.min(...sliders) : null,
            menu: menus.length === 1 && !sliders.length ? {top: menus[0].top, bottom: menus[0].bottom,
                                                         right: menus[0].right} : null,
            menus: sliders.length ? [] : menus.map(m => ({top: m.top, bottom: m.bottom, left: m.left,
                                                           right: m.right})),
            left: box.left};
}"""


def _one_control_on_screen(docname: str, label: str, figure, control) -> None:
    """While ``control`` has the focus it is the only control of its chart on the screen, and a
    range lies where Plotly's slider was."""
    seen = figure.evaluate(ON_SCREEN, control.element_handle())
    assert seen["plotly_drawn"] and not seen["plotly_shown"], (
        f"{docname}: '{label}' has the focus, yet {seen['plotly_shown']} of Plotly's own controls show")
    assert seen["width"] > 50, f"{docname}: '{label}' has the focus but is not shown: {seen}"
    if control.evaluate("e => e.type === 'range'") and seen["slider_top"] is not None:
        assert seen["slider_top"] - 1 <= seen["top"] and seen["bottom"] <= seen["chart_bottom"] + 1, (
            f"{docname}: '{label}' is not where Plotly's slider was: {seen}")
    if seen["menu"] is not None:  # a lone dropdown: the menu lies on it, right edges together
        middle = (seen["top"] + seen["bottom"]) / 2
        assert seen["menu"]["top"] - 8 <= middle <= seen["menu"]["bottom"] + 8, (
            f"{docname}: '{label}' is not where Plotly's dropdown was: {seen}")
        assert abs(seen["right"] - seen["menu"]["right"]) <= 4, (
            f"{docname}: '{label}' is not where Plotly's dropdown was: {seen}")
    if len(seen["menus"]) > 1:  # several dropdowns: the control lies on one of them, edge to edge
        assert any(abs(seen["left"] - menu["left"]) <= 4 and abs(seen["right"] - menu["right"]) <= 4
                   and abs(seen["top"] - menu["top"]) <= 4 for menu in seen["menus"]), (
            f"{docname}: '{label}' lies on none of Plotly's dropdowns: {seen}")


# The chart's title as words, as the explorer's announcement reads it (<br> a space)
PLAIN_TITLE = """gd => { const title = gd.layout.title, box = document.createElement('div');
    box.innerHTML = String((title && (title.text || title)) || '');
    box.querySelectorAll('br').forEach(br => br.replaceWith(' '));
    return box.textContent.replace(/[ \\t\\r\\n]+/g, ' ').trim(); }"""


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
    plots = page.locator(".course-plot")
    captions = [plots.nth(index).evaluate(CAPTION_OFFSET) for index in range(plots.count())]
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
        _one_control_on_screen(docname, label, figure, control)
        one_control = figure.evaluate(ONE_CONTROL) or figure.evaluate(DROPDOWN_ROW)
        if one_control:  # it lies where Plotly's own was: nothing below moves
            before = captions[figure.evaluate(PLOT_INDEX)]
            moved = figure.evaluate(CAPTION_OFFSET)
            assert moved is None or abs(moved - before) <= 1, (
                f"{docname}: '{label}' took the focus and the caption moved by {moved - before:.0f} px")
        outline = control.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline != "none", f"{docname}: control '{label}' shows no focus ring"
        kind = control.evaluate("e => e.tagName.toLowerCase()")
        count = control.evaluate("e => e.tagName === 'SELECT' ? e.options.length : Number(e.max) + 1")
        names = control.evaluate("""e => e.tagName === 'SELECT' ? [...e.options].map(o => o.textContent)
            : null""")
        start = int(control.input_value())
        state = figure.evaluate(FIGURE_STATE)
        width = control.evaluate("e => e.getBoundingClientRect().width")
        step_key = ("ArrowDown" if start < count - 1 else "ArrowUp") if kind == "select" else (
            "ArrowRight" if start < count - 1 else "ArrowLeft")
        for key, target in ((step_key, start + 1 if start < count - 1 else start - 1),
                            ("End", count - 1), ("Home", 0)):
            if target == int(control.input_value()):
                continue
            title = figure.evaluate(PLAIN_TITLE)
            new_state, said = _press(page, figure, status, key)
            moved_to = int(control.input_value())
            new_title = figure.evaluate(PLAIN_TITLE)
            assert new_title == title or said.endswith(new_title), (
                f"{docname}: '{label}' {key} rewrote the chart's title to {new_title!r}, "
                f"and the live region says only {said!r}")
            assert moved_to == target, f"{docname}: '{label}' {key} moved to {moved_to}, not {target}"
            assert new_state != state, f"{docname}: '{label}' {key} did not change the figure"
            assert f"step {target + 1} of {count}" in said and said.startswith(label), (
                f"{docname}: '{label}' {key}: the live region says {said!r}")
            if names is not None:
                assert names[target] in said
            # the slider keeps its length: its value, beside it, is as wide as the longest
            # (lesson 7's grew and shrank by up to 46 px with "all seeds" and "marked token")
            new_width = control.evaluate("e => e.getBoundingClientRect().width")
            assert abs(new_width - width) <= 1, (
                f"{docname}: '{label}' {key} changed the control's width: {width:.0f} -> {new_width:.0f} px")
            state = new_state
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    hidden = page.evaluate("""() => [...document.querySelectorAll('.slider-container, .updatemenu-container')]
        .filter(g => getComputedStyle(g).visibility === 'hidden').length""")
    assert hidden == 0, f"{docname}: {hidden} of Plotly's controls stay hidden once the focus has left"
    back = [plots.nth(index).evaluate(CAPTION_OFFSET) for index in range(plots.count())]
    assert all((a is None and b is None) or abs(a - b) <= 1 for a, b in zip(captions, back, strict=True)), (
        f"{docname}: the captions did not come back to their places: {captions} {back}")
    assert result.console_errors == [], f"{docname}: errors while using the keyboard"


@pytest.mark.parametrize("docname", ["book/lessons/01_tokens_to_vectors", "book/lessons/03_dense_lookup",
                                     "book/lessons/05_combined_pipeline", "book/lessons/06_seeing_embeddings",
                                     "book/lessons/09_questions"])
def test_on_a_phone_the_keyboard_control_takes_the_place_of_plotly_s_own(browser, site_url, built_site,
                                                                        docname):
    """At 390 px: Tab to each explorer that has one control (a slider, or a dropdown menu); it
    shows alone, where Plotly's own was, inside the screen, and the caption stays where it was.
    A slider's value stays on its line (beside lesson 3's long label it wrapped alone below)."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(390, 844))
    page = result.page
    page.keyboard.press("Tab")
    _wait_until_every_figure_is_drawn(page)
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); }")
    plots = page.locator(".course-plot")
    one_control = [index for index in range(plots.count()) if plots.nth(index).evaluate(ONE_CONTROL)]
    assert one_control, f"{docname}: no explorer with one control"
    tabs_left = MAX_TABS
    for index in one_control:
        figure = plots.nth(index)
        caption = figure.evaluate(CAPTION_OFFSET)
        panel = figure.locator("xpath=following-sibling::div[contains(@class,'course-explorer-controls')][1]")
        control = panel.locator("input[type=range], select")
        label = control.evaluate("e => e.labels[0].textContent")
        tabs_left = _tab_to(page, control, tabs_left)
        _one_control_on_screen(docname, label, figure, control)
        where = control.evaluate("e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }")
        assert where[0] >= 0 and where[1] <= 844, f"{docname}: '{label}' has the focus off screen: {where}"
        moved = figure.evaluate(CAPTION_OFFSET) - caption
        assert abs(moved) <= 1, f"{docname}: '{label}' took the focus and the caption moved by {moved:.0f} px"
        row = control.evaluate("""e => { const l = e.labels[0].getBoundingClientRect();
            const r = e.closest('.course-explorer-control').getBoundingClientRect();
            return [r.left, r.right, l.left]; }""")
        assert row[0] >= 0 and row[2] >= 8 and row[1] <= 390, f"{docname}: '{label}' leaves the screen: {row}"
        apart = control.evaluate("""e => { const v = e.parentNode.querySelector('output');
            if (!v) return 0; const a = e.getBoundingClientRect(), b = v.getBoundingClientRect();
            return Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2); }""")
        assert apart <= 4, f"{docname}: '{label}': its value is {apart:.0f} px off the slider's line"
    assert result.console_errors == []
    result.page.context.close()


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


# Each visible button and disclosure with text of its own: its text, and its CDP node.
LABELLED_CONTROLS = "button, summary, [role=button]"


def test_every_control_is_named_by_the_text_it_shows(page_visit):
    """WCAG 2.5.3 (Label in Name): a reader who says what they see ("click Search Ctrl+K",
    "click Show code cell source") is understood, so each control's accessible name holds its
    visible text. Icons inside a named button (the colour-mode button's) are decoration and are
    not read out beside its name."""
    docname, result = page_visit
    page = result.page
    session = page.context.new_cdp_session(page)
    root = session.send("DOM.getDocument", {"depth": -1, "pierce": False})["root"]["nodeId"]
    controls = session.send("DOM.querySelectorAll",
                            {"nodeId": root, "selector": LABELLED_CONTROLS})["nodeIds"]
    checked = 0
    for node_id in controls:
        remote = session.send("DOM.resolveNode", {"nodeId": node_id})["object"]["objectId"]
        shown = session.send("Runtime.callFunctionOn", {
            "objectId": remote, "returnByValue": True,
            "functionDeclaration": "function () { return this.checkVisibility() ? this.innerText : ''; }",
        })["result"]["value"]
        ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})
        name = ax["nodes"][0].get("name", {}).get("value", "")
        if shown.strip():
            checked += 1
            assert re.sub(r"\s+", "", shown).lower() in re.sub(r"\s+", "", name).lower(), (
                f"{docname}: a control shows {shown.strip()!r} but is named {name!r}")
    assert checked >= 1, f"{docname}: no control with visible text was found"
    switch = page.locator(".theme-switch-button").first
    icons = switch.evaluate("button => [...button.querySelectorAll('i, svg')].map(icon => [icon.title || '', "
                            "icon.getAttribute('aria-hidden')])")
    assert icons and all(title == "" and hidden == "true" for title, hidden in icons), (
        f"{docname}: the colour-mode button's icons are read out: {icons}")


ICON_GLYPH = re.compile("[\ue000-\uf8ff]")  # the icon font's private-use characters


def _names_holding_an_icon(page) -> list[tuple[str, str]]:
    """What a screen reader would read out as an icon's character: names and text alike."""
    session = page.context.new_cdp_session(page)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    return [(node["role"]["value"], node["name"]["value"]) for node in nodes
            if not node.get("ignored") and ICON_GLYPH.search(node.get("name", {}).get("value", "") or "")]


def test_no_name_reads_an_icon_out(page_visit):
    """The theme draws its icons as characters of an icon font; a link or button named by its
    content was read as "\uf104 Previous" or, on a phone, the contents button as "\uf03a", and
    a tip's title as "\uf0eb Tip" (an icon set through a custom property)."""
    docname, result = page_visit
    assert _names_holding_an_icon(result.page) == [], docname


def test_no_name_reads_an_icon_out_on_a_phone(browser, site_url):
    result = visit(browser, f"{site_url}/book/lessons/03_dense_lookup.html", site_url, viewport=(390, 800))
    try:
        assert _names_holding_an_icon(result.page) == []
        # the drawer buttons, whose only content is an icon, are named in words (their titles)
        session = result.page.context.new_cdp_session(result.page)
        root = session.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        names = []
        toggles = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": ".sidebar-toggle"})
        for node_id in toggles["nodeIds"]:
            ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})
            if not ax["nodes"][0].get("ignored"):
                names.append(ax["nodes"][0].get("name", {}).get("value", ""))
        assert len(names) == 2 and all(re.search(r"[a-z]{3}", name) for name in names), names
    finally:
        result.page.context.close()


@pytest.mark.parametrize("kind, selector", [("disclosures", "summary"), ("answer boxes", "form fieldset"),
                                            ("Check buttons", ".course-self-check-button")])
def test_no_two_disclosures_or_answer_boxes_share_a_name(page_visit, kind, selector):
    """A screen reader lists a page's disclosures, groups and buttons by name: three "Show code
    cell content" or "Check" cannot be told apart, "Show the solution to exercise 2" and "Check
    exercise 2" can (WCAG 2.4.6, Headings and Labels)."""
    docname, result = page_visit
    session = result.page.context.new_cdp_session(result.page)
    root = session.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    names = []
    for node_id in session.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False})
        names.append(ax["nodes"][0].get("name", {}).get("value", ""))
    twice = sorted({name for name in names if names.count(name) > 1})
    assert twice == [], f"{docname}: {kind} that share a name: {twice}"


def test_no_id_is_given_twice(page_visit):
    """WCAG 2.1's 4.1.1 (Parsing): ids are unique, or a caption, label or description that
    points at one may name another element. Checked with every figure drawn (Plotly and the
    keyboard controls add elements with ids)."""
    docname, result = page_visit
    _draw_every_figure(result.page)
    twice = result.page.evaluate("""() => { const seen = {};
        document.querySelectorAll('[id]').forEach(e => { seen[e.id] = (seen[e.id] || 0) + 1; });
        return Object.entries(seen).filter(([, count]) => count > 1); }""")
    assert twice == [], f"{docname}: ids given more than once: {twice[:10]}"


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
    assert descriptions_that_misread_their_titles(result.page) == [], docname


def test_a_figure_is_read_by_its_caption_and_description_not_its_drawing(page_visit):
    """Plotly's SVG read out as some sixty fragments (tick labels, legend entries, the
    off-screen text tester as an unnamed image). It is hidden; the description carries what
    it wrote: notes, colour scales, legend."""
    docname, result = page_visit
    page = result.page
    _draw_every_figure(page)
    session = page.context.new_cdp_session(page)
    root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    for selector in [".course-plot", "#js-plotly-tester"]:
        found = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
        for node_id in found:
            read = session.send("Accessibility.queryAXTree", {"nodeId": node_id, "role": "StaticText"})
            read = read["nodes"]
            texts = [node.get("name", {}).get("value", "") for node in read if not node.get("ignored")]
            assert texts == [], f"{docname}: {selector} is read out piece by piece: {texts[:8]}"
    # what the hidden drawing wrote that a reader needs: its notes (panel titles, markers),
    # colour-scale titles and legend, each in the description
    drawn = page.evaluate("""() => [...document.querySelectorAll('.course-plot')].map(gd => {
        const words = selector => [...gd.querySelectorAll(selector)].map(t => t.textContent.trim())
            .filter(Boolean);
        return [gd.id, words('.annotation-text'), words('.cbtitle text'), words('.legend .legendtext'),
                document.getElementById(gd.getAttribute('aria-describedby')).textContent]; })""")
    for figure, notes, scales, entries, description in drawn:
        said = re.sub(r"\s+", "", description)
        missing = [text for text in notes + scales + entries if re.sub(r"\s+", "", text) not in said]
        assert missing == [], f"{docname}: {figure}: the description {description!r} leaves out {missing}"
        if entries:
            assert f"Legend: {', '.join(entries)}." in description, f"{docname}: {figure}: {description!r}"
    # a 3-D chart's points are named only when a pointer rests on them: the description names them
    hovered = page.evaluate("""() => [...document.querySelectorAll('.course-plot')].map(gd => [gd.id,
        (gd.data || []).filter(trace => trace.type === 'scatter3d').flatMap(trace => trace.text || []),
        document.getElementById(gd.getAttribute('aria-describedby')).textContent])""")
    for figure, words, description in hovered:
        missing = [word for word in words[:60] if word not in description]
        assert missing == [], f"{docname}: {figure}: the description {description!r} leaves out {missing}"
    # on a chart of several panels, each axis is said with its panel ("y axis of panel 2: ...")
    panelled = page.evaluate("""() => [...document.querySelectorAll('.course-plot')].map(gd => [gd.id,
        ['x', 'y'].filter(letter => Object.keys(gd.layout).filter(key =>
            new RegExp('^' + letter + 'axis\\\\d*$').test(key) && gd.layout[key].title
            && gd.layout[key].title.text).length > 1),
        document.getElementById(gd.getAttribute('aria-describedby')).textContent])""")
    for figure, letters, description in panelled:
        for letter in letters:
            said = re.findall(rf"\b{letter} axis[^:]*:", description)
            assert said and all(" of panel" in axis for axis in said), f"{docname}: {figure}: {description!r}"


# Each drawn figure's title (Plotly's markup, with the <br> a phone's layout adds) and what its
# description, read out after its caption, says
TITLES_AND_DESCRIPTIONS = """() => [...document.querySelectorAll('.course-plot[aria-describedby]')]
    .map(gd => { const title = (gd.layout || {}).title;
                 return [gd.id, (title && title.text) || title || '',
                         document.getElementById(gd.getAttribute('aria-describedby')).textContent]; })"""


def descriptions_that_misread_their_titles(page) -> list[str]:
    """The figures whose description does not begin with their title as words."""
    problems = []
    for figure, title, description in page.evaluate(TITLES_AND_DESCRIPTIONS):
        said = _words(title) if isinstance(title, str) else ""
        if said and not description.startswith(f"Chart: {said}."):
            problems.append(f"{figure}: title {said!r}, description {description!r}")
    return problems


def _words(title: str) -> str:
    """A Plotly title as a reader hears it: line breaks are spaces, tags go, a no-break space
    stays (a number keeps its unit)."""
    text = re.sub(r"<[^>]*>", "", re.sub(r"<br\s*/?>", " ", title, flags=re.IGNORECASE))
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(text)).strip()


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
        problems = _axe_problems(page)
        assert problems == [], f"{docname} ({scheme}): axe-core found:\n" + "\n".join(problems)
    finally:
        result.page.context.close()


def _axe_problems(page) -> list[str]:
    """What axe-core finds on the page as it is now (WCAG 2.1 A and AA)."""
    page.add_script_tag(path=str(AXE_JS))
    report = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG_TAGS)
    return [f"{v['id']} ({v['impact']}): {v['help']} -- "
            + "; ".join(" ".join(node["target"]) for node in v["nodes"][:6])
            for v in report["violations"]]


@pytest.mark.parametrize("width", [1280, 390])
def test_axe_finds_no_wcag_violations_before_the_reader_moves(whole_browser, site_url, width):
    """The theme's scripts wait for the reader's first move (course-first-move.js): the page is
    accessible without them. (In the whole browser: the headless shell points at a page as it
    loads, which is a move.)"""
    result = visit(whole_browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url,
                   viewport=(width, 844))
    try:
        page = result.page
        page.evaluate("document.fonts.ready.then(() => true)")
        after_frames(page)
        problems = _axe_problems(page)
        waited = page.evaluate("performance.getEntriesByType('resource')"
                               ".every(entry => !entry.name.includes('pydata-sphinx-theme.js'))")
        assert waited, "the theme's script loaded before any move"
        assert problems == [], f"lesson 4 at {width} px before a move:\n" + "\n".join(problems)
    finally:
        result.page.context.close()


def test_a_button_pressed_with_a_key_keeps_the_focus_and_says_what_it_did(browser, site_url):
    """The copy button lost the focus when pressed (clipboard.js copies from a text area it
    focuses and removes) and the colour-mode button blurred itself: the next Tab started at the
    top of the page. Both keep it now; a copy is announced, and the colour-mode button is named
    by the mode it has set."""
    result = visit(browser, f"{site_url}/book/lessons/02_one_hot.html", site_url)
    page = result.page
    try:
        page.keyboard.press("Tab")  # a keyboard reader's first key: the copy buttons come with it
        copy = page.locator("button.copybtn").first
        copy.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("""() => [...document.querySelectorAll('[role="status"]')]
            .some(status => /Copied/.test(status.textContent))""", timeout=5000)
        assert copy.evaluate("button => document.activeElement === button"), "the copy button lost the focus"
        mode = page.locator(".theme-switch-button").first
        assert mode.get_attribute("aria-label") == "Color mode: as the system"
        mode.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("button => button.getAttribute('aria-label') !== 'Color mode: as the system'",
                               arg=mode.element_handle(), timeout=5000)
        shown = page.evaluate("() => document.documentElement.dataset.mode")
        assert mode.get_attribute("aria-label") == f"Color mode: {shown}", shown
        page.wait_for_function("button => document.activeElement === button", arg=mode.element_handle(),
                               timeout=5000)  # the theme blurs it as it sets the mode; it comes back
    finally:
        page.context.close()


@pytest.mark.parametrize("opener, beside", [(".primary-toggle", (380, 400)), (".secondary-toggle", (10, 400)),
                                            (".search-button__button", (195, 780))])
@pytest.mark.parametrize("close", ["Escape", "a tap beside it"])
def test_a_closed_dialog_gives_the_focus_back_to_the_button_that_opened_it(browser, site_url, opener, beside,
                                                                          close):
    """On a phone the contents, the page's sections and the search open as dialogs. Closed with
    Escape or a tap beside them, the theme left the focus on <body>, so a screen reader started
    again at the top."""
    result = visit(browser, f"{site_url}/book/lessons/03_dense_lookup.html", site_url, viewport=(390, 800))
    page = result.page
    try:
        button = page.locator(opener).filter(visible=True).first
        button.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('dialog[open]')", timeout=5000)
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            page.touchscreen.tap(*beside)
        page.wait_for_function("() => !document.querySelector('dialog[open]')", timeout=5000)
        page.wait_for_function("button => document.activeElement === button", arg=button.element_handle(),
                               timeout=5000)
        after_frames(page)  # and it stays there
        assert button.evaluate("button => document.activeElement === button")
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_button_the_keyboard_reaches_shows_where_the_focus_is(browser, site_url, scheme):
    """The search field, the sidebar toggle and the launch, source and download menus showed no
    focus ring (Bootstrap clears it), and Plotly's toolbar rang in 1 px black, invisible in dark
    mode. Every button reached by Tab draws a ring now, and the toolbar's drag modes, which a key
    cannot use, are no tab stops (the toolbar's other buttons are reached by its arrows)."""
    result = visit(browser, f"{site_url}/book/lessons/02_one_hot.html", site_url, color_scheme=scheme)
    page = result.page
    try:
        figure = page.locator(".course-plot").first
        figure.scroll_into_view_if_needed()
        page.wait_for_function("gd => gd.dataset.state === 'drawn'", arg=figure.element_handle())
        page.evaluate("() => { window.scrollTo(0, 0); document.activeElement.blur(); }")
        unringed, seen = [], set()
        for _ in range(60):
            page.keyboard.press("Tab")
            focused = page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
                return {button: e.tagName === 'BUTTON', name: e.getAttribute('aria-label') || e.title
                        || e.getAttribute('data-title') || e.textContent.trim().slice(0, 30),
                        ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2,
                        toolbar: e.classList.contains('modebar-btn'),
                        drag: e.dataset.attr === 'dragmode'}; }""")
            if focused["button"] and not focused["ring"]:
                unringed.append(focused["name"])
            seen.add(focused["name"])
            assert not focused["drag"], f"the toolbar's drag mode '{focused['name']}' is a tab stop"
            if focused["toolbar"]:  # one tab stop (the arrows move in it: the next test)
                break
        assert "Download plot as a PNG" in seen and "Download this page" in seen, sorted(seen)
        assert unringed == [], f"{scheme}: buttons without a focus ring: {unringed}"
    finally:
        page.context.close()


def test_a_box_that_scrolls_sideways_is_a_named_tab_stop_on_a_phone(browser, site_url):
    """A table or listing wider than a phone takes the focus (to scroll it by keys); it was a
    tab stop with no name. It is a region named for what it is ("table, scrolls sideways")."""
    result = visit(browser, f"{site_url}/book/lessons/03_dense_lookup.html", site_url, viewport=(390, 844))
    page = result.page
    try:
        page.mouse.wheel(0, 4000)  # bring boxes near the screen: each is measured as it comes
        # The theme makes its boxes tab stops when the page has loaded; course-tab-stops.js
        # names them once the browser is idle: wait for that, then read what it left.
        boxes_script = """() => [...document.querySelectorAll(
            '.pst-scrollable-table-container, pre, .cell_output > .output')]
            .filter(box => box.tabIndex === 0)
            .map(box => [box.className || box.tagName, box.getAttribute('role'),
                         box.getAttribute('aria-label') || ''])"""
        with contextlib.suppress(PlaywrightTimeoutError):  # the assertion says what is left unnamed
            page.wait_for_function(f"""() => {{ const boxes = ({boxes_script})();
                return boxes.length > 0 && boxes.every(([, role, name]) => role === 'region'
                                                       && name.endsWith('scrolls sideways')); }}""",
                                   timeout=10_000)
        boxes = page.evaluate(boxes_script)
        unnamed = [box for box in boxes if box[1] != "region" or not box[2].endswith("scrolls sideways")]
        assert boxes and unnamed == [], unnamed
    finally:
        page.context.close()


def test_a_chart_s_toolbar_is_one_tab_stop_whose_arrows_move_between_its_buttons(browser, site_url):
    """Plotly's toolbar (role="toolbar") made each of its five buttons a tab stop, on every chart
    at a desktop's width. It is one stop now: the arrow keys, Home and End move between its
    buttons (each showing its ring), a key works the button, Tab leaves the toolbar, and
    Shift+Tab comes back to the button last used."""
    result = visit(browser, f"{site_url}/book/lessons/02_one_hot.html", site_url)
    page = result.page
    try:
        figure = page.locator(".course-plot").first
        figure.scroll_into_view_if_needed()
        page.wait_for_function("gd => gd.dataset.state === 'drawn'", arg=figure.element_handle())
        stops = figure.evaluate("gd => [...gd.querySelectorAll('.modebar-btn')].filter(b => b.tabIndex === 0)"
                                ".map(b => b.getAttribute('aria-label'))")
        assert stops == ["Download plot as a PNG"], stops
        figure.locator(".modebar-btn").first.focus()

        def focused():
            return page.evaluate("""() => { const e = document.activeElement, s = getComputedStyle(e);
                return [e.getAttribute('aria-label'),
                        s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2]; }""")

        walk = []
        keys = ["ArrowRight", "ArrowRight", "End", "ArrowRight", "ArrowLeft", "Home", "ArrowLeft",
                "ArrowDown"]
        for key in keys:
            page.keyboard.press(key)
            walk.append(focused())
        assert walk == [["Zoom in", True], ["Zoom out", True], ["Reset axes", True],
                        ["Download plot as a PNG", True], ["Reset axes", True],
                        ["Download plot as a PNG", True], ["Reset axes", True],
                        ["Download plot as a PNG", True]], walk
        page.keyboard.press("ArrowRight")  # to "Zoom in", and use it
        ranges = "gd => JSON.stringify([gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range])"
        before = figure.evaluate(ranges)
        page.keyboard.press("Enter")
        page.wait_for_function(f"([gd, before]) => ({ranges})(gd) !== before",
                               arg=[figure.element_handle(), before], timeout=5000)  # it zoomed
        page.keyboard.press("Tab")
        assert not page.evaluate("() => document.activeElement.classList.contains('modebar-btn')"), focused()
        page.keyboard.press("Shift+Tab")
        assert focused() == ["Zoom in", True]
    finally:
        page.context.close()
