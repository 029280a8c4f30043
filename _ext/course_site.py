"""Sphinx extension for the course site: self-hosted JavaScript and build information.

* Plotly figures are drawn by ``static/course-figures.js`` when they come near the screen;
  it loads the smallest plotly.js bundle that draws the page's traces (npm partial bundles
  of the version the installed Python plotly writes for; the full bundle for anything
  else), all served from ``_static/vendor/`` (no CDN). Pages without figures load neither.
* Math is drawn at build time as inline SVG with its MathML, by the HTML math renderer
  that ``math_svg.py`` registers; no page loads MathJax.
* Code listings have a span where the colour changes, not one per token (``code_listings.py``).
* Every page gets a meta description: its first paragraph.
* Images load lazily, with their size given (``page_images.py``).
* A word with a hyphen or a dash in a table cell ("LLaMA-2-7B") stays on one line; on a phone a
  long name there breaks at its joints ("get_timing_|signal_1d"), not between any two letters.
* The site draws no ipywidgets (the live explorers run in a notebook's kernel only): a page
  that displays a widget while it is built fails the build, rather than load a widget manager.
* The package's figures and exercises are drawn by the site's MIME renderers
  (``course_outputs.py``).
* The pages are laid out by the course's theme (``course_theme/``, sphinx-book-theme's
  layout with its own head): one stylesheet, every script deferred, icons from a font cut
  down to the icons in use (``first_paint.py``). Its ``components/`` replace two of the
  theme's buttons with ones named by what they show, and MyST-NB's hidden code cells are
  written with a summary named by its text (WCAG 2.5.3, Label in Name).
* The footer says which device and which PyTorch version built the pages, which licence covers
  what, and which version and commit of the course it is (``release_info.py``).
* Page execution is watched: the notebook client's own warnings fail the strict build. (The
  pages are executed by ``tools/build_book.py``.)
"""

from __future__ import annotations

import html
import itertools
import json
import logging
import os
import re
import shutil
from pathlib import Path

import course_outputs
import first_paint
import page_images
import release_info
from docutils import nodes
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from sphinx.util import logging as sphinx_logging

# Set before any notebook kernel starts: kernels inherit this process's environment.
os.environ.setdefault("PYTHONHASHSEED", "0")

REPO_ROOT = Path(__file__).resolve().parent.parent
VENDOR_SOURCE = REPO_ROOT / ".vendor"
FIGURE_LOADER = "course-figures.js"
FIGURE_FIT = "course-figure-fit.js"  # the layout on a phone, used by the loader
# Smallest first: the trace types each plotly.js bundle draws (from the bundles' READMEs).
PLOTLY_BUNDLES = {
    "plotly-basic.min.js": {"bar", "pie", "scatter"},
    "plotly-cartesian.min.js": {"bar", "box", "contour", "heatmap", "histogram", "histogram2d",
                                "histogram2dcontour", "image", "pie", "scatter", "scatterternary",
                                "violin"},
    "plotly-gl3d.min.js": {"cone", "isosurface", "mesh3d", "scatter", "scatter3d", "streamtube",
                           "surface", "volume"},
}
FULL_BUNDLE = "plotly.min.js"
HYPHENATED = re.compile(r"\S*\w[-\u2013]\w\S*")  # a hyphen or a dash inside: "LLaMA-2-7B", "10,001–50,000"
# Where a long name (LONG_NAME) may break: after "_", after "=" before a value of three
# characters or more, before a capital inside it ("get_timing_|signal_1d",
# "Sinusoidal|Positional|Embedding", 'layout=|"halves"', "freq_|shift=0"; "d_model" and "ALiBi"
# stay whole)
LONG_NAME = re.compile(r"\S{12,}")
JOINT = re.compile(r"(?<=\w_)(?=\S)|(?<=\w=)(?=\S{3})|(?<=[a-z])(?=[A-Z][a-z])")
DESCRIPTION_LENGTH = 155

