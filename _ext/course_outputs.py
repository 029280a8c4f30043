"""The site's renderers for the package's outputs: Plotly figures, exercises, narrow figures.

The course package emits standard outputs and knows nothing of the website: a Plotly figure is
Plotly's own ``application/vnd.plotly.v1+json`` (what Plotly writes in any Jupyter kernel), an
unanswered exercise is its declaration as ``application/vnd.embedding-course.exercise+json``
(beside a Markdown hint, which Jupyter, Colab and JupyterLab show). MyST-NB renders outputs
through MIME render plugins (``myst_nb.mime_renderers`` entry points, declared in
``_ext/pyproject.toml``); :class:`CourseOutputs` is this site's:

* a figure becomes a :class:`plotly_figure` node. When a page is written
  (``doctree-resolved``, :func:`place_figures`) its figures are numbered, their data written to
  ``_static/figures/PAGE/ID.json`` (fetched when a figure is drawn) and their phone heights
  worked out (``figure_heights.py``); the node is then written as a placeholder of the figure's
  final size with a light preview, which ``static/course-figures.js`` draws into;
* an exercise becomes a :class:`self_check` node, numbered in reading order when its page is
  written (:func:`number_exercises`) and then written as its answer box
  (:func:`self_check_html`), judged in the browser by ``static/self_check.js`` with the same
  rules as the package's checker;
* a static figure that the build also drew for other screens (``course_glue.py`` puts those
  drawings in its PNG output's metadata: at twice its density, and for a narrow screen)
  becomes a :class:`static_figure`: the figure's image and those drawings, which the site's
  HTML translator (``page_images.py``) offers to the screens they are for.
"""

from __future__ import annotations

import hashlib
import html
import json
from binascii import a2b_base64
from html.parser import HTMLParser
from typing import ClassVar

from course_glue import NARROW_PNG, NARROW_PNG_2X, SHARP_PNG
from docutils import nodes
from plotly.io.json import to_json_plotly
from sphinx.util.osutil import relative_uri

PLOTLY_MIME = "application/vnd.plotly.v1+json"
EXERCISE_MIME = "application/vnd.embedding-course.exercise+json"
FIGURE_DATA = "_static/figures"
FORM_CLASS = "course-self-check"
# The class of the outputs the site draws itself (a figure, an answer box), in place of
# Jupyter's "text_html": in dark mode the theme puts every "text_html" output on a light card,
# made for HTML that assumes a white page. These outputs take the theme's colours, so they
# stay on the page's own background.
OWN_OUTPUT_CLASS = "course-output"


class plotly_figure(nodes.General, nodes.Element):  # docutils names its node classes in lower case
    """A Plotly figure: ``spec`` (its JSON data), and once placed ``div_id``, ``src``, ``heights``."""


class self_check(nodes.General, nodes.Element):
    """An exercise's answer box: ``exercise`` (its declaration as JSON), and once numbered
    (:func:`number_exercises`) ``number``."""


# A static figure's other drawings, as ``course_glue.py`` names them in its PNG's metadata:
# (key, the screens it is for, its density)
DRAWINGS = ((SHARP_PNG, "sharp", 2), (NARROW_PNG, "narrow", 1), (NARROW_PNG_2X, "narrow", 2))


class static_figure(nodes.General, nodes.Element):
    """A static figure drawn for several screens: children [its other drawings, then its image];
    ``drawings`` says what each other drawing is for: ("sharp", 2), ("narrow", 1), ("narrow", 2)."""


class CourseOutputs:
    """MyST-NB's MIME render plugin for the course's figures and exercises (HTML only)."""

    # Before text/html (30); other builders' lists leave these types out.
    mime_priority_overrides: ClassVar = [("html", PLOTLY_MIME, 5), ("html", EXERCISE_MIME, 6)]

    @staticmethod
    def handle_mime(renderer, data, inline: bool):
        if data.mime_type == PLOTLY_MIME and not inline:
            # The site draws figures with its own options (course-figures.js): Plotly's kernel
            # renderer adds its default config to the data.
            spec = {key: value for key, value in data.content.items() if key != "config"}
            return [plotly_figure(spec=spec)]
        if data.mime_type == EXERCISE_MIME and not inline:
            return [self_check(exercise=data.content)]
        metadata = data.output_metadata.get("image/png", {}) if data.mime_type == "image/png" else {}
        drawn = [(kind, density, a2b_base64(metadata[key]))
                 for key, kind, density in DRAWINGS if metadata.get(key)]
        if drawn and not inline:
            # MyST-NB's own file naming and folder (render_image), so Sphinx copies them as it does the figure
            others = [nodes.image(uri=renderer.write_file([f"{hashlib.sha256(image).hexdigest()}.png"], image,
                                                          exists_ok=True), alt="")
                      for *_, image in drawn]
            return [static_figure("", *others, *renderer.render_image(data),
                                  drawings=[(kind, density) for kind, density, _ in drawn])]
        return None


