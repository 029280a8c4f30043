"""The theme's icons are drawn as inline SVG at build time, from the theme's own icon script."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pydata_sphinx_theme
import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import theme_icons

SCRIPT = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
          / "scripts" / "fontawesome.js")


@pytest.fixture(scope="module")
def icons():
    return theme_icons.load_icons(SCRIPT)


def test_icons_are_read_per_style_with_their_aliases(icons):
    assert ("fab", "github") in icons
    assert icons[("fas", "pencil-alt")] == icons[("fas", "pencil")]  # an old name still works
    assert icons[("fas", "sun")] != icons[("far", "sun")]  # solid and outline differ


def test_icon_tags_become_svg_and_the_script_goes(icons):
    page = ('<link rel="preload" as="script" href="_static/scripts/fontawesome.js?digest=1" />\n'
            '<script defer src="_static/scripts/fontawesome.js?digest=1"></script>\n'
            '<i class="theme-switch fa-solid fa-sun fa-lg" data-mode="light"></i>')
    inlined = theme_icons.inline_icons(page, icons)
    assert "fontawesome.js" not in inlined and "<i " not in inlined
    assert '<svg class="svg-inline--fa theme-switch fa-sun fa-lg" data-mode="light"' in inlined
    assert f'd="{icons[("fas", "sun")][2]}"' in inlined


def test_an_unknown_icon_is_an_error(icons):
    with pytest.raises(ValueError, match="unknown Font Awesome icon"):
        theme_icons.inline_icons('<i class="fa-solid fa-no-such-icon"></i>', icons)


def test_empty_icon_spans_become_svg_too(icons):
    inlined = theme_icons.inline_icons('<label><span class="fa-solid fa-bars"></span></label>', icons)
    assert inlined.startswith('<label><svg class="svg-inline--fa fa-bars" aria-hidden="true"')
    assert f'd="{icons[("fas", "bars")][2]}"' in inlined and "<span" not in inlined
    # A span with text is not an icon.
    text = '<span class="fa-solid">x</span>'
    assert theme_icons.inline_icons(text, icons) == text


THEME_CSS = SCRIPT.parent.parent / "styles" / "pydata-sphinx-theme.css"


def test_admonition_icons_become_svg_masks_of_the_same_icons(icons):
    css = theme_icons.admonition_icon_css(THEME_CSS.read_text(encoding="utf-8"), icons)
    rules = dict(re.findall(r"\.admonition(\.[a-z-]+)?>\.admonition-title:after,[^{]*\{([^}]*)\}", css))
    assert {"", ".tip", ".note", ".warning", ".important"} <= set(rules)
    assert all('content:""' in rule and "--course-admonition-icon:url(" in rule for rule in rules.values())
    assert "mask:var(--course-admonition-icon)" in rules[""] and "background-color:currentColor" in rules[""]
    # The tip shows the theme's lightbulb, the note its circled i: the icon font's characters.
    for kind, name in ((".tip", "lightbulb"), (".note", "circle-info"), ("", "bell")):
        path = icons[("fas", name)][2]
        assert path.split(" ")[0] in unquote(rules[kind]), kind


def test_admonition_icons_that_cannot_be_drawn_are_an_error(icons):
    with pytest.raises(ValueError, match="no admonition icons"):
        theme_icons.admonition_icon_css("html{--pst-icon-bell:\"\uf0f3\"}", icons)
    css = ('html{--pst-icon-bell:"\uf0f3";--pst-icon-nothing:"\ue000";'
           "--pst-icon-admonition-default:var(--pst-icon-bell);--pst-icon-admonition-tip:var(--pst-icon-nothing)}")
    with pytest.raises(ValueError, match="tip admonition's icon"):
        theme_icons.admonition_icon_css(css, icons)


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_no_page_loads_an_icon_font_and_the_tip_icon_is_drawn(browser, site_url, color_scheme):
    """Every page without a font request; lesson 4's tip title shows its icon in its colour."""
    from .test_pages_in_browser import DOCNAMES, visit

    fonts = []
    for docname in DOCNAMES:
        result = visit(browser, f"{site_url}/{docname}.html", site_url, color_scheme=color_scheme,
                       viewport=(390, 844))
        page = result.page
        fonts += page.evaluate("""() => performance.getEntriesByType('resource').map(e => e.name)
            .filter(name => /\\.(woff2?|ttf|otf|eot)(\\?|$)/.test(name))""")
        if "04_" in docname:
            title = page.locator("div.admonition.tip > .admonition-title").first
            icon = title.evaluate("""title => { const after = getComputedStyle(title, '::after');
                return [after.maskImage || after.webkitMaskImage, after.backgroundColor, after.color,
                        after.width, after.height, getComputedStyle(title).backgroundColor]; }""")
            mask, fill, colour, width, height, background = icon
            assert mask.startswith('url("data:image/svg+xml') and fill == colour and colour != background
            assert (width, height) == ("16px", "16px")
            # Pixels: the icon's square at the start of the title is not all background.
            title.scroll_into_view_if_needed()
            box = title.bounding_box()
            shot = page.screenshot(clip={"x": box["x"], "y": box["y"], "width": 40, "height": box["height"]})
            from io import BytesIO

            from PIL import Image

            image = Image.open(BytesIO(shot)).convert("RGB")
            colours = image.getcolors(maxcolors=10_000)
            assert len(colours) > 8, f"no icon drawn in the tip's title ({color_scheme})"
        result.page.context.close()
    assert fonts == []
