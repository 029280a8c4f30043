"""The theme scrolls its sidebar to the current page's link at the next frame, not at once.

pydata-sphinx-theme scrolls the sidebar so that the current page's link shows, as soon as its
script runs. To know where the link is, it asks for its position, and the browser must first
lay out every part of the page it has parsed but not yet laid out: on a phone, often the last
third of a long lesson, inside the script's own task. At the next frame that layout is done
anyway, so this module has the theme wait for it (``requestAnimationFrame``), in the copy of
the theme's script the site serves (``theme_script.py``).
"""

from __future__ import annotations

from pathlib import Path

from theme_script import change_theme_script

# The theme's code, as its pinned version has it: scroll to the stored position, or else to
# the last active link if it is below the middle of the window; store the position on leaving.
THEME_SCROLL = (
    'e(function(){if(!document.querySelector(".bd-docs-nav"))return;'
    'var e=document.querySelector("div.bd-sidebar");'
    'let t=parseInt(sessionStorage.getItem("sidebar-scroll-top"),10);'
    'if(isNaN(t)){var n=document.querySelector(".bd-docs-nav").querySelectorAll(".active");'
    'if(n.length>0){var o=n[n.length-1],r=o.getBoundingClientRect().y-e.getBoundingClientRect().y;'
    'if(o.getBoundingClientRect().y>.5*window.innerHeight){let t=.25;e.scrollTop=r-e.clientHeight*t,'
    'console.log("[PST]: Scrolled sidebar using last active link...")}}}'
    'else e.scrollTop=t,console.log("[PST]: Scrolled sidebar using stored browser position...");'
    'window.addEventListener("beforeunload",()=>{sessionStorage.setItem("sidebar-scroll-top",e.scrollTop)})})'
)
START = "e(function(){"
NEXT_FRAME_SCROLL = START + "requestAnimationFrame(function(){" + THEME_SCROLL[len(START):] + "})"


def scroll_sidebar_at_next_frame(static: Path) -> None:
    """Wrap the theme's sidebar scroll in ``requestAnimationFrame`` (``static``: the site's ``_static``)."""
    change_theme_script(static, THEME_SCROLL, NEXT_FRAME_SCROLL, "sidebar_scroll.py")
