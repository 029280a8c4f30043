"""A lesson on paper: printed from the theme's "Print to PDF" button or the browser's menu, as
Chromium prints it (``page.pdf``), every formula and figure drawn and the sheets well filled."""

from __future__ import annotations

import re
import unicodedata

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from embedding_course.plotting import contrast_ratio

from .test_figure_contrast import LOW_CONTRAST_TEXT, MINIMUM_CONTRAST, drawn_in_theme, themed
from .test_pages_in_browser import DOCNAMES, draw_every_figure, visit

LESSONS = [name for name in DOCNAMES if "/lessons/" in name]


def test_every_formula_is_drawn_before_printing(browser, site_url):
    docname = next(name for name in DOCNAMES if "04_" in name)
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    try:
        page = result.page
        assert page.locator("mjx-container[data-course-lazy]").count() > 0
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        assert page.locator("mjx-container[data-course-lazy], mjx-container template").count() == 0
        assert page.evaluate("""() => [...document.querySelectorAll('mjx-container > svg')]
            .every(svg => svg.querySelector('use, rect'))""")
    finally:
        result.page.context.close()


# Stands in for the browser's print dialog: what each figure showed when printing began.
RECORD_PRINT = """window.print = () => {
    window.coursePrinted = [...document.querySelectorAll('.course-plot')]
        .map(gd => gd.dataset.state || 'preview');
};"""


A4_COLUMN = 686  # px: a page's printed column on A4 at Chromium's own margins


def test_the_print_button_prints_every_figure_drawn_and_whole(browser, site_url):
    """The theme's "Print to PDF" button printed at once: a figure the reader had not scrolled
    near was on paper as its preview, a dashed box. The print now waits for every figure. A
    figure drawn for a wide screen (774 px at 1920) was cut at its right edge on paper: each is
    scaled to the printed column."""
    docname = next(name for name in DOCNAMES if "06_" in name)  # four figures, three far down
    result = visit(browser, f"{site_url}/{docname}.html", site_url, viewport=(1920, 1000))
    try:
        page = result.page
        page.add_init_script(RECORD_PRINT)
        page.reload(wait_until="load")
        assert page.evaluate("document.querySelectorAll('.course-plot:not([data-state])').length") >= 2
        page.get_by_role("button", name="Download this page").click()
        page.locator(".btn-download-pdf-button").click()
        page.wait_for_function("() => window.coursePrinted !== undefined", timeout=30_000)
        assert set(page.evaluate("window.coursePrinted")) == {"drawn"}
        page.emulate_media(media="print")
        widths = page.evaluate("""() => [...document.querySelectorAll('.course-plot .main-svg')]
            .map(svg => svg.getBoundingClientRect().width)""")
        assert widths and max(widths) <= A4_COLUMN, f"figures {widths} px wide on paper"
        assert result.console_errors == []
    finally:
        result.page.context.close()


# The first words of the article after its title (what follows the printed contents list), and
# each bordered box that would break where the box inside it, kept whole, does not: it stays
# behind on one sheet, empty, while its content goes to the next.
FIRST_WORDS_AND_SPLIT_BOXES = """() => {
    const article = document.querySelector('article.bd-article');
    const first = [...article.querySelectorAll('section > :not(h1) :is(p:not(.admonition-title), li)')]
        .find(block => block.textContent.trim());
    const split = [];
    for (const box of article.querySelectorAll('*')) {
        const style = getComputedStyle(box);
        const bordered = ['Top', 'Left'].some(side => parseFloat(style[`border${side}Width`]) > 0
                                                  && style[`border${side}Style`] !== 'none');
        if (!bordered || style.breakInside === 'avoid' || !box.checkVisibility()) continue;
        const height = box.getBoundingClientRect().height;
        const whole = [...box.children].find(child => getComputedStyle(child).breakInside === 'avoid'
            && child.getBoundingClientRect().height > height - 8);
        if (whole) split.push(`${box.tagName.toLowerCase()}.${[...box.classList].join('.')}`);
    }
    return {first: first.textContent.trim().split(/\\s+/).slice(0, 6).join(' '),
            split: [...new Set(split)]};
}"""


def _letters(text: str) -> str:
    return "".join(text.split())


def printed_sheets(pdf: bytes) -> list[tuple[str, list]]:
    """Each sheet Chromium printed: its text, and its pictures as PIL images at their own size.
    (PDFium reads lesson 4's 25 sheets in 0.16 s; pypdf took 4 s, 13 s with its figures drawn.)"""
    document = pdfium.PdfDocument(pdf)
    try:
        pictures = [pdfium_c.FPDF_PAGEOBJ_IMAGE]
        return [(sheet.get_textpage().get_text_range(),
                 [picture.get_bitmap().to_pil() for picture in sheet.get_objects(filter=pictures)])
                for sheet in document]
    finally:
        document.close()