# What the site serves from _static/vendor/, and where it comes from in .vendor/ (make vendor).
VENDORED = {name: f"{name.removesuffix('.min.js')}/{name}" for name in PLOTLY_BUNDLES}
# Files that Sphinx copies with the theme's static folder and no page loads: the icon script
# with its source map and licence, and a template of the theme's (its macros, unrendered).
UNUSED_THEME_FILES = [*(f"scripts/fontawesome.js{suffix}" for suffix in ("", ".map", ".LICENSE.txt")),
                      "webpack-macros.html"]
# The widgets' saved state, which MyST-NB writes into a page whose cells displayed a widget.
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _plotly_js_path() -> Path:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.exists():
        raise FileNotFoundError(f"plotly.min.js not found at {path}; reinstall plotly")
    return path


def _check_plotly_versions() -> None:
    """The partial bundles must be the plotly.js version the Python package writes figures for."""
    from plotly.offline import get_plotlyjs_version

    wanted = get_plotlyjs_version()
    for name in PLOTLY_BUNDLES:
        package = VENDOR_SOURCE / VENDORED[name]
        version = json.loads((package.parent / "package.json").read_text())["version"]
        if version != wanted:
            raise RuntimeError(f"{package.parent.name} is plotly.js {version}, but the installed Python "
                               f"plotly writes for {wanted}: pin {wanted} in js-requirements.txt")


def plotly_bundle(trace_types: set[str]) -> str:
    """The smallest plotly.js bundle that draws every one of ``trace_types``."""
    for name, covered in PLOTLY_BUNDLES.items():
        if trace_types <= covered:
            return name
    return FULL_BUNDLE


def page_trace_types(doctree) -> set[str]:
    """The trace types of every Plotly figure of a page."""
    return {trace.get("type", "scatter") for figure in course_outputs.page_figures(doctree)
            for trace in figure["spec"].get("data", [])}


def page_description(doctree) -> str:
    """A page's first real paragraph, as plain text of at most DESCRIPTION_LENGTH characters."""
    for paragraph in doctree.findall(nodes.paragraph):
        text = " ".join(paragraph.astext().split())
        if len(text) >= 40:
            if len(text) > DESCRIPTION_LENGTH:
                text = text[:DESCRIPTION_LENGTH - 1].rsplit(" ", 1)[0] + "…"
            return text
    return ""


def _check_vendor() -> None:
    missing = [str(VENDOR_SOURCE / source) for source in VENDORED.values()
               if not (VENDOR_SOURCE / source).exists()]
    if missing:
        raise FileNotFoundError(
            "self-hosted JavaScript is missing: " + ", ".join(missing) + ". Run `make vendor`."
        )


def _build_footer(outdir: Path) -> str:
    """Where the pages ran. ``tools/build_book.py`` writes it beside the site as it runs them
    (``build-info.json``); without it, this process asks (importing torch takes seconds)."""
    written = outdir.parent / "build-info.json"
    if written.exists():
        info = json.loads(written.read_text())
    else:
        from embedding_course.device import build_info

        info = build_info()
    return (f'<p class="course-build-info">Pages executed on <b>{info["device"]}</b> '
            f'({info["device_name"]}) with PyTorch {info["torch"]} and Python {info["python"]}.</p>')


def _licence_and_release_footer(repository: str, branch: str) -> str:
    """Which licence covers what, and which release and commit built the site."""
    files = f"{repository}/blob/{branch}"
    sha = release_info.commit()
    built_from = (f'<a href="{repository}/commit/{sha}"><code>{sha}</code></a>' if repository and
                  sha != "unknown" and not sha.endswith("+changes") else f"<code>{html.escape(sha)}</code>")
    return (f'<p class="course-build-info">Code: <a href="{files}/LICENSE">MIT</a>. Text, figures and '
            f'the notebooks\' prose: <a href="{files}/LICENSE-CONTENT">CC BY 4.0</a>. Data: GloVe 6B '
            f'(PDDL), all-MiniLM-L6-v2 (Apache-2.0).</p>'
            f'<p class="course-build-info">Version {html.escape(release_info.version())}, '
            f'built from commit {built_from}.</p>')


