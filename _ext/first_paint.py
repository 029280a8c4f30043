"""Nothing in a page's head keeps a phone waiting: one stylesheet, no blocking script.

The theme and its extensions put a dozen stylesheets and a dozen scripts in each page's head,
and a browser draws nothing until it has fetched every one of them (and run the scripts): on
a phone's network, most of the first two seconds of every page. The course's theme
(``course_theme/layout.html``) gives each page a head that links one stylesheet, settles the
light/dark theme at once, loads the search scripts on the search page only and the theme's
scripts at the reader's first move. This module supplies what that head needs:

* the one stylesheet, ``_static/styles/course-site.css``: every sheet the pages would link, in
  the same order, the theme's own included (``tools/css-js/bundle_css.js``: imports inlined,
  ``url()`` rebased). The pages link it with a version made from the sheets that go into it,
  and it is written after the last page. (An edit to a sheet under ``_ext`` makes
  ``tools/build_book.py`` write every page again, and so the bundle.)
* the theme's rules that no page can use are left out of the bundle (the npm package
  ``purgecss``: a rule stays when every class, id and attribute it names occurs in a page or
  in a script the site serves). The course's own stylesheets stay whole;
* the theme's icons (``<i class="fa-solid fa-sun">``) and the admonitions' title icons are
  drawn by the theme's own rules with Font Awesome's font, cut down to the characters those
  rules use and written into the bundle (no 1.4 MB icon script, no font request);
* every script in the head is deferred: it runs in the same order, once the page is parsed.
  ``documentation_options.js``, which inline scripts in the head extend, is written inline.
  The scripts that only answer the reader (``FIRST_MOVE``: Sphinx's, the copy buttons', the
  book theme's) leave the head: ``course-first-move.js`` loads them at the reader's first move,
  with the theme's own two (``course_theme/layout.html``).
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from pathlib import Path

from myst_nb.sphinx_ext import add_global_html_resources
from node_tools import run_node_script

REPO_ROOT = Path(__file__).resolve().parent.parent
BUNDLE_CSS = REPO_ROOT / "tools" / "css-js" / "bundle_css.js"
# The course's own stylesheets: kept whole.
OWN_STYLESHEETS = {path.name for path in (Path(__file__).parent / "static").glob("*.css")}
# Scripts whose words do not keep a theme rule: plotly.js styles its own
# elements, and no page loads the theme's icon script.
NOT_CONTENT = ("_static/vendor/", "_static/scripts/fontawesome.js")

BUNDLE = "_static/styles/course-site.css"
# pydata-sphinx-theme's stylesheets, which its layout links itself (webpack-macros.html)
# before Sphinx's list; the course's layout links the bundle instead.
THEME_SHEETS = ("_static/styles/theme.css", "_static/styles/pydata-sphinx-theme.css")
OPTIONS_SCRIPT = "_static/documentation_options.js"
# Scripts that nothing on a page needs before the reader moves, in the order they run; the
# search page runs its search with Sphinx's two at once.
FIRST_MOVE = ("_static/doctools.js", "_static/sphinx_highlight.js", "_static/clipboard.min.js",
              "_static/copybutton.js", "_static/scripts/sphinx-book-theme.js")
SEARCH_NEEDS = ("_static/doctools.js", "_static/sphinx_highlight.js")
ICON_FONTS = Path("_static") / "vendor" / "fontawesome" / "webfonts"


class FirstPaintError(RuntimeError):
    """A page's head cannot be given what this module makes."""


def checksum(data: bytes) -> str:
    """A short version of a file's content, as Sphinx writes for its assets (``?v=``)."""
    return f"{zlib.crc32(data):08x}"


def make_bundle(outdir: Path, sheets: list[str], content: list[str] | None = None,
                fonts: Callable[[list[int]], dict[str, str]] | None = None) -> tuple[str, list[int]]:
    """The site's one stylesheet, and the icon characters its rules write.

    Args:
        outdir: the built site's root folder.
        sheets: the stylesheets' paths in the site, in the order the pages link them.
        content: the files (pages, scripts) whose words keep a theme rule; None: keep all rules.
        fonts: given the icons the bundle's rules write, the fonts to draw them with: icon font
            name (``fa-solid-900``) -> the ``url()`` to draw it from. None: the theme's own.
    Returns:
        The bundle's CSS and the private-use code points (icons) its ``content`` rules write.
    """
    request = {"sheets": [{"path": str(outdir / sheet), "purge": Path(sheet).name not in OWN_STYLESHEETS}
                          for sheet in sheets],
               "bundle": str(outdir / BUNDLE), "content": content, "askFonts": fonts is not None}
    answer = run_node_script(BUNDLE_CSS, request, FirstPaintError, package="postcss-import",
                             reply=None if fonts is None else lambda asked: fonts(asked["icons"]))
    return answer["css"], answer["icons"]