@pytest.mark.parametrize("docname", LESSONS)
def test_a_printed_lesson_fills_its_first_sheet_and_keeps_boxes_with_their_content(
        browser, site_url, docname):
    """The theme prints the page's contents list under its title: in one column it filled most
    of the first sheet, the learning goals (kept whole) went to the next, and the first sheet
    was half empty (lesson 4, fifteen sections). And a code cell's bordered box stayed behind
    at the foot of a sheet, empty, while its code, kept whole, went to the next."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    try:
        page = result.page
        page.emulate_media(media="print")
        found = page.evaluate(FIRST_WORDS_AND_SPLIT_BOXES)
        assert found["split"] == [], f"{docname}: boxes that break apart from their content: {found['split']}"
        [(first_sheet, _)] = printed_sheets(page.pdf(format="A4", page_ranges="1"))
        assert _letters(found["first"]) in _letters(first_sheet), (
            f"{docname}: the first sheet ends before the lesson starts ({found['first']!r})")
    finally:
        result.page.context.close()


def test_a_page_printed_in_the_dark_theme_is_printed_in_the_light_one(browser, site_url):
    """A browser prints no page background: a page printed in the dark theme came out as light
    grey text on white paper, its figures' text and axes too. When printing starts (the
    browser's 'beforeprint', which the theme's button and the browser's menu both send), the
    page and its figures turn light at once, and dark again after."""
    docname = next(name for name in LESSONS if "06_" in name)
    with drawn_in_theme(browser, site_url, docname, "dark") as result:
        page = result.page
        page.evaluate(f"window.courseLowContrast = {LOW_CONTRAST_TEXT}")
        printed = page.evaluate("""(minimum) => {
            window.dispatchEvent(new Event('beforeprint'));
            const text = getComputedStyle(document.querySelector('article p')).color;
            return {theme: document.documentElement.dataset.theme, text,
                    figures: window.courseLowContrast(minimum)};
        }""", MINIMUM_CONTRAST)
        assert printed["theme"] == "light", printed
        text = tuple(int(value) / 255 for value in re.findall(r"\d+", printed["text"])[:3])
        assert contrast_ratio(text, "white") >= MINIMUM_CONTRAST, f"text printed faint: {printed}"
        assert printed["figures"]["checked"] > 0
        assert printed["figures"]["bad"] == [], "figure text printed faint:\n" + "\n".join(
            printed["figures"]["bad"][:10])
        page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        themed(page, "dark")


# Each captioned figure's caption ("Fig. 6.4" and its first words) and what must be on its
# sheet: the first words of a chart's top line of text (its title, or a panel's), a 3-D
# view's scene (WebGL, which a browser prints from the canvas) or the picture's pixel size.
CAPTIONED_FIGURES = """() => [...document.querySelectorAll('figure')].flatMap(figure => {
    const number = figure.querySelector('.caption-number');
    if (!number) return [];
    const words = (text, count) => text.trim().split(/\\s+/).slice(0, count).join(' ');
    const caption = words(number.textContent + ' ' + figure.querySelector('.caption-text').textContent, 5);
    const gd = figure.querySelector('.js-plotly-plot');
    const picture = figure.querySelector('img');
    if (!gd) {
        const size = ['width', 'height'].map(side => Number(picture && picture.getAttribute(side)));
        return picture ? [{caption, picture: size}] : [];
    }
    const top = [...gd.querySelectorAll('.main-svg text')]
        .filter(text => text.textContent.trim() && !text.closest('.updatemenu-container'))
        .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
    return [{caption, top: words(top.textContent, 5), scene: !!gd.querySelector('.gl-container canvas')}];
})"""


def _normal(text: str) -> str:
    return _letters(unicodedata.normalize("NFKC", text))


@pytest.mark.parametrize("docname", LESSONS)
def test_a_printed_figure_is_whole_on_one_sheet_with_its_caption(browser, site_url, docname):
    """A reader looks at the charts, jumping past the rest, and prints with the theme's button.
    On paper a figure that reached the foot of a sheet was cut there, its top on one sheet and
    the rest with its caption on the next (seven figures in six lessons); a 3-D view the reader
    had seen printed as an empty box (lesson 6); a picture the reader had jumped past had not
    loaded and printed as an empty space (lesson 6's Fig. 6.1). Each figure is now on one
    sheet with its caption, drawn."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url)
    try:
        page = result.page
        page.add_init_script(RECORD_PRINT)
        page.reload(wait_until="load")
        draw_every_figure(page)
        figures = page.evaluate(CAPTIONED_FIGURES)
        assert figures, f"{docname}: no captioned figure found"
        page.get_by_role("button", name="Download this page").click()
        page.locator(".btn-download-pdf-button").click()
        page.wait_for_function("() => window.coursePrinted !== undefined", timeout=30_000)
        printed = printed_sheets(page.pdf(format="A4"))
        sheets = [_normal(text) for text, _ in printed]
        for figure in figures:
            found = [number for number, sheet in enumerate(sheets) if _normal(figure["caption"]) in sheet]
            assert found, f"{docname}: {figure['caption']!r} not found on paper"
            sheet = found[0]
            pictures = printed[sheet][1]
            where = f"{docname}: {figure['caption']!r} printed on sheet {sheet + 1}"
            if "top" in figure:
                assert _normal(figure["top"]) in sheets[sheet], f"{where} without its top ({figure['top']!r})"
            if figure.get("scene"):
                # getcolors gives None past maxcolors: a drawn scene has more than 16 colours
                assert any(picture.convert("RGB").getcolors(maxcolors=16) is None for picture in pictures), (
                    f"{where} with its 3-D scene empty")
            if "picture" in figure:
                assert tuple(figure["picture"]) in [picture.size for picture in pictures], (
                    f"{where} without its picture")
    finally:
        result.page.context.close()
