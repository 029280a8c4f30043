"""Sphinx extension for the course site: self-hosted JavaScript and build information.

* plotly.js is copied once into ``_static/vendor/`` from the installed Plotly package and
  added only to pages that hold a Plotly figure (not inlined into each page, no CDN).
* MathJax, require.js and the ipywidgets manager are served from ``_static/vendor/`` too
  (copied from ``.vendor/``, which ``make vendor`` fills from the npm registry).
* Figures are rendered for the static site: the kernel sees ``COURSE_STATIC_SITE=1``.
* The footer says which device and which PyTorch version built the pages.
* Page execution is watched: the notebook client waits for the kernel in short slices
  (``kernel_polling.py``), and its own warnings fail the strict build.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import kernel_polling
from sphinx.util import logging as sphinx_logging

# Set before any notebook kernel starts: kernels inherit this process's environment.
os.environ["COURSE_STATIC_SITE"] = "1"
os.environ.setdefault("PYTHONHASHSEED", "0")

REPO_ROOT = Path(__file__).resolve().parent.parent
VENDOR_SOURCE = REPO_ROOT / ".vendor"
PLOTLY_JS = "vendor/plotly.min.js"
PLOT_MARKER = 'class="course-plot"'

# What the site serves from _static/vendor/, and where it comes from in .vendor/.
VENDORED = {
    "mathjax": "mathjax/es5",
    "require.min.js": "requirejs/require.js",
    "embed-amd.js": "html-manager/dist/embed-amd.js",
}
# The pages load MathJax's tex-chtml component; everything it may load later (extensions,
# fonts, the menu's renderers and accessibility tools) lives in MathJax's sub-folders. The
# other ready-made combined components at the top level are never requested.
MATHJAX_UNUSED_COMBINED = {"mml-chtml.js", "mml-svg.js", "node-main.js", "tex-chtml-full.js",
                           "tex-chtml-full-speech.js", "tex-mml-chtml.js", "tex-mml-svg.js",
                           "tex-svg-full.js", "tex-svg.js"}


def _skip_unused_mathjax(folder: str, names: list[str]) -> set[str]:
    if Path(folder) != VENDOR_SOURCE / VENDORED["mathjax"]:
        return set()
    return MATHJAX_UNUSED_COMBINED.intersection(names)


def _plotly_js_path() -> Path:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.exists():
        raise FileNotFoundError(f"plotly.min.js not found at {path}; reinstall plotly")
    return path


def _check_vendor() -> None:
    missing = [str(VENDOR_SOURCE / source) for source in VENDORED.values()
               if not (VENDOR_SOURCE / source).exists()]
    if missing:
        raise FileNotFoundError(
            "self-hosted JavaScript is missing: " + ", ".join(missing) + ". Run `make vendor`."
        )


def _build_footer() -> str:
    from embedding_course.device import build_info

    info = build_info()
    return (f'<p class="course-build-info">Pages executed on <b>{info["device"]}</b> '
            f'({info["device_name"]}) with PyTorch {info["torch"]} and Python {info["python"]}.</p>')


def on_config_inited(app, config) -> None:
    _check_vendor()
    static = str(Path(__file__).parent / "static")
    if static not in config.html_static_path:
        config.html_static_path.append(static)
    theme_options = dict(config.html_theme_options or {})
    theme_options["extra_footer"] = (theme_options.get("extra_footer") or "") + _build_footer()
    config.html_theme_options = theme_options
    # Follow the reader's light/dark preference (an empty mode logs a console error).
    config.html_context = {**(config.html_context or {}), "default_mode": "auto"}
    config.nb_ipywidgets_js = {
        "vendor/require.min.js": {},
        "vendor/embed-amd.js": {},
    }


def _is_thebe(asset) -> bool:
    text = f"{getattr(asset, 'filename', '') or ''} {getattr(asset, 'attributes', {}).get('body', '')}"
    return "thebe" in text.lower()


def on_page_context(app, pagename, templatename, context, doctree) -> None:
    # Live code (thebe) is switched off: its scripts would load from a CDN, and it adds its
    # config script twice per page (a console error). Binder and Colab links stay.
    for key in ("script_files", "css_files"):
        if key in context:
            context[key][:] = [asset for asset in context[key] if not _is_thebe(asset)]
    body = context.get("body", "")
    if PLOT_MARKER in body:
        # Deferred: the text shows at once; each figure draws when plotly.js has run,
        # just before DOMContentLoaded (see embedding_course.web).
        app.add_js_file(PLOTLY_JS, priority=200, loading_method="defer")


def on_build_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    vendor_out = Path(app.outdir) / "_static" / "vendor"
    vendor_out.mkdir(parents=True, exist_ok=True)
    shutil.copy2(_plotly_js_path(), vendor_out / "plotly.min.js")
    for target, source in VENDORED.items():
        source_path, target_path = VENDOR_SOURCE / source, vendor_out / target
        if source_path.is_dir():
            shutil.copytree(source_path, target_path, dirs_exist_ok=True, ignore=_skip_unused_mathjax)
        else:
            shutil.copy2(source_path, target_path)


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


def setup(app):
    kernel_polling.install()
    _watch_notebook_client()
    app.connect("config-inited", on_config_inited)
    app.connect("html-page-context", on_page_context)
    app.connect("build-finished", on_build_finished)
    app.add_css_file("course.css")
    # Keyboard controls and accessible names for the Plotly explorers (course-explorer-keys.js).
    app.add_css_file("course-explorer-keys.css")
    app.add_js_file("course-explorer-keys.js", loading_method="defer")
    # Accessible names of the theme's buttons that contain their visible text.
    app.add_js_file("course-labels.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
