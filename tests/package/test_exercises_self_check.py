"""The website's answer boxes are written from the same declarations as the checkers."""

import json
import re

import pytest

from embedding_course import web
from embedding_course.exercises import engine, lookup, one_hot, positional, self_check, tokens


def test_a_form_has_labelled_boxes_a_button_a_live_region_and_the_declaration():
    exercise = one_hot.one_hot_memory_exercise()
    html = self_check.self_check_html(exercise)
    ids = re.findall(r'<input id="([^"]+)"', html)
    assert ids == ["self-check-one-hot-memory-0", "self-check-one-hot-memory-1"]
    for box in ids:
        assert f'<label for="{box}">' in html and f'aria-describedby="{box}-format"' in html
    assert '<button type="submit"' in html and 'aria-live="polite"' in html
    data = json.loads(re.search(r'application/json[^>]*>(.*?)</script>', html).group(1))
    assert data == engine.to_json(exercise)


def test_the_format_states_the_tolerance():
    assert "to within ±0.001" in self_check.answer_format(positional.pe_row_exercise().answer)
    assert "to within 0.1%" in self_check.answer_format(lookup.vocabulary_memory_exercise().answer)
    assert "exactly" in self_check.answer_format(tokens.encoding_exercise().answer)
    assert "a semicolon between rows" in self_check.answer_format(one_hot.one_hot_exercise().answer)


def test_json_cannot_close_the_script_early():
    exercise = engine.Exercise(name="x", answer=engine.Number(2.0, 0.1), hint="", success="</script>!")
    assert "</script>!" not in self_check.self_check_html(exercise)


def test_an_unanswered_exercise_shows_its_box_only_on_the_website(monkeypatch):
    monkeypatch.setenv(web.STATIC_SITE_ENV_VAR, "1")
    assert 'class="course-self-check"' in tokens.check_encoding(None)._repr_html_()
    assert tokens.check_encoding([1])._repr_html_() is None  # an answer is judged, not boxed
    monkeypatch.delenv(web.STATIC_SITE_ENV_VAR)
    assert tokens.check_encoding(None)._repr_html_() is None  # Jupyter shows the Markdown hint


def test_a_form_needs_a_declaration():
    with pytest.raises(ValueError, match="must be an Exercise"):
        self_check.self_check_html("encoding")