def icon_fonts(outdir: Path, characters: list[int]) -> dict[str, str]:
    """The theme's icon fonts cut down to ``characters``, each as a ``data:`` URL (a few KB)."""
    import io
    import logging

    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.WARNING)  # its INFO lines would fill the build log
    fonts = {}
    for font_file in sorted((outdir / ICON_FONTS).glob("fa-*.ttf")):
        options = subset.Options()
        options.flavor = "woff"  # zlib: no brotli needed
        options.layout_features = []
        font = subset.load_font(str(font_file), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=characters)
        subsetter.subset(font)
        buffer = io.BytesIO()
        subset.save_font(font, buffer, options)
        font.close()
        fonts[font_file.stem] = "data:font/woff;base64," + base64.b64encode(buffer.getvalue()).decode()
    return fonts


class Bundle:
    """The one stylesheet of a build: its version known before the first page is written, its
    file made after the last (it keeps only the rules the pages use)."""

    def __init__(self, outdir: Path, sheets: list[str]):
        self.outdir, self.sheets = outdir, sheets
        missing = [sheet for sheet in sheets if not (outdir / sheet).exists()]
        if missing:
            raise FirstPaintError(f"stylesheets not in the site when its first page is written: {missing}")
        self.version = checksum(b"".join(sheet.encode() + (outdir / sheet).read_bytes() for sheet in sheets))

    def check(self, pagename: str, sheets: list[str]) -> None:
        """Every page links the same stylesheets, so that one bundle serves them all."""
        if sheets != self.sheets:
            raise FirstPaintError(
                f"{pagename} links {sheets}, other pages {self.sheets}: add a page's stylesheet for "
                "every page (app.add_css_file in setup), so that the one bundle holds it")

    def write(self) -> None:
        """Write the bundle: without the theme's rules that no page or script uses, and with
        the icons drawn by a subset of the icon font."""
        pages = sorted(str(page) for page in self.outdir.rglob("*.html") if "_static" not in page.parts)
        scripts = sorted(str(path) for path in (self.outdir / "_static").rglob("*.js")
                         if not str(path.relative_to(self.outdir)).startswith(NOT_CONTENT))
        css, _ = make_bundle(self.outdir, self.sheets, pages + scripts,
                             fonts=lambda icons: icon_fonts(self.outdir, icons))
        (self.outdir / BUNDLE).write_text(css, encoding="utf-8")


_bundles: dict[int, Bundle] = {}  # by builder: one per build


def on_page_context(app, pagename, templatename, context, doctree) -> None:
    """Give the page the bundle, and defer the head's scripts (after every other handler)."""
    outdir = Path(app.outdir)
    sheets = [*THEME_SHEETS, *(str(css.filename) for css in context.get("css_files", []))]
    bundle = _bundles.get(id(app.builder))
    if bundle is None:
        # Sphinx has copied the static files; MyST-NB copies its sheet when the build ends, which
        # is too late for the version: its own step, run now (it runs again at the end).
        add_global_html_resources(app, None)
        bundle = _bundles[id(app.builder)] = Bundle(outdir, sheets)
    bundle.check(pagename, sheets)
    context["course_stylesheet"] = BUNDLE
    context["course_stylesheet_version"] = bundle.version
    options = (outdir / OPTIONS_SCRIPT).read_text(encoding="utf-8").strip()
    scripts = context.get("script_files", [])
    later = [name for name in FIRST_MOVE if not (pagename == "search" and name in SEARCH_NEEDS)]
    context["course_first_move_scripts"] = [
        f"{context['pathto'](name, 1)}?v={checksum((outdir / name).read_bytes())}"
        for name in later if any(str(script.filename) == name for script in scripts)]
    scripts[:] = [script for script in scripts if str(script.filename) not in later]
    for index, script in enumerate(scripts):
        attributes = dict(script.attributes)
        if str(script.filename) == OPTIONS_SCRIPT:
            scripts[index] = type(script)("", priority=script.priority, body=options)
        elif script.filename and not {"defer", "async", "type"} & attributes.keys():
            attributes["defer"] = "defer"
            scripts[index] = type(script)(script.filename, priority=script.priority, **attributes)


def on_build_finished(app, exception) -> None:
    bundle = _bundles.pop(id(app.builder), None)
    if exception is None and bundle is not None:  # no page written: the bundle is as it was
        bundle.write()
