"""Nothing in a page's head keeps a phone waiting: one stylesheet, no blocking script.

The theme and its extensions put a dozen stylesheets and a dozen scripts in each page's head,
and a browser draws nothing until it has fetched every one of them (and run the scripts): on
a phone's network, most of the first two seconds of every page. After the build:

* the head's stylesheets become one, ``_static/styles/course-site.css``: the same rules in the
  same order (``@import`` resolved, ``url()`` rewritten for the new place), one request,
  less the theme's rules that no page can use (``tools/css-js/purge_css.js``, the npm package
  ``purgecss``: a rule stays when every class, id and attribute it names occurs in a page or
  in a script the site serves). The course's own stylesheets stay whole;
* every script in the head is deferred: it runs in the same order, once the page is parsed.
  ``documentation_options.js``, which inline scripts in the head extend, is written inline;
* the search scripts and the search index load on the search page only: the theme's search
  box sends the reader there (search-as-you-type is off);
* the theme preloads its two scripts at high priority, so on a slow network they share the
  bandwidth with the stylesheet that the first paint waits for. Both are deferred scripts
  at the end of the page, so the preloads go;
* the theme's Bootstrap script (menus, tooltips, back-to-top button) loads at the reader's
  first move: its tag becomes ``course-bootstrap-on-demand.js`` (``_ext/static``), which
  names it in ``data-bootstrap``;
* the theme's first script in the head writes ``data-theme="auto"`` on a first visit, which
  matches neither the light nor the dark rules; the theme's deferred script then sets the
  real theme, and the browser styles the whole page a second time (on a phone, a quarter of
  a second of blocked main thread, and a light flash for a reader in dark mode). The head
  script that replaces it settles "auto" at once, from the reader's colour-scheme preference.

A page Sphinx did not write again (a no-change build) is already done and keeps its head;
the stylesheet is rebuilt every time from the list of its sources, so an edit to a stylesheet
shows on the next build.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from node_tools import run_node_script

REPO_ROOT = Path(__file__).resolve().parent.parent
CSS_JS = REPO_ROOT / "tools" / "css-js"
PURGE_CSS = CSS_JS / "purge_css.js"
# The course's own stylesheets: kept whole.
OWN_STYLESHEETS = {path.name for path in (Path(__file__).parent / "static").glob("*.css")}
# Scripts whose words do not keep a theme rule: plotly.js and require.js style their own
# elements, and no page loads the theme's icon script (theme_icons.py draws the icons).
NOT_CONTENT = ("_static/vendor/", "_static/scripts/fontawesome.js")

BUNDLE = "_static/styles/course-site.css"
SOURCES = "_static/styles/course-site.sources.json"
OPTIONS_SCRIPT = "_static/documentation_options.js"
SEARCH_SCRIPTS = ("_static/searchtools.js", "_static/language_data.js", "searchindex.js")
SEARCH_PAGE = "search.html"
# On the inlined documentation_options.js: this page's head is done.
MARKER = "data-course-first-paint"

# pydata-sphinx-theme 0.17.1's script (layout.html) and the one that replaces it.
THEME_MODE_SCRIPT = re.compile(
    r'<script data-cfasync="false">\s*'
    r'document\.documentElement\.dataset\.mode = localStorage\.getItem\("mode"\) \|\| "(\w*)";\s*'
    r'document\.documentElement\.dataset\.theme = localStorage\.getItem\("theme"\) \|\| "\1";\s*'
    r'</script>')
SETTLED_THEME_SCRIPT = """<script data-cfasync="false">
    (function (root) {{
      var mode = localStorage.getItem("mode") || "{default}";
      var dark = window.matchMedia("(prefers-color-scheme: dark)").matches;
      root.dataset.mode = mode;
      root.dataset.theme = mode === "dark" || mode === "light" ? mode : (dark ? "dark" : "light");
    }})(document.documentElement);
  </script>"""
SCRIPT_TAG = re.compile(r"<script\b([^>]*)>\s*</script>")
BOOTSTRAP_TAG = re.compile(
    r'<script defer src="((?:\.\./)*)_static/scripts/bootstrap\.js\?digest=([0-9a-f]+)"></script>')
BOOTSTRAP_LOADER = "_static/course-bootstrap-on-demand.js"
SCRIPT_PRELOAD = re.compile(r'[ \t]*<link rel="preload" as="script" href="([^"]+)" />\n?')
STYLESHEET_TAG = re.compile(r'[ \t]*<link\b(?=[^>]*\brel="stylesheet")[^>]*\bhref="([^"]+)"[^>]*>\n?')
BUNDLE_TAG = re.compile(r'<link rel="stylesheet" href="[^"]*course-site\.css\?v=[0-9a-f]+" />')
CSS_IMPORT = re.compile(r'@import\s+(?:url\(\s*)?["\']([^"\')]+)["\']\s*\)?\s*;')
CSS_URL = re.compile(r'url\(\s*(["\']?)([^"\')]+)\1\s*\)')
CSS_CHARSET = re.compile(r'@charset\s+"[^"]*"\s*;')
SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")


class FirstPaintError(RuntimeError):
    """A page's head is not what this module knows how to rewrite."""