# --- figures ------------------------------------------------------------------------------


def page_figures(doctree) -> list[plotly_figure]:
    return list(doctree.findall(plotly_figure)) if doctree is not None else []


def place_figures(app, doctree, docname: str) -> None:
    """Number a page's figures, write their data files, and work out their phone heights."""
    import figure_heights

    figures = page_figures(doctree)
    if not figures or app.builder.format != "html":
        return
    folder = app.outdir / FIGURE_DATA / docname
    folder.mkdir(parents=True, exist_ok=True)
    page_uri = app.builder.get_target_uri(docname)
    for number, figure in enumerate(figures, start=1):
        figure["div_id"] = div_id = f"course-plot-{number}"
        (folder / f"{div_id}.json").write_text(to_json_plotly(figure["spec"]))  # Plotly's own JSON
        figure["src"] = relative_uri(page_uri, f"{FIGURE_DATA}/{docname}/{div_id}.json")
    heights = figure_heights.phone_heights({figure["div_id"]: figure["spec"] for figure in figures})
    for figure in figures:
        figure["heights"] = figure_heights.height_steps(heights[figure["div_id"]])


class _TextOnly(HTMLParser):
    """Collects the text of a snippet of HTML, one piece per run of text between tags."""

    def __init__(self):
        super().__init__()  # character references are turned into characters
        self.pieces: list[str] = []

    def handle_data(self, data: str) -> None:
        self.pieces.append(data)


def _title_text(layout: dict) -> str:
    """The figure's title as plain text, escaped (Plotly titles may hold <b>, <br> and the like)."""
    title = layout.get("title", "")
    parser = _TextOnly()
    parser.feed(title.get("text", "") if isinstance(title, dict) else str(title or ""))
    parser.close()
    return html.escape(" ".join(piece.strip() for piece in parser.pieces if piece.strip()))


def visit_plotly_figure(translator, node: plotly_figure) -> None:
    layout = node["spec"].get("layout", {})
    div_id = node["div_id"]
    translator.body.append(
        f'<div class="output {OWN_OUTPUT_CLASS}"><div class="course-plot" id="{div_id}" '
        f'data-narrow-heights="{node["heights"]}" style="width:100%;height:{layout.get("height", 450)}px;">'
        f'<div class="course-plot-preview"><p class="course-plot-preview-title">{_title_text(layout)}</p>'
        f'<p>Interactive figure: it is drawn when it comes into view.</p></div></div>\n'
        f'<script type="application/json" class="course-plot-spec" data-for="{div_id}" '
        f'data-src="{node["src"]}"></script></div>\n')
    raise nodes.SkipNode


# --- exercises -------------------------------------------------------------------------------


def page_has_exercises(doctree) -> bool:
    return doctree is not None and any(True for _ in doctree.findall(self_check))


def number_exercises(app, doctree, docname: str) -> None:
    """Number a page's answer boxes in reading order: the Nth answers exercise N (a test in
    test_sync_notebooks checks the pages), so a screen reader can tell their controls apart."""
    for number, node in enumerate(doctree.findall(self_check), start=1):
        node["number"] = number


def visit_self_check(translator, node: self_check) -> None:
    # the site's own output class, not Jupyter's "text_html" (OWN_OUTPUT_CLASS: no light card in dark mode)
    translator.body.append(f'<div class="output {OWN_OUTPUT_CLASS}">'
                           f'{self_check_html(node["exercise"], node["number"])}</div>\n')
    raise nodes.SkipNode


def _tolerance_text(kind: dict) -> str:
    if kind.get("whole") or kind["tolerance"] == 0:
        return "exactly"
    if kind["relative"]:
        return f"to within {_written(kind['tolerance'] * 100)}%"
    return f"to within ±{_written(kind['tolerance'])}"


def _written(number: float) -> str:
    """A number as the prose writes it: 0.001 as it is, 1e-06 as 10⁻⁶ (``rounding.written``)."""
    text = f"{number:g}"
    if "e" not in text:
        return text
    from embedding_course import rounding

    return rounding.written(number)