def on_config_inited(app, config) -> None:
    _check_vendor()
    _check_plotly_versions()
    static = str(Path(__file__).parent / "static")
    if static not in config.html_static_path:
        config.html_static_path.append(static)
    # Files served from the site's root: the service worker, whose scope is the folder it is in.
    site_root = str(Path(__file__).parent / "site_root")
    if site_root not in config.html_extra_path:
        config.html_extra_path.append(site_root)
    theme_options = dict(config.html_theme_options or {})
    repository = (theme_options.get("repository_url") or "").rstrip("/")
    branch = theme_options.get("repository_branch") or "main"
    footer = _build_footer(Path(app.outdir)) + _licence_and_release_footer(repository, branch)
    theme_options["extra_footer"] = (theme_options.get("extra_footer") or "") + footer
    # sphinx-book-theme keeps search in the sidebar and the article's header; its theme.conf
    # leaves pydata's navbar empty, but pydata-sphinx-theme 0.17 fills navbar_persistent with
    # a second search field unless html_theme_options names it, so every page wider than 960 px
    # began with a 64 px band holding only that field (as sites on sphinx-book-theme 1.4 report,
    # e.g. pynucastro/pynucastro#1427). Named, and empty: the theme writes no navbar.
    theme_options.setdefault("navbar_persistent", [])
    config.html_theme_options = theme_options
    # The theme's components that the course writes its own way (course_theme/components/): the
    # pydata theme finds its components through templates_path, where these come first.
    components = str(Path(__file__).parent / "course_theme" / "components")
    if components not in config.templates_path:
        config.templates_path.insert(0, components)
    # Follow the reader's light/dark preference (an empty mode logs a console error).
    config.html_context = {**(config.html_context or {}), "default_mode": "auto"}
    config.nb_ipywidgets_js = {}  # no widget manager from MyST-NB's CDN (on_page_context_late)


def _is_thebe(asset) -> bool:
    text = f"{getattr(asset, 'filename', '') or ''} {getattr(asset, 'attributes', {}).get('body', '')}"
    return "thebe" in text.lower()


def on_page_context(app, pagename, templatename, context, doctree) -> None:
    # Live code (thebe) is switched off: its scripts would load from a CDN, and it adds its
    # config script twice per page (a console error). Binder and Colab links stay.
    for key in ("script_files", "css_files"):
        if key in context:
            context[key][:] = [asset for asset in context[key] if not _is_thebe(asset)]
    if course_outputs.page_figures(doctree):
        bundle = plotly_bundle(page_trace_types(doctree))
        app.add_js_file(FIGURE_FIT, priority=200, loading_method="defer")
        app.add_js_file(FIGURE_LOADER, priority=200, loading_method="defer",
                        **{"data-plotly": f"vendor/{bundle}"})
    if course_outputs.page_has_exercises(doctree):
        # The exercises' answer boxes (course_outputs.self_check_html); their style is in
        # the one stylesheet of every page (setup).
        app.add_js_file("self_check.js", loading_method="defer")


def on_page_context_late(app, pagename, templatename, context, doctree) -> None:
    """After Sphinx's and MyST-NB's own handlers: a description; no widget state."""
    if any(getattr(script, "attributes", {}).get("type") == WIDGET_STATE
           for script in context.get("script_files", [])):
        sphinx_logging.getLogger(__name__).warning(
            "a cell displayed an ipywidget while the page was built; the site draws no widgets (it "
            "serves no widget manager): tag the cell skip-execution, as the live explorers are",
            location=pagename, type="course", subtype="widgets")
    description = page_description(doctree) if doctree is not None else ""
    if description:
        context["metatags"] = (context.get("metatags", "")
                               + f'\n<meta name="description" content="{html.escape(description)}" />')