def _head_end(text: str, page: str) -> int:
    end = text.find("</head>")
    if end < 0:
        raise FirstPaintError(f"{page}: no </head>")
    return end


def is_done(text: str) -> bool:
    """Whether a page's head was rewritten by an earlier build."""
    return MARKER in text[:max(text.find("</head>"), 0)]


def defer_head_scripts(text: str, page: str, options_js: str) -> str:
    """Rewrite one page's head so that no script blocks its first paint.

    Args:
        text: the page's HTML.
        page: the page's path in the site, e.g. ``book/intro.html``.
        options_js: the content of ``_static/documentation_options.js``.
    Returns:
        The page's HTML with the head's scripts deferred.
    Raises:
        FirstPaintError: the page has no head, or uses DOCUMENTATION_OPTIONS without loading it.
    """
    end = _head_end(text, page)
    inlined = []

    def rewrite(match: re.Match) -> str:
        attributes = match.group(1)
        source = re.search(r'\bsrc="([^"?#]+)', attributes)
        if source is None:
            return match.group(0)  # an inline script runs where it is
        source = source.group(1)
        if source.endswith(OPTIONS_SCRIPT):
            inlined.append(source)
            return f"<script {MARKER}>{options_js.strip()}</script>"
        if page != SEARCH_PAGE and source.endswith(SEARCH_SCRIPTS):
            return ""
        if re.search(r"\b(defer|async)\b", attributes) or 'type="module"' in attributes:
            return match.group(0)
        return f"<script defer{attributes}></script>"

    head = SCRIPT_TAG.sub(rewrite, text[:end])
    if not inlined:
        raise FirstPaintError(f"{page}: the head does not load {OPTIONS_SCRIPT}")
    return head + text[end:]


def settle_theme(text: str, page: str) -> str:
    """Replace the theme's head script with one that sets the final ``data-theme`` at once.

    Raises:
        FirstPaintError: the head has no such script (the theme changed: look again).
    """
    end = _head_end(text, page)
    head, found = THEME_MODE_SCRIPT.subn(
        lambda match: SETTLED_THEME_SCRIPT.format(default=match.group(1) or "auto"), text[:end], count=1)
    if not found:
        raise FirstPaintError(f"{page}: the head has not the theme's light/dark script this module replaces")
    return head + text[end:]


def drop_script_preloads(text: str, page: str) -> str:
    """Drop the head's preloads of scripts that the page loads deferred anyway."""
    end = _head_end(text, page)
    deferred = {source for attributes in re.findall(r"<script\b([^>]*)>", text)
                if re.search(r"\bdefer\b", attributes)
                for source in re.findall(r'\bsrc="([^"]+)"', attributes)}
    head = SCRIPT_PRELOAD.sub(lambda match: "" if match.group(1) in deferred else match.group(0), text[:end])
    return head + text[end:]


def bootstrap_on_demand(text: str, page: str) -> str:
    """Load the theme's Bootstrap script at the reader's first move instead of with the page.

    Raises:
        FirstPaintError: the page does not load the theme's Bootstrap script as expected.
    """
    text, found = BOOTSTRAP_TAG.subn(
        lambda match: (f'<script defer src="{match.group(1)}{BOOTSTRAP_LOADER}" '
                       f'data-bootstrap="{match.group(1)}_static/scripts/bootstrap.js?digest={match.group(2)}">'
                       "</script>"), text, count=1)
    if not found:
        raise FirstPaintError(f"{page}: the theme's bootstrap.js tag is not where this module expects it")
    return text


def head_stylesheets(text: str, page: Path, outdir: Path) -> list[str]:
    """The stylesheets a page's head links to, as paths in the site, in order."""
    head = text[:_head_end(text, str(page))]
    return [os.path.relpath(os.path.normpath(page.parent / href.split("?")[0].split("#")[0]), outdir)
            for href in STYLESHEET_TAG.findall(head)]


def stylesheet_order(lists: list[list[str]]) -> list[str]:
    """One order for the stylesheets of many pages that keeps each page's own order.

    Raises:
        FirstPaintError: two pages link the same two stylesheets in opposite orders.
    """
    order: list[str] = []
    for sheets in lists:
        previous = -1
        for sheet in sheets:
            if sheet not in order:
                order.insert(previous + 1, sheet)
            if order.index(sheet) < previous:
                raise FirstPaintError(f"pages link {sheet} in different orders; cannot merge them: {lists}")
            previous = order.index(sheet)
    return order