def _shape(values) -> tuple[int, ...]:
    shape = []
    while isinstance(values, list):
        shape.append(len(values))
        values = values[0] if values else None
    return tuple(shape)


def answer_format(kind: dict) -> str:
    """How to type an answer of this kind (an exercise's JSON ``answer``), and how closely it is checked.

    Returns:
        One sentence, e.g. "One number, e.g. 0.25; checked to within ±0.001."
    """
    if kind["kind"] == "number":
        what = "One whole number" if kind["whole"] else "One number, e.g. 0.25 or 1e-3"
        return f"{what}; checked {_tolerance_text(kind)}."
    if kind["kind"] == "values":
        shape = _shape(kind["expected"])
        if kind["booleans"] and shape == (1,):
            return f"true or false (or 1 or 0); checked {_tolerance_text(kind)}."
        entries = ("entries, each 1 or 0 (or true/false)" if kind["booleans"]
                   else "whole numbers" if kind["whole"] else "numbers")
        if shape == (1,):
            layout = "One " + entries.removesuffix("s")
        elif len(shape) == 1:
            layout = f"{shape[0]} {entries}, separated by commas"
        else:
            layout = (f"{shape[0]} rows of {shape[1]} {entries}: commas within a row, "
                      "a semicolon between rows")
        return f"{layout}; checked {_tolerance_text(kind)}."
    if kind["kind"] == "words":
        choices = kind.get("choices") or []
        if len(kind["expected"]) == 1:
            return f"One of {', '.join(choices[:-1])} or {choices[-1]}." if len(choices) > 1 else "One word."
        order = "best first" if kind["ordered"] else "in any order"
        return f"{len(kind['expected'])} words separated by commas, {order}."
    if kind["kind"] == "mapping":
        return (f"{kind['key']}: value pairs separated by commas, e.g. 5: 1.0, 6: 2.5; "
                f"checked {_tolerance_text(kind)}.")
    raise ValueError(f"no answer box for a {kind['kind']}")


def self_check_html(exercise: dict, number: int) -> str:
    """The answer box of one exercise: labelled inputs, a Check button, a live feedback region.

    Args:
        exercise: the declaration as JSON (``EXERCISE_MIME``); it goes into the page for
            ``self_check.js``.
        number: the exercise's number on its page, in the box's name ("Check your answer to
            exercise 2") and its button's ("Check exercise 2": the words after "Check" are
            read out, not shown).
    """
    base = f"self-check-{exercise['name']}"
    kind = exercise["answer"]
    fields = kind["kind"] == "fields"
    parts = kind["parts"] if fields else [(exercise["label"], kind)]
    rows = []
    for index, (name, part) in enumerate(parts):
        field_id, format_id = f"{base}-{index}", f"{base}-{index}-format"
        rows.append(
            f'<div class="course-self-check-field">'
            f'<label for="{field_id}">{html.escape(name)}</label>'
            f'<input id="{field_id}" name="part-{index}" type="text" autocomplete="off" spellcheck="false" '
            f'aria-describedby="{format_id}">'
            f'<span class="course-self-check-format" id="{format_id}">'
            f"{html.escape(answer_format(part))}</span>"
            f"</div>")
    data = json.dumps(exercise, allow_nan=False).replace("</", "<\\/")
    legend = f"Check your answer to exercise {number}" + (f": {exercise['label']}" if fields else "")
    return (
        f'<form class="{FORM_CLASS}" id="{base}" data-exercise="{exercise["name"]}" novalidate>'
        f"<fieldset><legend>{html.escape(legend)}</legend>"
        + "".join(rows)
        + '<button type="submit" class="course-self-check-button">Check'
        f'<span class="course-visually-hidden"> exercise {number}</span></button>'
        f'<div class="course-self-check-feedback" id="{base}-feedback" role="status" '
        'aria-live="polite"></div>'
        f"</fieldset>"
        f'<script type="application/json" class="course-self-check-data">{data}</script>'
        f"</form>"
    )


def setup(app):
    app.add_node(plotly_figure, html=(visit_plotly_figure, None))
    app.add_node(self_check, html=(visit_self_check, None))
    app.add_node(static_figure)  # written by the site's HTML translator (page_images.py)
    app.connect("doctree-resolved", place_figures)
    app.connect("doctree-resolved", number_exercises)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1.0"}