def on_build_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    # Last of the build-finished handlers: the theme rewrites pygments.css and MyST-NB copies
    # its stylesheet in their own; the one stylesheet is made from the final files and pages.
    first_paint.on_build_finished(app, exception)
    # The plotly.js builds that the pages load, and no other (the full build alone is 4.8 MB);
    # one that an earlier build left and no page loads now goes.
    vendor_out = Path(app.outdir) / "_static" / "vendor"
    vendor_out.mkdir(parents=True, exist_ok=True)
    doctrees = (app.env.get_doctree(docname) for docname in app.env.found_docs)
    loaded = {plotly_bundle(page_trace_types(doctree)) for doctree in doctrees
              if course_outputs.page_figures(doctree)}
    sources = {FULL_BUNDLE: _plotly_js_path(),
               **{name: VENDOR_SOURCE / source for name, source in VENDORED.items()}}
    for name, source in sources.items():
        if name in loaded:
            shutil.copy2(source, vendor_out / name)
        else:
            (vendor_out / name).unlink(missing_ok=True)
    # Sphinx copies the theme's static folder whole, with its icon script and icon fonts (4 MB
    # with the script's source map). No page loads them: the stylesheet draws the icons with a
    # subset of the font, made above from the copied one (first_paint.py).
    static_out = Path(app.outdir) / "_static"
    for unused in UNUSED_THEME_FILES:
        (static_out / unused).unlink(missing_ok=True)
    shutil.rmtree(Path(app.outdir) / first_paint.ICON_FONTS.parent, ignore_errors=True)


def lesson_number(docname: str) -> int | None:
    """The lesson a page is, from its file name (``book/lessons/04_sinusoidal_positions``: 4)."""
    prefix = docname.rsplit("/", 1)[-1].split("_", 1)[0]
    return int(prefix) if prefix.isdigit() else None


def number_figures_per_lesson(app, env) -> list[str]:
    """Figures (and tables, listings) numbered per lesson, as in the notebook twins: "Fig. 4.3".

    Sphinx numbers them across the whole book (lesson 4 would start at Fig. 13). It has just
    assigned its numbers (``env-get-updated``, TocTreeCollector); each page's are renumbered
    from 1, behind the lesson's number.
    """
    for docname, kinds in env.toc_fignumbers.items():
        lesson = lesson_number(docname)
        for kind, numbers in kinds.items():
            ordered = sorted(numbers, key=numbers.get)
            kinds[kind] = {name: ((lesson, index) if lesson is not None else (index,))
                           for index, name in enumerate(ordered, start=1)}
    return []


def set_table_word_breaks(app, doctree, docname) -> None:
    """Where a word in a table cell may break when a phone's column is narrow. A word with a
    hyphen or a dash inside ("LLaMA-2-7B", "0.9–1.0") stays on one line (class
    ``course-unbroken``), where the browser would break it after each. A long name, in code
    or not, breaks at its ``JOINT``s (``<wbr>``), where it would break between any two letters
    (``overflow-wrap`` in ``course.css``). The cell still wraps at its spaces."""
    for entry in list(doctree.findall(nodes.entry)):
        for text in list(entry.findall(nodes.Text)):
            pieces, start, words = [], 0, text.astext()
            for match in HYPHENATED.finditer("" if isinstance(text.parent, nodes.literal) else words):
                pieces += [nodes.Text(words[start:match.start()]),
                           nodes.inline(match[0], match[0], classes=["course-unbroken"])]
                start = match.end()
            pieces.append(nodes.Text(words[start:]))
            pieces = [node for piece in pieces for node in _with_joints(piece)]
            if len(pieces) > 1:
                text.parent.replace(text, [piece for piece in pieces if piece.astext()])


