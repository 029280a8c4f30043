"""The theme's Font Awesome icons as inline SVG, so pages need no 1.4 MB icon script.

The theme writes icons as ``<i class="fa-solid fa-sun"></i>`` (or an empty ``<span>``) and
loads ``fontawesome.js``, which swaps each one for an ``<svg>`` when the page runs. This module
does the same swap once, at build time, with the paths taken from that script, and removes
the script.

The theme's style sheet draws a few more icons itself, as characters of the Font Awesome
font: the one in each admonition's title, for instance. A font that starts loading makes the
browser style and lay out the whole page parsed so far once it has arrived (on a phone, a
fifth of a second for a long lesson). So the admonition icons are drawn as SVG masks too
(``admonition_icon_css``), and no page loads an icon font.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path
from urllib.parse import quote

# Where each icon pack of fontawesome.js ends: ``d("fab",p)`` registers the icons before it.
PACK_END = re.compile(r'd\("(fab|far|fas)",\w+\)')
ICON = re.compile(r'(?<=[{,])"?([a-z0-9-]+)"?:\[(\d+),(\d+),\[([^\]]*)\],"([0-9a-f]*)","([^"]*)"\]')
STYLE_CLASSES = {"fa-brands": "fab", "fab": "fab", "fa-regular": "far", "far": "far",
                 "fa-solid": "fas", "fas": "fas"}
ICON_TAG = re.compile(r'<(i|span) class="([^"]*\bfa-[^"]*)"([^>]*)>\s*</\1>')
SCRIPT_TAGS = re.compile(r'\s*<(?:script defer src|link rel="preload" as="script" href)='
                         r'"[^"]*fontawesome\.js[^"]*"(?:></script>| ?/?>)')


def load_icons(fontawesome_js: Path) -> dict[tuple[str, str | int], tuple[int, int, str]]:
    """Every icon of fontawesome.js: (style, name, alias or character) -> (width, height, SVG path).

    The character is the icon's code point in the Font Awesome font, as an int.
    """
    text = fontawesome_js.read_text()
    icons: dict[tuple[str, str], tuple[int, int, str]] = {}
    start = 0
    for pack in PACK_END.finditer(text):
        style = pack.group(1)
        for match in ICON.finditer(text, start, pack.start()):
            name, width, height, aliases, character, path = match.groups()
            shape = (int(width), int(height), path)
            icons.setdefault((style, name), shape)
            if character:
                icons.setdefault((style, int(character, 16)), shape)
            for alias in re.findall(r'"([a-z0-9-]+)"', aliases):
                icons.setdefault((style, alias), shape)
        start = pack.end()
    if not icons:
        raise ValueError(f"no icons found in {fontawesome_js}: has the theme changed its icon script?")
    return icons


def svg_for(classes: str, rest: str, icons: dict) -> str | None:
    """The inline SVG for one ``<i>`` icon tag, or None when it names no known icon."""
    names = classes.split()
    style = next((STYLE_CLASSES[name] for name in names if name in STYLE_CLASSES), "fas")
    for name in names:
        shape = icons.get((style, name.removeprefix("fa-"))) if name.startswith("fa-") else None
        if shape is not None:
            width, height, path = shape
            kept = " ".join(name for name in names if name not in STYLE_CLASSES)
            hidden = "" if "aria-hidden" in rest else ' aria-hidden="true"'
            return (f'<svg class="svg-inline--fa {html.escape(kept)}"{rest}{hidden} focusable="false" '
                    f'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}">'
                    f'<path fill="currentColor" d="{path}"></path></svg>')
    return None


def inline_icons(page: str, icons: dict) -> str:
    """A page with its icon tags drawn as inline SVG and without the icon script.

    Raises ValueError when a page names an icon that the icon script does not hold.
    """
    def replace(match: re.Match) -> str:
        svg = svg_for(match.group(2), match.group(3), icons)
        if svg is None:
            raise ValueError(f"unknown Font Awesome icon: {match.group(0)}")
        return svg

    return SCRIPT_TAGS.sub("", ICON_TAG.sub(replace, page))


# The theme's icon characters (``--pst-icon-lightbulb:"\uf0eb"``), and which one each kind of
# admonition shows (``--pst-icon-admonition-tip:var(--pst-icon-lightbulb)``).
ICON_CHARACTER = re.compile(r'--pst-icon-([a-z0-9-]+):"([\ue000-\uf8ff])"')
ADMONITION_ICON = re.compile(r'--pst-icon-admonition-([a-z0-9-]+):var\(--pst-icon-([a-z0-9-]+)\)')
ADMONITION_CSS_MARK = "/* course: admonition icons as SVG masks (theme_icons.py) */"
TITLE_ICON = ".admonition{kind}>.admonition-title:after,div.admonition{kind}>.admonition-title:after"


def mask_url(shape: tuple[int, int, str]) -> str:
    """An icon as a CSS ``url()`` of an SVG, for ``mask-image``."""
    width, height, path = shape
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}'><path d='{path}'/></svg>"
    return 'url("data:image/svg+xml,' + quote(svg, safe=" /=:,.-'") + '")'


def admonition_icon_css(css: str, icons: dict) -> str:
    """Rules that draw each admonition's title icon as an SVG mask in its colour, not as a
    character of the icon font.

    Args:
        css: the theme's style sheet.
        icons: the output of ``load_icons``.
    Returns:
        CSS to put after the theme's: for the default icon and for each kind of admonition
        the theme gives an icon of its own.
    Raises:
        ValueError: the theme names no admonition icon, or one the icon script does not hold.
    """
    characters = {name: ord(char) for name, char in ICON_CHARACTER.findall(css)}
    kinds = dict(ADMONITION_ICON.findall(css))
    if "default" not in kinds:
        raise ValueError("the theme's style sheet names no admonition icons: has the theme changed?")

    def url(kind: str) -> str:
        shape = icons.get(("fas", characters.get(kinds[kind], -1)))
        if shape is None:
            raise ValueError(f"the {kind} admonition's icon ({kinds[kind]}) is not in the icon script")
        return mask_url(shape)

    mask = "var(--course-admonition-icon) center/contain no-repeat"
    rules = [ADMONITION_CSS_MARK,
             TITLE_ICON.format(kind="") + "{content:\"\";font:inherit;background-color:currentColor;"
             f"-webkit-mask:{mask};mask:{mask};--course-admonition-icon:{url('default')}}}"]
    rules += [TITLE_ICON.format(kind=f".{kind}") + f"{{content:\"\";--course-admonition-icon:{url(kind)}}}"
              for kind in sorted(kinds) if kind != "default"]
    return "\n".join(rules) + "\n"


def draw_admonition_icons(static: Path, icons: dict) -> None:
    """Put ``admonition_icon_css`` at the end of the theme's style sheet (once)."""
    css_path = static / "styles" / "pydata-sphinx-theme.css"
    css = css_path.read_text(encoding="utf-8")
    if ADMONITION_CSS_MARK not in css:
        css_path.write_text(css.rstrip("\n") + "\n" + admonition_icon_css(css, icons), encoding="utf-8")


