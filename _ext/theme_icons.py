"""The theme's Font Awesome icons as inline SVG, so pages need no 1.4 MB icon script.

The theme writes icons as ``<i class="fa-solid fa-sun"></i>`` and loads ``fontawesome.js``,
which swaps each one for an ``<svg>`` when the page runs. This module does the same swap
once, at build time, with the paths taken from that script, and removes the script.
"""

from __future__ import annotations

import html
import logging
import re
from pathlib import Path

# Where each icon pack of fontawesome.js ends: ``d("fab",p)`` registers the icons before it.
PACK_END = re.compile(r'd\("(fab|far|fas)",\w+\)')
ICON = re.compile(r'(?<=[{,])"?([a-z0-9-]+)"?:\[(\d+),(\d+),\[([^\]]*)\],"[^"]*","([^"]*)"\]')
STYLE_CLASSES = {"fa-brands": "fab", "fab": "fab", "fa-regular": "far", "far": "far",
                 "fa-solid": "fas", "fas": "fas"}
ICON_TAG = re.compile(r'<i class="([^"]*\bfa-[^"]*)"([^>]*)>\s*</i>')
SCRIPT_TAGS = re.compile(r'\s*<(?:script defer src|link rel="preload" as="script" href)='
                         r'"[^"]*fontawesome\.js[^"]*"(?:></script>| ?/?>)')


def load_icons(fontawesome_js: Path) -> dict[tuple[str, str], tuple[int, int, str]]:
    """Every icon of fontawesome.js: (style, name or alias) -> (width, height, SVG path)."""
    text = fontawesome_js.read_text()
    icons: dict[tuple[str, str], tuple[int, int, str]] = {}
    start = 0
    for pack in PACK_END.finditer(text):
        style = pack.group(1)
        for match in ICON.finditer(text, start, pack.start()):
            name, width, height, aliases, path = match.groups()
            shape = (int(width), int(height), path)
            icons.setdefault((style, name), shape)
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
        svg = svg_for(match.group(1), match.group(2), icons)
        if svg is None:
            raise ValueError(f"unknown Font Awesome icon: {match.group(0)}")
        return svg

    return SCRIPT_TAGS.sub("", ICON_TAG.sub(replace, page))


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
