"""Every page at the width of a phone (390 x 844): nothing wider than the screen, in every
figure no text label on top of another, no title cut off or under the toolbar, and every
static figure shown in its drawing for a narrow screen, its text at least 10 px."""

from __future__ import annotations

import io
from urllib.parse import urlparse

import pytest
from PIL import Image

from .conftest import BUILT_SITE
from .test_accessibility import descriptions_that_misread_their_titles
from .test_pages_in_browser import (
    DOCNAMES,
    after_frames,
    draw_every_figure,
    figure_label_problems,
    lines_through_words,
    menu_problems,
    plot_area_problems,
    slider_drag_problems,
    slider_value_problems,
    step_word_problems,
    visit,
)

PHONE = (390, 844)
# Each figure on the page: [id, its drawing's state ('' until it is drawn), its height in px]
FIGURE_HEIGHTS = """() => [...document.querySelectorAll('.course-plot')]
    .map(gd => [gd.id, gd.dataset.state || '', gd.getBoundingClientRect().height])"""


def waiting_figure_heights(page) -> dict[str, float]:
    """The height of each figure not drawn yet, by its id."""
    return {name: height for name, state, height in page.evaluate(FIGURE_HEIGHTS) if not state}


@pytest.fixture(scope="module", params=DOCNAMES)
def phone_load(request, browser, site_url, built_site):
    """A page at phone width as it loaded, and the heights of the figures not drawn yet."""
    docname = request.param
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=PHONE)
    yield docname, result, waiting_figure_heights(result.page)
    result.page.context.close()


@pytest.fixture(scope="module")
def phone_visit(phone_load):
    """A page at phone width with every figure drawn."""
    docname, result, _ = phone_load
    draw_every_figure(result.page)
    return docname, result


def test_page_is_no_wider_than_a_phone(phone_visit):
    docname, result = phone_visit
    widths = result.page.evaluate("""() => ({page: document.documentElement.scrollWidth,
                                             screen: document.documentElement.clientWidth})""")
    assert widths["page"] <= widths["screen"], f"{docname}: the page scrolls sideways at 390 px: {widths}"
    result.page.wait_for_load_state("networkidle")  # what the page asks for after its load event too
    assert result.console_errors == [], f"{docname}: console errors at 390 px"


# Inline formulas wider than their line: a display formula scrolls sideways in its own box, but
# an inline one is cut off at the line's end (lesson 4's exercise 3 lost its right half).
INLINE_FORMULAS_WIDER_THAN_THEIR_LINE = """() => [...document.querySelectorAll(
        'article mjx-container:not([display="true"])')]
    .map(formula => {
        const drawing = formula.querySelector(':scope > svg');
        const line = formula.closest('p, li, dd, dt, td, th, figcaption, legend') || formula.parentElement;
        return {text: formula.textContent.trim().slice(0, 60), line: line.clientWidth,
                width: drawing ? drawing.getBoundingClientRect().width : 0};
    })
    .filter(formula => formula.width > formula.line + 0.5)
    .map(formula => `${formula.text}: ${Math.round(formula.width)} px on a line of ${formula.line} px`)"""


def test_an_inline_formula_fits_its_line_on_a_phone(phone_visit):
    docname, result = phone_visit
    too_wide = result.page.evaluate(INLINE_FORMULAS_WIDER_THAN_THEIR_LINE)
    assert not too_wide, f"{docname}: inline formulas cut off at 390 px (make them display math): {too_wide}"