def _stylesheet_text(sheet: str, outdir: Path, seen: set[str]) -> str:
    """One stylesheet, its @imports in place, its url()s relative to the bundle's folder."""
    if sheet in seen:
        return ""
    seen.add(sheet)
    folder = os.path.dirname(sheet)
    text = (outdir / sheet).read_text()
    text = CSS_IMPORT.sub(lambda match: _stylesheet_text(
        os.path.normpath(os.path.join(folder, match.group(1))), outdir, seen), text)

    def rebase(match: re.Match) -> str:
        quote, target = match.groups()
        if re.match(r"(?:[a-z]+:|/|#)", target, re.I):
            return match.group(0)
        moved = os.path.relpath(os.path.normpath(os.path.join(folder, target)), os.path.dirname(BUNDLE))
        return f"url({quote}{moved}{quote})"

    return SOURCE_MAP.sub("", CSS_CHARSET.sub("", CSS_URL.sub(rebase, text)))


def purge_sheets(sheets: list[str], pages: list[str], scripts: list[Path]) -> list[str]:
    """Drop the rules of each stylesheet that no page and no script can use.

    Args:
        sheets: CSS texts.
        pages: the HTML of every page of the site.
        scripts: every script file the site serves whose class names count.
    Returns:
        The stylesheets, in the same order, without those rules.
    Raises:
        FirstPaintError: node or purgecss is missing, or purgecss fails.
    """
    content = [{"raw": text, "extension": "html"} for text in pages] + [str(path) for path in scripts]
    return run_node_script(PURGE_CSS, {"sheets": sheets, "content": content}, FirstPaintError,
                           package="purgecss")


def write_bundle(outdir: Path, sheets: list[str], pages: list[str]) -> str:
    """Write the stylesheets, in order and purged, as one file; return its version (a hash).

    Args:
        outdir: the built site's root folder.
        sheets: the stylesheets' paths in the site, in order.
        pages: the HTML of every page of the site.
    """
    seen: set[str] = set()
    texts = [_stylesheet_text(sheet, outdir, seen) for sheet in sheets]
    theme = [index for index, sheet in enumerate(sheets) if Path(sheet).name not in OWN_STYLESHEETS]
    scripts = sorted(path for path in (outdir / "_static").rglob("*.js")
                     if not str(path.relative_to(outdir)).startswith(NOT_CONTENT))
    for index, purged in zip(theme, purge_sheets([texts[index] for index in theme], pages, scripts),
                             strict=True):
        texts[index] = purged
    parts = [f"/* {sheet} */\n{text}\n" for sheet, text in zip(sheets, texts, strict=True)]
    css = '@charset "UTF-8";\n' + "".join(parts)
    (outdir / BUNDLE).write_text(css)
    (outdir / SOURCES).write_text(json.dumps(sheets, indent=1) + "\n")
    return hashlib.sha256(css.encode()).hexdigest()[:12]


def link_bundle(text: str, page: Path, outdir: Path, version: str) -> str:
    """Put one link to the bundle where the head's first stylesheet was, and drop the others."""
    end = _head_end(text, str(page))
    href = os.path.relpath(outdir / BUNDLE, page.parent)
    tag = f'<link rel="stylesheet" href="{href}?v={version}" />'
    head = text[:end]
    if BUNDLE_TAG.search(head):
        return BUNDLE_TAG.sub(tag, head, count=1) + text[end:]
    first = STYLESHEET_TAG.search(head)
    if first is None:
        raise FirstPaintError(f"{page}: no stylesheet in the head")
    head = head[:first.start()] + "  " + tag + "\n" + STYLESHEET_TAG.sub("", head[first.start():])
    return head + text[end:]


def finish_heads(outdir: Path, pages: dict[Path, str]) -> dict[Path, str]:
    """Rewrite the heads of the site's pages (those Sphinx wrote in this build).

    Args:
        outdir: the built site's root folder.
        pages: each HTML page of the site (with a head) and its text.
    Returns:
        The pages with their new text.
    """
    options_js = (outdir / OPTIONS_SCRIPT).read_text()
    fresh = {page: text for page, text in pages.items() if not is_done(text)}
    sources = outdir / SOURCES
    known = [sheet for sheet in (json.loads(sources.read_text()) if sources.exists() else [])
             if (outdir / sheet).exists()]
    order = stylesheet_order([known] + [head_stylesheets(text, page, outdir) for page, text in fresh.items()])
    version = write_bundle(outdir, order, list(pages.values()))
    finished = {}
    for page, text in pages.items():
        if page in fresh:
            text = defer_head_scripts(text, str(page.relative_to(outdir)), options_js)
            text = settle_theme(text, str(page.relative_to(outdir)))
            text = drop_script_preloads(text, str(page.relative_to(outdir)))
            text = bootstrap_on_demand(text, str(page.relative_to(outdir)))
        finished[page] = link_bundle(text, page, outdir, version)
    return finished
