"""Exact changes to the theme's script, made in the copy of it that the site serves.

pydata-sphinx-theme's script does two things at load that make a phone lay out the page
before it has to (``tab_stops.py``, ``sidebar_scroll.py``). Each of those modules replaces one
exact piece of the theme's minified code with its own. The theme version is pinned
(requirements.txt): if the script holds neither the piece nor the change, the build fails and
says which module to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

THEME_SCRIPT = Path("scripts") / "pydata-sphinx-theme.js"
SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")  # no longer matches the changed script


class ThemeScriptChanged(RuntimeError):
    """The theme's script is not the one a change was written for."""


def change_theme_script(static: Path, theme_code: str, our_code: str, module: str) -> None:
    """Replace ``theme_code`` with ``our_code`` in the served theme script, once.

    Args:
        static: the built site's ``_static`` folder.
        theme_code: the theme's code, exactly as the pinned version holds it (once).
        our_code: what replaces it; a second build finds it there and changes nothing.
        module: the module that makes the change, named in the error.
    Raises:
        ThemeScriptChanged: the script holds neither ``theme_code`` (once) nor ``our_code``.
    """
    script = static / THEME_SCRIPT
    text = script.read_text(encoding="utf-8")
    if our_code in text:  # done by an earlier build
        return
    if text.count(theme_code) != 1:
        raise ThemeScriptChanged(f"{script} does not hold the code {module} changes "
                                 f"({theme_code[:60]}…); has pydata-sphinx-theme changed?")
    script.write_text(SOURCE_MAP.sub("\n", text.replace(theme_code, our_code)), encoding="utf-8")