def test_a_formula_wider_than_a_phone_shows_the_side_it_scrolls_towards(browser, site_url):
    """Lesson 4's first formula is wider than 390 px: with its drawing hidden, its box is shaded
    at the right edge and not at the left while it is scrolled to its start, and the other way
    round at its end."""
    result = visit(browser, f"{site_url}/book/lessons/04_sinusoidal_positions.html", site_url, viewport=PHONE)
    page = result.page
    box = page.locator("div.math.course-math > mjx-container").first
    box.scroll_into_view_if_needed()
    assert box.evaluate("box => box.scrollWidth > box.clientWidth + 20"), "the formula fits: pick a wider one"
    box.evaluate("box => { box.querySelector(':scope > svg').style.visibility = 'hidden'; }")

    def edges() -> tuple[float, float]:  # how far the outermost columns differ from the middle one
        image = Image.open(io.BytesIO(box.screenshot())).convert("L")
        width, height = image.size
        column = [[image.getpixel((x, y)) for y in range(height)] for x in (1, width // 2, width - 2)]
        middle = sum(column[1]) / height
        return abs(sum(column[0]) / height - middle), abs(sum(column[2]) / height - middle)

    left, right = edges()
    assert right > 8 > left, f"scrolled to its start: shade left {left:.1f}, right {right:.1f}"
    box.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    left, right = edges()
    assert left > 8 > right, f"scrolled to its end: shade left {left:.1f}, right {right:.1f}"
    result.page.context.close()


# For the focused element: the ancestors that clip its focus ring (the ring is the element's box
# grown by the outline's offset and width) at the left or right.
RING_CUT_BY = """box => {
  const style = getComputedStyle(box);
  if (style.outlineStyle === 'none') return ['no focus ring'];
  const grow = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
  const own = box.getBoundingClientRect(), cut = [];
  for (let clip = box.parentElement; clip; clip = clip.parentElement) {
    const clipping = getComputedStyle(clip);
    if (clipping.overflowX === 'visible' && clipping.overflowY === 'visible') continue;
    const frame = clip.getBoundingClientRect();
    if (own.left - grow < frame.left - 0.5 || own.right + grow > frame.right + 0.5)
      cut.push(clip.tagName.toLowerCase() + '.' + [...clip.classList].join('.'));
  }
  return cut;
}"""


def test_a_wide_formula_focused_by_the_keyboard_shows_its_focus_ring_on_all_four_sides(browser, site_url):
    """A formula wider than a phone takes the focus, so that it can be scrolled with the arrow
    keys. Its box is as wide as the column, and its ring, drawn outside the box, was cut at the
    left and right by the column: a keyboard reader saw two lines, above and below it."""
    result = visit(browser, f"{site_url}/book/lessons/05_combined_pipeline.html", site_url, viewport=PHONE)
    page = result.page
    box = page.locator("div.math.course-math > mjx-container[tabindex='0']").first
    box.scroll_into_view_if_needed()
    page.keyboard.press("Tab")  # the keyboard is in use: a focus then shows its ring
    box.focus()
    assert box.evaluate("box => box === document.activeElement && box.matches(':focus-visible')")
    assert box.evaluate(RING_CUT_BY) == []
    result.page.context.close()


@pytest.mark.parametrize("docname", ["book/lessons/02_one_hot", "book/lessons/05_combined_pipeline"])
def test_a_slider_focused_by_the_keyboard_shows_its_focus_ring_on_all_four_sides(browser, site_url, docname):
    """A slider as wide as the column at 390 px (Figs 2.2 and 5.1): its ring, drawn outside it,
    was cut at the sides by the output's box, which scrolls (overflow: auto)."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=PHONE)
    page = result.page
    page.keyboard.press("Tab")  # the keyboard is in use (a focus shows its ring); every figure draws
    sliders = page.locator(".course-explorer-control input[type=range]")
    sliders.first.wait_for(state="attached", timeout=30_000)
    for index in range(sliders.count()):
        slider = sliders.nth(index)
        slider.focus()
        assert slider.evaluate("box => box === document.activeElement && box.matches(':focus-visible')")
        assert slider.evaluate(RING_CUT_BY) == [], f"{docname}: slider {index}"
    result.page.context.close()


FADE = "box => getComputedStyle(box).getPropertyValue('--course-scroll-fade')"


@pytest.mark.parametrize(("lesson", "boxes"), [("02_one_hot", ".pst-scrollable-table-container"),
                                               ("04_sinusoidal_positions", "div.highlight > pre")])
def test_a_box_wider_than_a_phone_fades_at_its_edge_until_scrolled_to_its_end(browser, site_url,
                                                                               lesson, boxes):
    """At 390 px lesson 2's memory table showed four of its six columns, cut at a column's edge,
    and lesson 4's code cells a line ending mid-word: they looked whole. A table's or a code
    cell's right edge fades while there is more to scroll to, and not at its end; a box that
    fits (on a desktop) does not fade. Focused by the keyboard, its ring lies within the 4 px that
    the fade's mask reaches past the box, cut by nothing."""
    result = visit(browser, f"{site_url}/book/lessons/{lesson}.html", site_url, viewport=PHONE)
    page = result.page
    found = page.locator(f"article {boxes}")
    wide = [found.nth(i) for i in range(found.count())
            if found.nth(i).evaluate("box => box.scrollWidth > box.clientWidth + 1")]
    assert wide, f"{lesson} has a {boxes} wider than a phone"
    box = wide[0]
    box.scroll_into_view_if_needed()
    assert box.evaluate(FADE) == "40px"
    box.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    after_frames(page)
    assert box.evaluate(FADE) == "0px"
    page.keyboard.press("Tab")
    box.focus()
    assert box.evaluate("box => box.matches(':focus-visible')") and box.evaluate(RING_CUT_BY) == []
    reach = box.evaluate("box => { const style = getComputedStyle(box); "
                         "return parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth); }")
    assert 0 < reach <= 4, reach
    page.set_viewport_size({"width": 1280, "height": 900})
    # (after two frames: the resize's; a closed solution's cell keeps its first value, unseen)
    after_frames(page)
    fits = page.evaluate("""selector => [...document.querySelectorAll(`article ${selector}`)]
        .filter(box => box.checkVisibility() && box.scrollWidth <= box.clientWidth)
        .map(box => [box.textContent.slice(0, 30),
                     getComputedStyle(box).getPropertyValue('--course-scroll-fade')])""", boxes)
    assert fits and {fade for _, fade in fits} == {"0px"}, [fit for fit in fits if fit[1] != "0px"]
    result.page.context.close()


# Every table wider than its box, scrolled to its far end: for each row, the problems with its
# first cell (what the row is), which the reader should still see whole, on an opaque colour,
# with no other cell over it.
WIDE_TABLE_ROW_NAMES = """() => [...document.querySelectorAll('article .pst-scrollable-table-container')]
    .filter(box => box.scrollWidth > box.clientWidth + 1)
    .flatMap((box, index) => {
        box.scrollLeft = box.scrollWidth;
        const problems = [...box.querySelectorAll('tr')].map(row => {
            const cell = row.firstElementChild;
            const rowTop = row.getBoundingClientRect().top + window.scrollY;
            window.scrollTo(0, rowTop - window.innerHeight / 2);
            const frame = box.getBoundingClientRect(), own = cell.getBoundingClientRect();
            const name = `table ${index + 1}, row '${cell.textContent.trim()}'`;
            if (box.scrollLeft === 0) return `${name}: the table did not scroll`;
            if (own.left < frame.left - 0.5 || own.right > frame.right + 0.5)
                return `${name}: out of its box (${Math.round(own.left)} to ${Math.round(own.right)} px)`;
            if (own.width > frame.width / 2)
                return `${name}: ${Math.round(own.width)} px wide, over half the box`;
            const middle = (own.top + own.bottom) / 2;
            const covered = [own.left + 2, own.right - 2].some(
                x => !cell.contains(document.elementFromPoint(x, middle)));
            if (covered) return `${name}: another cell lies over it`;
            const background = getComputedStyle(cell).backgroundColor;
            if (!/^rgb\\(/.test(background))
                return `${name}: the cells scrolled under it show through (background ${background})`;
            return null;
        }).filter(Boolean);
        box.scrollLeft = 0;  // as the reader found it, for the other tests of this visit
        return problems;
    })"""


def test_a_wide_table_keeps_its_row_names_in_view_when_it_scrolls(phone_visit):
    """On a phone a table wider than the column scrolls sideways, and its first column stays,
    taking no more than half the box."""
    docname, result = phone_visit
    problems = result.page.evaluate(WIDE_TABLE_ROW_NAMES)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


def test_a_figure_s_description_reads_its_title_as_words_on_a_phone(phone_visit):
    """On a phone a figure's title is wrapped (<br>); its description keeps a space there."""
    docname, result = phone_visit
    draw_every_figure(result.page)
    assert descriptions_that_misread_their_titles(result.page) == [], f"{docname} at 390 px"


# Each drawn figure's legend (if it shows one) and plot area, in px within the figure
LEGENDS_AND_PLOTS = """() => [...document.querySelectorAll('.course-plot')].flatMap(gd => {
    const legend = gd.querySelector('.legend'), size = gd._fullLayout && gd._fullLayout._size;
    if (!legend || !size || !legend.getBoundingClientRect().width) return [];
    const frame = gd.getBoundingClientRect(), box = legend.getBoundingClientRect();
    return [{id: gd.id, legendLeft: box.left - frame.left, legendTop: box.top - frame.top,
             legendBottom: box.bottom - frame.top, plotRight: size.l + size.w,
             plotTop: size.t, plotBottom: size.t + size.h}];
})"""


def test_a_legend_leaves_the_plot_its_width_on_a_phone(phone_visit):
    """A legend sits above, below or inside the plot, not in a column beside it."""
    docname, result = phone_visit
    draw_every_figure(result.page)
    beside = [figure["id"] for figure in result.page.evaluate(LEGENDS_AND_PLOTS)
              if figure["legendLeft"] >= figure["plotRight"] - 1
              and figure["legendTop"] < figure["plotBottom"] and figure["legendBottom"] > figure["plotTop"]]
    assert beside == [], f"{docname} at 390 px: a legend beside the plot narrows it"


# A number and the unit after it joined by an ordinary space, which a narrow column may break
# ("38.6" / "M parameters"); and a percentage written with any space at all ("24 %", a no-break
# space included), where the course writes "24%" everywhere
SPLIT_UNITS = r"""() => [...document.querySelectorAll('article :is(p, li, td, th, label)')]
    .flatMap(block => block.textContent.match(
        /(?<![\w.,])[\d.,]*\d(?:[ \n\t]+(?:M|MiB|GiB|KB|MB|GB)\b|\s+%)/g) || [])"""


def test_a_number_keeps_its_unit_on_its_line(phone_visit):
    docname, result = phone_visit
    assert result.page.evaluate(SPLIT_UNITS) == [], (
        f"{docname}: join each with a no-break space (a percentage with none: 24%)")


# A word in a table cell broken between two of its characters ("get_timing_signal_1" / "d",
# 'layout="halves' / '"', "LLaMA-" / "2-7B"): a narrow first column may break a long name, but
# only at a joint (course_site.set_table_word_breaks: after "_", before a capital inside it), and
# a word with a hyphen or a dash stays whole.
WORDS_BROKEN_INSIDE = r"""() => {
    const broken = [];
    for (const cell of document.querySelectorAll('article :is(td, th)')) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const match of node.textContent.matchAll(/(?=(\S{2}))/gu)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + 2);
                const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                                     .map(r => Math.round(r.top)));
                if (tops.size > 1) broken.push(node.textContent.trim());
            }
        }
    }
    return broken;
}"""


# A long name in a table cell broken at a joint: the text on either side of a <wbr> on two lines
BROKEN_AT_JOINTS = r"""() => [...document.querySelectorAll('article :is(td, th) wbr')].flatMap(joint => {
    const [before, after] = [joint.previousSibling, joint.nextSibling].map(node => {
        const range = document.createRange();
        range.selectNodeContents(node);
        return Math.round(range.getBoundingClientRect().bottom);
    });
    return before === after ? [] : [joint.parentElement.textContent];
})"""


# Tables wider than their column (they scroll sideways in the theme's box): (page width, column width)
OVERFLOWING_TABLES = """() => [...document.querySelectorAll('article .pst-scrollable-table-container')]
    .filter(box => box.scrollWidth > box.clientWidth + 1).map(box => [box.scrollWidth, box.clientWidth])"""


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_a_word_in_a_table_breaks_only_at_its_joints_and_only_on_a_phone(browser, site_url, width):
    """And on a desktop every table fits its column (lessons 3 and 4's ran past it, their last
    columns hidden until the reader scrolled sideways)."""
    page = browser.new_page(viewport={"width": width, "height": 844})
    try:
        broken, at_joints, overflowing = [], [], []
        for docname in DOCNAMES:
            page.goto(f"{site_url}/{docname}.html")
            broken += [f"{docname}: {word!r}" for word in page.evaluate(WORDS_BROKEN_INSIDE)]
            at_joints += [f"{docname}: {word!r}" for word in page.evaluate(BROKEN_AT_JOINTS)]
            overflowing += [f"{docname}: {sizes}" for sizes in page.evaluate(OVERFLOWING_TABLES)]
    finally:
        page.close()
    assert broken == [], f"at {width} px, words broken between two characters:\n" + "\n".join(broken)
    if width >= 1280:
        assert overflowing == [], f"at {width} px, tables wider than the column:\n" + "\n".join(overflowing)
    if width >= 600:
        assert at_joints == [], f"at {width} px, names broken at a joint:\n" + "\n".join(at_joints)
    else:
        assert at_joints, f"at {width} px no table breaks a name at a joint: is the check still needed?"


def test_figure_labels_do_not_overlap_on_a_phone(phone_visit):
    docname, result = phone_visit
    problems = figure_label_problems(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


def test_every_step_of_a_control_draws_its_words_apart_on_a_phone(phone_visit):
    """Lesson 6's neighbour explorer puts a word's eight neighbours on a map 266 px wide: at each
    step checked, every word drawn, none on another and none cut off at the figure's edge (its
    nearest neighbours' cosines, written beside their dots, once were for close pairs)."""
    docname, result = phone_visit
    problems = step_word_problems(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems[:10])


def test_no_line_of_the_data_runs_through_a_legend_or_a_note_on_a_phone(phone_visit):
    """As on a desktop (test_pages_in_browser.py): on a phone a legend wraps into more rows and
    a plot is narrower, so a line can reach words it passed by on a wide screen."""
    docname, result = phone_visit
    problems = lines_through_words(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems[:10])


def test_a_slider_dragged_by_mouse_passes_its_steps_in_order_on_a_phone(phone_visit):
    docname, result = phone_visit
    problems = slider_drag_problems(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


SMALLEST_PHONE = (320, 640)
SMALLEST_PHONE_PLOT_AREA = 2  # of each word map's plot areas (word_labels.PLOT_AREAS)


@pytest.mark.parametrize("docname", DOCNAMES)
def test_a_page_fits_a_320_px_screen_and_its_figures_keep_their_labels_inside(browser, site_url, docname):
    """WCAG 1.4.10 asks a page to fit 320 CSS px without scrolling sideways (a desktop zoomed to
    400 %, the smallest phones): the header's eight buttons and long inline code made every
    lesson 31-36 px wider. A figure's labels stay inside it and off each other: subplot and axis
    titles and a slider's value reached past its side (at 360 px too, lesson 1); lesson 6's
    neighbour explorer lost its planned height to its legend's ten rows, which pressed the map's
    axis title onto the neighbours' panel's title, and its word maps' words were placed for
    360 px and wider, so that a few touched. Each word map is drawn at the plot area its words
    were placed for."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=SMALLEST_PHONE)
    page = result.page
    try:
        widths = page.evaluate("""() => ({page: document.documentElement.scrollWidth,
                                          screen: document.documentElement.clientWidth})""")
        assert widths["page"] <= widths["screen"], f"{docname} scrolls sideways at 320 px: {widths}"
        draw_every_figure(page)
        problems = (figure_label_problems(page) + step_word_problems(page) + slider_value_problems(page)
                    + plot_area_problems(page, docname, SMALLEST_PHONE_PLOT_AREA))
        assert problems == [], f"{docname} at 320 px:\n" + "\n".join(problems[:10])
    finally:
        page.context.close()


def finger_on(page):
    """A finger on ``page``: ``finger(kind, x, y)`` sends Chromium a touch ('touchStart',
    'touchMove', 'touchEnd') at (x, y) as a touch screen would, so the browser scrolls and clicks
    as it does for a real finger (Playwright's own touchscreen only taps)."""
    session = page.context.new_cdp_session(page)

    def finger(kind: str, x: float = 0, y: float = 0):
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        session.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    return finger


def touch_control_problems(page) -> list[str]:
    """Work every slider and menu by touch, as a finger would: drag each slider's grip from its
    first step past its last, tap each dropdown open and tap the item after the chosen one, tap
    each buttons menu's next button. Where a slider missed or went back a step, or a tap chose
    nothing."""
    problems = slider_drag_problems(page, finger_on(page))
    figures = page.locator(".course-plot")
    for index in range(figures.count()):
        problems += menu_problems(page, figures.nth(index), index, press="tap")
    return problems


def test_every_control_works_by_touch_on_a_phone(phone_visit):
    """A dropdown long enough to scroll (lesson 6's 270 words) cancels the touch as it starts,
    so a tap on one of its items made no click and chose nothing (plotly.js #6127)."""
    docname, result = phone_visit
    problems = touch_control_problems(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)
    assert result.console_errors == [], f"{docname}: errors after working the controls by touch"


AXIS_RANGES = """gd => JSON.stringify(Object.keys(gd._fullLayout).filter(key => /^[xy]axis\\d*$/.test(key))
    .map(key => gd._fullLayout[key].range))"""
SWIPE = 200  # px, upwards
CAMERA = "gd => JSON.stringify(gd._fullLayout.scene._scene.getCamera())"


def swipe_problems(page) -> list[str]:
    """Draw a finger up across the middle of each 2-D chart's plot area: where the page did not
    scroll with it, or the chart zoomed. Draw one sideways across a 3-D view ("drag to turn"):
    where the view did not turn."""
    finger = finger_on(page)
    figures = page.locator(".course-plot")
    problems = []
    for index in range(figures.count()):
        figure = figures.nth(index)
        figure.scroll_into_view_if_needed()
        if figure.evaluate("gd => gd._fullLayout._has('gl3d')"):
            box = figure.bounding_box()
            x, y = box["x"] + box["width"] / 3, box["y"] + box["height"] / 2
            camera = figure.evaluate(CAMERA)
            finger("touchStart", x, y)
            for step in range(1, 11):
                finger("touchMove", x + box["width"] / 3 * step / 10, y)
                after_frames(page, 1)
            finger("touchEnd")
            if figure.evaluate(CAMERA) == camera:
                problems.append(f"figure {index}: a finger drawn across its 3-D view did not turn it")
            continue
        area = figure.locator(".nsewdrag")
        if not area.count():
            continue
        area.first.scroll_into_view_if_needed()
        box = area.first.bounding_box()
        x = box["x"] + box["width"] / 2
        # in the plot and on the screen, with room to swipe up
        y = max(box["y"] + 10, min(box["y"] + box["height"] / 2, PHONE[1] - 100))
        scrolled, ranges = page.evaluate("scrollY"), figure.evaluate(AXIS_RANGES)
        finger("touchStart", x, y)
        for step in range(1, 21):
            finger("touchMove", x, y - SWIPE * step / 20)
            after_frames(page, 1)  # the browser scrolls with each move as it comes
        finger("touchEnd")
        moved = page.evaluate("scrollY") - scrolled
        if moved < SWIPE / 2:
            problems.append(f"figure {index}: a finger drawn {SWIPE} px up its plot scrolled {moved:g} px")
        if figure.evaluate(AXIS_RANGES) != ranges:
            problems.append(f"figure {index}: a finger drawn across its plot zoomed it")
    return problems


def test_a_finger_drawn_across_a_chart_scrolls_the_page(phone_visit):
    """Plotly's drag zooms into a box: a reader who scrolled with a finger on a chart zoomed it
    instead, and lesson 3's heatmap, taller than a phone's screen, could hardly be passed. A 3-D
    view takes the chart's drag setting unless given its own: it stopped turning when the
    charts stopped zooming."""
    docname, result = phone_visit
    problems = swipe_problems(result.page)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


def test_word_maps_are_drawn_at_the_plot_areas_their_words_were_placed_for_on_a_phone(phone_visit):
    docname, result = phone_visit
    problems = plot_area_problems(result.page, docname, 0)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


FIGURE_PAGES = [name for name in DOCNAMES if "/lessons/" in name]


def heights_changed_by_drawing(docname: str, page, waiting: dict[str, float]) -> dict[str, tuple]:
    """Draw every figure; those whose height then differs from ``waiting`` (id: (before, after))."""
    if docname in FIGURE_PAGES:
        assert waiting, f"{docname}: every figure is drawn at load; the test checks nothing"
    draw_every_figure(page)
    drawn = {name: height for name, _, height in page.evaluate(FIGURE_HEIGHTS)}
    return {name: (height, drawn[name]) for name, height in waiting.items() if abs(drawn[name] - height) > 1}


def test_figures_take_their_phone_height_before_they_are_drawn(phone_load):
    """A figure further down already has the height it gets when drawn: nothing below it moves."""
    docname, result, waiting = phone_load
    grew = heights_changed_by_drawing(docname, result.page, waiting)
    assert grew == {}, f"{docname} at {PHONE[0]} px: waiting height -> drawn height"


@pytest.mark.parametrize("docname", FIGURE_PAGES)
def test_figures_take_their_height_at_360_px_before_they_are_drawn(browser, site_url, docname):
    """As at 390 px: the heights the build worked out are kept per width (figure_heights.py)."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(360, 800))
    try:
        grew = heights_changed_by_drawing(docname, result.page, waiting_figure_heights(result.page))
        assert grew == {}, f"{docname} at 360 px: waiting height -> drawn height"
    finally:
        result.page.context.close()


# The static figures' text: matplotlib's 10-point default at the figures' 110 dpi (plotting.py)
FIGURE_TEXT_PX = 10 * 110 / 72
SMALLEST_TEXT_PX = 10  # what that text may shrink to on the screen
# Each static figure: what it shows, and the narrow drawings its <source> offers ({url: density})
STATIC_FIGURES = """() => [...document.querySelectorAll('.cell_output img[src*="_images/"]')].map(img => {
    const source = img.parentElement.tagName === 'PICTURE' ? img.parentElement.querySelector('source') : null;
    const narrow = source ? Object.fromEntries(source.srcset.split(',').map(candidate => {
        const [url, density] = candidate.trim().split(/\\s+/);
        return [new URL(url, document.baseURI).href, parseFloat(density)];
    })) : null;
    return {alt: img.alt.slice(0, 50), src: img.src, shown: img.currentSrc, width: img.clientWidth,
            natural: img.naturalWidth, narrow: narrow, sourceWidth: source ? Number(source.width) : null};
})"""


def load_static_figures(page) -> list[dict]:
    """Scroll to each static figure (they load lazily) and wait for it; their sources and sizes."""
    images = page.locator('.cell_output img[src*="_images/"]')
    for index in range(images.count()):
        images.nth(index).scroll_into_view_if_needed()
        images.nth(index).evaluate("""img => Promise.race([img.decode(), new Promise((_, reject) =>
            setTimeout(() => reject(new Error(`${img.currentSrc} did not load in 30 s`)), 30000))])""")
    return page.evaluate(STATIC_FIGURES)


def shown_text_px(figure: dict) -> float:
    """The size of a static figure's text on the screen, in CSS pixels (``naturalWidth`` is the
    image's width over its density: the drawing's CSS width)."""
    return FIGURE_TEXT_PX * figure["width"] / figure["natural"]


def phone_figure_problems(figures: list[dict], density: float) -> list[str]:
    """What is wrong with the static figures a phone of this pixel ``density`` shows: a figure
    not in its narrow drawing for that density, one drawn at another size, text under 10 px."""
    problems = []
    for figure in figures:
        offered = figure["narrow"] or {}
        if offered.get(figure["shown"]) != density:
            problems.append(f"{figure['alt']!r}: shows {figure['shown']}, not its narrow drawing "
                            f"for {density:g}x (offered: {offered})")
            continue
        with Image.open(BUILT_SITE / urlparse(figure["shown"]).path.lstrip("/")) as image:
            pixels = image.width
        if pixels != density * figure["sourceWidth"]:
            problems.append(f"{figure['alt']!r}: {pixels} px wide, not {density:g} x {figure['sourceWidth']}")
        text = shown_text_px(figure)
        if text < SMALLEST_TEXT_PX:
            problems.append(f"{figure['alt']!r}: its text is {text:.1f} px on the screen")
    return problems


def test_static_figures_are_drawn_for_a_phone(phone_visit):
    """On a phone every static figure shows its narrow drawing, its text at least 10 px."""
    docname, result = phone_visit
    figures = load_static_figures(result.page)
    assert figures or "/lessons/" not in docname, f"{docname}: no static figure found"
    problems = phone_figure_problems(figures, density=1)
    assert problems == [], f"{docname} at 390 px:\n" + "\n".join(problems)


@pytest.mark.parametrize("docname", FIGURE_PAGES)
def test_a_sharp_phone_loads_the_narrow_drawing_at_twice_the_density(browser, site_url, docname):
    """A phone of three device pixels per CSS pixel (most phones) gets the 2x narrow drawing."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=PHONE, pixel_ratio=3)
    try:
        problems = phone_figure_problems(load_static_figures(result.page), density=2)
        assert problems == [], f"{docname} at 390 px, 3x:\n" + "\n".join(problems)
    finally:
        result.page.context.close()


SHARP_LAPTOP = (1280, 800)


@pytest.mark.parametrize("docname", FIGURE_PAGES)
def test_a_sharp_laptop_screen_loads_each_static_figure_at_twice_its_density(browser, site_url, docname):
    """A laptop screen of two device pixels per CSS pixel shows each static figure drawn at 2x
    (its text as sharp as the page's), the same size as the figure's own drawing."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=SHARP_LAPTOP, pixel_ratio=2)
    try:
        figures = load_static_figures(result.page)
        assert figures, f"{docname}: no static figure found"
        problems = []
        for figure in figures:
            with Image.open(BUILT_SITE / urlparse(figure["shown"]).path.lstrip("/")) as shown, \
                    Image.open(BUILT_SITE / urlparse(figure["src"]).path.lstrip("/")) as own:
                # (a side of a half pixel is rounded once at 1x and not at 2x)
                off = [abs(sharp - 2 * side) for sharp, side in zip(shown.size, own.size, strict=True)]
                if figure["shown"] == figure["src"] or max(off) > 1:
                    problems.append(f"{figure['alt']!r}: shows {figure['shown']} ({shown.size}), "
                                    f"not a 2x drawing of {own.size}")
        assert problems == [], f"{docname} at {SHARP_LAPTOP[0]} px, 2x:\n" + "\n".join(problems)
    finally:
        result.page.context.close()


# The narrowest columns above a phone's: at 600 px (no sidebar) and at 1200 px (both sidebars)
WIDER_SCREENS = [600, 1200]


@pytest.mark.parametrize("docname", FIGURE_PAGES)
@pytest.mark.parametrize("width", WIDER_SCREENS)
def test_static_figures_are_drawn_whole_and_readable_on_a_wider_screen(browser, site_url, docname, width):
    """From 600 px up, a static figure shows its own drawing, the one its alt text describes,
    and its text is at least 10 px where the column is narrowest."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(width, 900))
    try:
        figures = load_static_figures(result.page)
        assert figures, f"{docname}: no static figure found"
        assert [figure["shown"] for figure in figures] == [figure["src"] for figure in figures]
        small = [f"{figure['alt']!r}: its text is {shown_text_px(figure):.1f} px" for figure in figures
                 if shown_text_px(figure) < SMALLEST_TEXT_PX]
        assert small == [], f"{docname} at {width} px:\n" + "\n".join(small)
    finally:
        result.page.context.close()
