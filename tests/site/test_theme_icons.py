"""The theme's icons are drawn as inline SVG at build time, from the theme's own icon script."""

from __future__ import annotations

import sys
from pathlib import Path

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
