"""Every Plotly figure's text reads well on what is behind it, in light and dark mode.

For each drawn figure the test measures, in Chromium, the colour of its title, tick labels,
axis titles, legend and slider labels and the words beside its points (the SVG text's computed
``fill``; a heatmap's cell values stand on their cells and are left out) against the colour
actually behind the figure (the nearest backgrounds, composited until one is opaque), and
asks for the WCAG AA contrast of normal text, 4.5:1. It checks the theme the page opened
with, then switches the theme while the page is open and checks again.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from .conftest import toc_docnames
from .test_pages_in_browser import draw_every_figure, visit

LESSONS = [docname for docname in toc_docnames() if "/lessons/" in docname]  # the pages with figures
MINIMUM_CONTRAST = 4.5  # WCAG 2.1 AA, normal text
OTHER = {"light": "dark", "dark": "light"}

# Relative luminance and contrast as WCAG 2.1 defines them, computed in the page.
LOW_CONTRAST_TEXT = """(minimum) => {
  const TEXT = '.gtitle, .xtick text, .ytick text, .g-xtitle text, .g-ytitle text, '
             + '.legendtext, .slider-group text, .cbaxis text, .annotation-text, .textpoint text';
  // a heatmap's cell values (a text-only trace) stand on their cells, coloured for them
  const onCells = (text) => { const trace = text.closest('.trace');
    return trace && trace.__data__ && trace.__data__[0].trace.mode === 'text'; };
  const parse = (css) => {
    const v = (css.match(/[\\d.]+/g) || []).map(Number);
    return {r: v[0] || 0, g: v[1] || 0, b: v[2] || 0, a: v.length > 3 ? v[3] : (css ? 1 : 0)};
  };
  const over = (top, bottom) => {  // top composited over an opaque bottom
    const mix = (c) => top[c] * top.a + bottom[c] * (1 - top.a);
    return {r: mix('r'), g: mix('g'), b: mix('b'), a: 1};
  };
  const background = (el) => {
    const layers = [];
    for (let node = el; node; node = node.parentElement) {
      const colour = parse(getComputedStyle(node).backgroundColor);
      if (colour.a > 0) { layers.push(colour); }
      if (colour.a >= 1) { break; }
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), {r: 255, g: 255, b: 255, a: 1});
  };
  const luminance = (c) => {
    const linear = [c.r, c.g, c.b].map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  };
  const found = [], bad = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd) => {
    gd.querySelectorAll(TEXT).forEach((text) => {
      if (!text.textContent.trim() || !text.getClientRects().length || onCells(text)) { return; }
      const style = getComputedStyle(text);
      if (style.visibility === 'hidden' || style.display === 'none') { return; }
      const behind = background(gd);
      const fill = over(parse(style.fill), behind);
      const [light, dark] = [luminance(fill), luminance(behind)].sort((a, b) => b - a);
      const ratio = (light + 0.05) / (dark + 0.05);
      found.push(ratio);
      if (ratio < minimum) {
        bad.push(`${gd.id} "${text.textContent.trim().slice(0, 40)}": ${style.fill} on `
                 + `rgb(${Math.round(behind.r)}, ${Math.round(behind.g)}, ${Math.round(behind.b)}) `
                 + `= ${ratio.toFixed(2)}:1`);
      }
    });
  });
  return {checked: found.length, bad: bad};
}"""


def themed(page, theme: str) -> None:
    """Wait until every drawn figure has been given the colours of ``theme``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("""(theme) => [...document.querySelectorAll('.js-plotly-plot')]
            .every(gd => gd.dataset.theme === theme)""", arg=theme, timeout=30_000)
    except PlaywrightTimeout:
        pytest.fail(f"the figures were not given the {theme} theme's colours within 30 s")


