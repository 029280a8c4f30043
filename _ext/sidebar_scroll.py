"""The theme scrolls its sidebar to the current page's link at the next frame, not at once.

pydata-sphinx-theme scrolls the sidebar so that the current page's link shows, as soon as its
script runs. To know where the link is, it asks for its position, and the browser must first
lay out every part of the page it has parsed but not yet laid out: on a phone, often the last
third of a long lesson, inside the script's own task. At the next frame that layout is done
anyway, so this module has the theme wait for it (``requestAnimationFrame``), in the copy of
the theme's script the site serves. The theme version is pinned (requirements.txt): if its
script no longer holds the expected code, the build fails and says so.
"""

from __future__ import annotations

from pathlib import Path

from tab_stops import SOURCE_MAP, THEME_SCRIPT, ThemeScriptChanged

SCROLL_START = 'e(function(){if(!document.querySelector(".bd-docs-nav"))return;'
SCROLL_END = 'sessionStorage.setItem("sidebar-scroll-top",e.scrollTop)})})'
NEXT_FRAME_START = SCROLL_START.replace("e(function(){", "e(function(){requestAnimationFrame(function(){", 1)
NEXT_FRAME_END = SCROLL_END + "})"


def scroll_sidebar_at_next_frame(static: Path) -> None:
    """Wrap the theme's sidebar scroll in ``requestAnimationFrame``, once; check it was done.

    Args:
        static: the built site's ``_static`` folder.
    Raises:
        ThemeScriptChanged: the theme's script has neither the expected code nor the change.
    """
    script = static / THEME_SCRIPT
    text = script.read_text(encoding="utf-8")
    if NEXT_FRAME_START in text:  # done by an earlier build (it ends with SCROLL_START's text)
        return
    start = text.find(SCROLL_START)
    end = text.find(SCROLL_END, start)
    if text.count(SCROLL_START) == 1 and end > start:
        text = (text[:start] + NEXT_FRAME_START + text[start + len(SCROLL_START):end] + NEXT_FRAME_END
                + text[end + len(SCROLL_END):])
        script.write_text(SOURCE_MAP.sub("\n", text), encoding="utf-8")
    else:
        raise ThemeScriptChanged(f"{script} does not scroll its sidebar as expected ({SCROLL_START}…); "
                                 "has pydata-sphinx-theme changed? See sidebar_scroll.py")