def _with_joints(piece: nodes.Node) -> list[nodes.Node]:
    """A text piece, with a ``<wbr>`` at each ``JOINT`` of its long names (a ``course-unbroken``
    piece as it is)."""
    if not isinstance(piece, nodes.Text):
        return [piece]
    words = piece.astext()
    cuts = [match.start() + joint.start() for match in LONG_NAME.finditer(words)
            for joint in JOINT.finditer(match[0]) if joint.start()]
    ends = [0, *cuts, len(words)]
    pieces = [nodes.Text(words[start:end]) for start, end in itertools.pairwise(ends)]
    return [node for index, text in enumerate(pieces)
            for node in ([nodes.raw("", "<wbr>", format="html")] if index else []) + [text]]


class NotebookClientWarnings(logging.Handler):
    """Pass the notebook client's own warnings (a lost output, an unhandled message) on as
    Sphinx warnings, so that the strict build fails on them. Left alone, the client logs to
    the 'traitlets' logger, which discards them."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.sphinx_logger = sphinx_logging.getLogger(__name__)

    def emit(self, record: logging.LogRecord) -> None:
        self.sphinx_logger.warning("while executing a page, the notebook client reported: %s",
                                   record.getMessage(), type="course", subtype="execution")


def _watch_notebook_client() -> None:
    client_logger = logging.getLogger("traitlets")
    if not any(isinstance(handler, NotebookClientWarnings) for handler in client_logger.handlers):
        client_logger.addHandler(NotebookClientWarnings())


def visit_hidden_code_cell(self, node) -> None:
    """MyST-NB's hidden code cell, its summary named by the text it shows ("Show code cell
    source"; WCAG 2.5.3, Label in Name): MyST-NB's own visitor names it "Toggle hidden content",
    which a reader who says what they see cannot say."""
    self.body.append(f'<details class="admonition hide {" ".join(node["classes"])}">\n<summary>\n'
                     f'<p class="collapsed admonition-title">{html.escape(node["prompt_show"])}</p>\n'
                     f'<p class="expanded admonition-title">{html.escape(node["prompt_hide"])}</p>\n'
                     "</summary>\n")


def setup(app):
    _watch_notebook_client()
    app.setup_extension("myst_nb")  # so that its visitor of hidden code cells is there to replace
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_code_cell, depart_HideCellInput))
    app.add_html_theme("course_theme", str(Path(__file__).parent / "course_theme"))
    app.set_translator("html", page_images.CourseHTMLTranslator)  # images lazy; figures named
    app.setup_extension("course_outputs")  # the package's figures and exercises (MIME renderers)
    app.setup_extension("math_svg")  # math drawn as SVG by Sphinx's HTML math renderer "svg"
    app.setup_extension("code_listings")  # listings: a span where the colour changes, not per token
    app.connect("config-inited", on_config_inited)
    app.connect("env-get-updated", number_figures_per_lesson, priority=900)  # after Sphinx's numbers
    app.connect("doctree-resolved", set_table_word_breaks)
    app.connect("html-page-context", on_page_context)
    app.connect("html-page-context", on_page_context_late, priority=900)
    app.connect("html-page-context", first_paint.on_page_context, priority=950)  # after every asset
    app.connect("build-finished", on_build_finished, priority=900)
    app.add_css_file("course.css")
    # Keyboard controls and accessible names for the Plotly explorers (course-explorer-keys.js).
    app.add_css_file("course-explorer-keys.css")
    # The exercises' answer boxes: one stylesheet serves every page (first_paint.py).
    app.add_css_file("self_check.css")
    app.add_js_file("course-explorer-keys.js", loading_method="defer")
    # Plotly figures in the theme's colours, light or dark, also when the reader switches.
    app.add_js_file("course-figure-theme.js", loading_method="defer")
    # Scrollable boxes and wide formulas get their tab stop as they are laid out and resized.
    app.add_js_file("course-tab-stops.js", loading_method="defer")
    # A page the reader has opened reads the same offline (with site_root/course-offline-worker.js).
    app.add_js_file("course-offline.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