FONT_URL = re.compile(r'url\(([^)]*/(fa-(?:solid-900|brands-400|regular-400)))\.woff2\) format\("woff2"\)')


def used_icon_characters(css: str) -> set[int]:
    """The icon characters the theme's style sheet writes itself (admonitions, links, carets).

    It names them as literal private-use characters; the ``.fa-NAME:before`` rules, for icon
    tags that are inline SVG now, use escapes and are left out.
    """
    return {ord(char) for char in css if 0xE000 <= ord(char) <= 0xF8FF}


def subset_icon_fonts(static: Path) -> None:
    """Cut the theme's icon fonts down to the characters its style sheet uses (a few KB
    instead of 150 KB) and point the style sheet at them. Does nothing when already done."""
    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # its INFO lines would fill the build log
    css_path = static / "styles" / "pydata-sphinx-theme.css"
    css = css_path.read_text(encoding="utf-8")
    if not FONT_URL.search(css):
        return
    characters = used_icon_characters(css)
    fonts = static / "vendor" / "fontawesome" / "webfonts"
    for name in sorted(set(match.group(2) for match in FONT_URL.finditer(css))):
        options = subset.Options()
        options.flavor = "woff"  # zlib: no brotli needed
        options.layout_features = []
        font = subset.load_font(str(fonts / f"{name}.ttf"), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=characters)
        subsetter.subset(font)
        subset.save_font(font, str(fonts / f"{name}.subset.woff"), options)
    css_path.write_text(FONT_URL.sub(r'url(\1.subset.woff) format("woff")', css), encoding="utf-8")
