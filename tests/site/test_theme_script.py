"""The theme's script is changed once, exactly where expected, or the build fails
(``_ext/theme_script.py``, used by ``tab_stops.py`` and ``sidebar_scroll.py``)."""

from __future__ import annotations

import sys

import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import sidebar_scroll
import tab_stops
import theme_script

SCRIPT = "a();THEIRS;b()\n//# sourceMappingURL=pydata-sphinx-theme.js.map\n"


def test_the_code_is_replaced_once_and_the_source_map_dropped(tmp_path):
    script = tmp_path / theme_script.THEME_SCRIPT
    script.parent.mkdir()
    script.write_text(SCRIPT)
    theme_script.change_theme_script(tmp_path, "THEIRS", "OURS(THEIRS)", "here.py")
    assert script.read_text() == "a();OURS(THEIRS);b()\n"  # the theme's map no longer fits
    theme_script.change_theme_script(tmp_path, "THEIRS", "OURS(THEIRS)", "here.py")  # a second build
    assert script.read_text() == "a();OURS(THEIRS);b()\n"


@pytest.mark.parametrize("text", ["a();b()\n", "THEIRS;THEIRS\n"], ids=["missing", "twice"])
def test_code_that_is_not_there_once_fails_the_build(tmp_path, text):
    script = tmp_path / theme_script.THEME_SCRIPT
    script.parent.mkdir()
    script.write_text(text)
    with pytest.raises(theme_script.ThemeScriptChanged, match=r"here\.py changes \(THEIRS…\); has pydata"):
        theme_script.change_theme_script(tmp_path, "THEIRS", "OURS", "here.py")
    assert script.read_text() == text


@pytest.mark.parametrize("change", [tab_stops.hand_over_tab_stops,
                                    sidebar_scroll.scroll_sidebar_at_next_frame])
def test_each_change_refuses_a_theme_script_that_changed(tmp_path, change):
    script = tmp_path / theme_script.THEME_SCRIPT
    script.parent.mkdir()
    script.write_text("function I(){}\n")
    with pytest.raises(theme_script.ThemeScriptChanged, match="pydata-sphinx-theme"):
        change(tmp_path)