def check_contrast(page, theme: str, docname: str) -> int:
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    themed(page, theme)
    result = page.evaluate(LOW_CONTRAST_TEXT, MINIMUM_CONTRAST)
    assert result["checked"] > 0, f"{docname}: no figure text found to check in {theme} mode"
    assert result["bad"] == [], (f"{docname}, {theme} mode: figure text below "
                                 f"{MINIMUM_CONTRAST}:1 contrast:\n" + "\n".join(result["bad"]))
    return result["checked"]


@pytest.mark.parametrize("scheme", ["dark", "light"])
@pytest.mark.parametrize("docname", LESSONS)
def test_figure_text_contrast_in_both_themes(browser, site_url, built_site, docname, scheme):
    result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme=scheme)
    try:
        page = result.page
        assert page.locator(".course-plot").count(), f"{docname} has no interactive figure"
        draw_every_figure(page)
        check_contrast(page, scheme, docname)
        # The reader switches the theme while the page is open.
        page.evaluate("(theme) => { document.documentElement.dataset.theme = theme; }", OTHER[scheme])
        check_contrast(page, OTHER[scheme], docname)
    finally:
        result.page.context.close()


# The share of a 3-D view's pixels that are bright and opaque: the walls behind its points.
BRIGHT_SCENE = """gd => {
    const canvas = gd.querySelector('.gl-container canvas');
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const context = copy.getContext('2d');
    context.drawImage(canvas, 0, 0);
    const pixels = context.getImageData(0, 0, copy.width, copy.height).data;
    let bright = 0;
    for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3] > 200 && pixels[i] + pixels[i + 1] + pixels[i + 2] > 3 * 200) bright += 1;
    }
    return bright / (pixels.length / 4);
}"""


@contextmanager
def drawn_in_theme(browser, site_url, docname: str, scheme: str):
    """The visit (``visit``) of ``docname`` opened in ``scheme``, every figure drawn in its colours."""
    result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme=scheme)
    try:
        draw_every_figure(result.page)
        themed(result.page, scheme)
        yield result
    finally:
        result.page.context.close()


def test_a_3d_view_in_the_dark_theme_shows_the_page_behind_it(browser, site_url):
    """Lesson 6's 3-D view drew its three walls white (the figure's template) in the dark theme
    too: a white box on a dark page. They are see-through now, in both themes."""
    docname = next(name for name in LESSONS if "06_" in name)
    with drawn_in_theme(browser, site_url, docname, "dark") as result:
        view = result.page.locator(".course-plot:has(.gl-container canvas)")
        assert view.count() == 1, f"{docname}: {view.count()} 3-D views, expected one"
        share = view.evaluate(BRIGHT_SCENE)
        assert share < 0.01, f"{share:.0%} of the 3-D view is bright in the dark theme"


# The points and legend keys of a figure outlined in a near-white colour (stroke drawn)
WHITE_RINGS = """gd => [...gd.querySelectorAll('.scatterlayer .point, .legendpoints path')].filter(el => {
    const style = getComputedStyle(el);
    const v = (style.stroke.match(/[\\d.]+/g) || []).map(Number);
    return parseFloat(style.strokeWidth) > 0 && v.length >= 3 && Math.min(v[0], v[1], v[2]) > 200
        && (v.length < 4 || v[3] > 0.5);
}).length"""


def test_in_the_dark_theme_no_point_is_ringed_in_white(browser, site_url):
    """Lesson 6's word maps outline each point in white, a gap between overlapping points on a
    white page; on the dark page each point and each legend key wore a white ring. The outline
    takes the page's background in the dark theme, and white again in the light one."""
    docname = next(name for name in LESSONS if "06_" in name)
    with drawn_in_theme(browser, site_url, docname, "dark") as result:
        figures = result.page.locator(".course-plot")
        rings = [figures.nth(index).evaluate(WHITE_RINGS) for index in range(figures.count())]
        assert sum(rings) == 0, f"{docname}, dark: points ringed in white, per figure: {rings}"
        result.page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
        themed(result.page, "light")
        rings = [figures.nth(index).evaluate(WHITE_RINGS) for index in range(figures.count())]
        assert sum(rings) > 0, f"{docname}, light: the points lost their white outline"
