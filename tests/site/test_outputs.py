"""The package emits standard outputs; the site's renderers (``_ext/course_outputs.py``) draw them.

No build needed: these run the package's outputs through the site's MyST-NB plugin and its
answer-box writer, as the build does.
"""

from __future__ import annotations

import json
import re
import sys
from importlib.metadata import entry_points

import plotly.graph_objects as go
import pytest
from IPython.core.formatters import DisplayFormatter
from myst_nb.core.render import MimeData

from embedding_course import exercises
from embedding_course.exercises import engine, lookup, one_hot, positional, rotary, tokens
from embedding_course.exercises import length_generalisation as lesson_7

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import course_glue
import course_outputs


def kernel_outputs(obj) -> dict:
    """The MIME bundle a Jupyter kernel sends for ``obj`` (IPython's own formatter)."""
    return DisplayFormatter().format(obj)[0]


def test_myst_nb_finds_the_plugin():
    plugins = [entry.load() for entry in entry_points(group="myst_nb.mime_renderers")]
    assert course_outputs.CourseOutputs in plugins


def test_a_plotly_figure_goes_out_as_plotly_s_own_mime_type_and_becomes_a_figure_node():
    import plotly.io as pio

    import embedding_course.plotting  # noqa: F401 - the package sets no renderer of its own

    assert pio.renderers.default != "course_static"
    figure = go.Figure(go.Scatter(y=[1, 2, 3], name="</script>"), layout=dict(height=320))
    bundle = pio.renderers["plotly_mimetype"].to_mimebundle(figure.to_dict())
    [node] = course_outputs.CourseOutputs.handle_mime(None, MimeData(course_outputs.PLOTLY_MIME,
                                                                   bundle[course_outputs.PLOTLY_MIME]), False)
    assert isinstance(node, course_outputs.plotly_figure)
    assert node["spec"]["data"][0]["name"] == "</script>" and "config" not in node["spec"]
    assert course_outputs.CourseOutputs.handle_mime(None, MimeData("text/html", "<p>"), False) is None


def test_a_static_figure_carries_its_other_drawings_in_its_png_s_metadata():
    """At twice its density (for sharp screens); when wider than a phone, for a narrow screen too."""
    import base64

    from embedding_course import plotting

    def drawing(metadata, key):
        return base64.b64decode(metadata[key])

    wide = plotting.line_plot([0, 1], {"a": [0, 1]}, size=(7.0, 3.0))
    png, metadata = course_glue.figure_png_for_screens(wide)
    assert png == plotting.figure_png(wide)
    assert drawing(metadata, course_glue.SHARP_PNG) == plotting.figure_png(wide, density=2)
    narrow = plotting.narrow_figure(wide)
    assert drawing(metadata, course_glue.NARROW_PNG) == plotting.figure_png(narrow)
    assert drawing(metadata, course_glue.NARROW_PNG_2X) == plotting.figure_png(narrow, density=2)
    as_narrow = plotting.line_plot([0, 1], {"a": [0, 1]}, size=(plotting.NARROW_WIDTH, 3.0))
    png, metadata = course_glue.figure_png_for_screens(as_narrow)
    assert png == plotting.figure_png(as_narrow) and list(metadata) == [course_glue.SHARP_PNG]
    assert drawing(metadata, course_glue.SHARP_PNG) == plotting.figure_png(as_narrow, density=2)
    # a PNG without other drawings is MyST-NB's to write
    plain = MimeData("image/png", base64.b64encode(png))
    assert course_outputs.CourseOutputs.handle_mime(None, plain, False) is None


def test_a_figure_preview_names_the_figure_in_plain_text():
    assert course_outputs._title_text({"title": {"text": "<b>Probe</b> title"}}) == "Probe title"
    assert course_outputs._title_text({"title": "Sines<br>and cosines"}) == "Sines and cosines"
    # an entity is read once and escaped once (not "&amp;amp;")
    assert course_outputs._title_text({"title": {"text": "<i>q</i> &amp; k"}}) == "q &amp; k"
    assert course_outputs._title_text({}) == ""


def test_an_unanswered_exercise_carries_its_declaration_beside_the_hint():
    bundle = kernel_outputs(tokens.check_encoding(None))
    assert bundle[exercises.EXERCISE_MIME] == engine.to_json(tokens.encoding_exercise())
    assert "No answer yet" in bundle["text/markdown"]  # what Jupyter and Colab show
    answered = kernel_outputs(tokens.check_encoding([1]))
    assert exercises.EXERCISE_MIME not in answered and "text/markdown" in answered
    assert course_outputs.EXERCISE_MIME == exercises.EXERCISE_MIME


def test_a_form_has_labelled_boxes_a_button_a_live_region_and_the_declaration():
    exercise = engine.to_json(one_hot.one_hot_memory_exercise())
    [node] = course_outputs.CourseOutputs.handle_mime(None, MimeData(course_outputs.EXERCISE_MIME, exercise),
                                                      False)
    assert isinstance(node, course_outputs.self_check) and node["exercise"] == exercise
    html = course_outputs.self_check_html(exercise, 2)
    # named for its exercise: a screen reader lists a page's boxes and buttons by name
    assert "<legend>Check your answer to exercise 2: " in html
    assert '>Check<span class="course-visually-hidden"> exercise 2</span></button>' in html
    ids = re.findall(r'<input id="([^"]+)"', html)
    assert ids == ["self-check-one-hot-memory-0", "self-check-one-hot-memory-1"]
    for box in ids:
        assert f'<label for="{box}">' in html and f'aria-describedby="{box}-format"' in html
    assert '<button type="submit"' in html and 'aria-live="polite"' in html
    data = json.loads(re.search(r'application/json[^>]*>(.*?)</script>', html).group(1))
    assert data == exercise


def answer_format(exercise) -> str:
    return course_outputs.answer_format(engine.to_json(exercise)["answer"])


def test_the_format_states_the_tolerance():
    assert "to within ±0.001" in answer_format(positional.pe_row_exercise())
    assert "to within 0.1%" in answer_format(lookup.vocabulary_memory_exercise())
    assert "exactly" in answer_format(tokens.encoding_exercise())
    assert "a semicolon between rows" in answer_format(one_hot.one_hot_exercise())
    assert answer_format(lesson_7.spread_exercise()).startswith("true or false")
    assert "8 whole numbers" in answer_format(lesson_7.copy_targets_exercise())
    assert "±0.001" in answer_format(lesson_7.beyond_mean_exercise())


def test_a_small_tolerance_is_written_as_a_power_of_ten():
    def tolerance_of(tolerance, relative=False) -> str:
        answer = engine.Number(expected=0.0, tolerance=tolerance, relative=relative)
        return answer_format(engine.Exercise(name="x", answer=answer, hint="", success=""))

    assert tolerance_of(1e-6).endswith("checked to within ±10⁻⁶.")
    assert tolerance_of(1e-8, relative=True).endswith("checked to within 10⁻⁶%.")
    assert tolerance_of(1e-4).endswith("checked to within ±0.0001.")
    with pytest.raises(ValueError, match="whole power of ten"):
        tolerance_of(2e-6)


def test_the_format_reads_right_for_one_word_one_number_and_a_mask():
    def asked(answer) -> str:
        return answer_format(engine.Exercise(name="x", answer=answer, hint="", success=""))

    assert answer_format(rotary.llama_class_exercise()) == "One of kept, blended or divided."
    assert answer_format(rotary.layout_bug_exercise()) == "One of A, B or C."
    assert asked(engine.Words(("cat",))) == "One word."
    assert asked(engine.Values((3,), 0, whole=True)) == "One whole number; checked exactly."
    assert asked(engine.Words(("a", "b"))).startswith("2 words separated by commas")
    assert asked(engine.Values(((1, 0, 1), (1, 1, 0)), 0, booleans=True)).startswith(
        "2 rows of 3 entries, each 1 or 0 (or true/false): commas within a row, a semicolon between rows")


def test_json_cannot_close_the_script_early():
    exercise = engine.Exercise(name="x", answer=engine.Number(2.0, 0.1), hint="", success="</script>!")
    assert "</script>!" not in course_outputs.self_check_html(engine.to_json(exercise), 1)


def test_an_unknown_answer_kind_has_no_box():
    with pytest.raises(ValueError, match="no answer box"):
        course_outputs.answer_format({"kind": "poem"})
