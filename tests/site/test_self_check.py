"""The static self-check: the browser judges every exercise as the Python checker does.

The parity tests load ``_ext/static/self_check.js`` into a blank page (no build needed) and
compare its verdict with :func:`embedding_course.exercises.engine.judge` on the expected value,
every known mistake and a few other wrong answers of every exercise. The page test answers
one exercise per lesson on the built site, right and wrong, with the keyboard only.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from embedding_course.exercises import (
    engine,
    glove,
    length_generalisation,
    lookup,
    one_hot,
    pipeline,
    positional,
    questions,
    rotary,
    tokens,
)
from embedding_course.exercises.engine import Fields, Mapping, Number, Values, Words
from embedding_course.plotting import contrast_ratio

from .conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "_ext" / "static" / "self_check.js"

DECLARATIONS = {
    "01_tokens_to_vectors": [tokens.encoding_exercise, tokens.closest_cities_exercise],
    "02_one_hot": [one_hot.one_hot_exercise, one_hot.one_hot_memory_exercise,
                   one_hot.one_hot_geometry_exercise],
    "03_dense_lookup": [lookup.gradient_rows_exercise, lookup.vocabulary_memory_exercise,
                        lookup.tied_parameters_exercise],
    "04_sinusoidal_positions": [positional.pe_row_exercise, positional.longest_wavelength_exercise,
                                positional.rotation_block_exercise],
    "05_combined_pipeline": [pipeline.batch_exercise, pipeline.output_shape_exercise,
                             pipeline.scaled_variance_exercise],
    "06_seeing_embeddings": [glove.cosine_exercise, glove.analogy_exercise,
                             glove.explained_variance_exercise],
    "07_length_generalisation": [length_generalisation.copy_targets_exercise,
                                 length_generalisation.beyond_mean_exercise,
                                 length_generalisation.spread_exercise],
    "08_rotary_positions": [rotary.wavelength_exercise, rotary.ntk_base_exercise,
                            rotary.llama_class_exercise, rotary.layout_bug_exercise],
    "09_questions": [questions.scaled_ratio_exercise, questions.slow_pairs_exercise,
                     questions.padded_positions_exercise],
}
EXERCISES = [declare for declares in DECLARATIONS.values() for declare in declares]


def expected_of(kind):
    """The right answer of a kind, as plain data (what the reader types, once parsed)."""
    if isinstance(kind, Fields):
        return [expected_of(part) for _, part in kind.parts]
    if isinstance(kind, Mapping):
        return {key: value for key, value in kind.expected}
    if isinstance(kind, Words):
        return list(kind.expected)
    if isinstance(kind, Values):
        return np.asarray(kind.expected, dtype=float).tolist()
    return float(kind.expected)


def variants(kind) -> list:
    """Right, known-wrong and other wrong answers of one kind."""
    if isinstance(kind, Fields):
        right = expected_of(kind)
        answers = []
        for index, (_, part) in enumerate(kind.parts):
            for variant in variants(part):
                if kind.flat and isinstance(part, Words) and len(variant) != len(part.expected):
                    continue  # flattened, the tuple has another length: no part to judge
                answer = list(right)
                answer[index] = variant
                answers.append(answer)
        return answers
    if isinstance(kind, Number):
        values = [kind.expected, *(m.value for m in kind.mistakes), kind.expected * 1.5 + 0.1, 1e6, -1e6, 2.5]
        return [float(v) for v in values]
    if isinstance(kind, Values):
        right = np.asarray(kind.expected, dtype=float)
        one_off, many_off = right.copy(), right + 0.3
        one_off.flat[-1] += 0.5
        answers = [right, *(np.asarray(m.value, dtype=float) for m in kind.mistakes), one_off, many_off,
                   right[::-1], np.ones(right.shape) * 7, np.zeros(right.size + 1)]
        return [a.tolist() for a in answers]
    if isinstance(kind, Words):
        right = list(kind.expected)
        return [right, right[::-1], [word.upper() for word in right], [" ".join(right)],
                *(list(m.value) for m in kind.mistakes),
                [kind.forbidden[0][0], *right[1:]] if kind.forbidden else right, ["nowhere", *right[1:]]]
    if isinstance(kind, Mapping):
        right = dict(kind.expected)
        key = next(iter(right))
        return [right, {**right, **{k: 1.0 for k, _ in kind.excluded}},
                *({**right, k: v} for k, v, _ in kind.mistakes), {k: v for k, v in right.items() if k != key},
                {**right, 99: 1.0}, {**right, key: right[key] * 3}]
    raise AssertionError(kind)


def python_answer(kind, answer):
    """The answer as a notebook learner writes it: a flat tuple ``(city_a, city_b, gap)``."""
    if isinstance(kind, Fields) and kind.flat:
        return tuple(item for value in answer for item in (value if isinstance(value, list) else [value]))
    return answer


@pytest.fixture(scope="module")
def blank_page(browser):
    page = browser.new_page()
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(SCRIPT))
    yield page
    page.close()


@pytest.mark.parametrize("declare", EXERCISES, ids=lambda d: d.__name__)
def test_the_browser_judges_like_the_python_engine(blank_page, declare):
    exercise = declare()
    spec = engine.to_json(exercise)["answer"]
    for answer in variants(exercise.answer):
        python = engine.judge(exercise.answer, python_answer(exercise.answer, answer))
        browser = blank_page.evaluate("([kind, answer]) => window.courseSelfCheck.judge(kind, answer)",
                                      [spec, json.loads(json.dumps(answer))])
        assert browser == python, (answer, python, browser)


# ---------------------------------------------------------------------- on the built pages

ANSWERED_ON_EACH_PAGE = {
    "01_tokens_to_vectors": tokens.encoding_exercise,
    "02_one_hot": one_hot.one_hot_memory_exercise,
    "03_dense_lookup": lookup.gradient_rows_exercise,
    "04_sinusoidal_positions": positional.pe_row_exercise,
    "05_combined_pipeline": pipeline.batch_exercise,
    "06_seeing_embeddings": glove.analogy_exercise,
    "07_length_generalisation": length_generalisation.spread_exercise,
    "08_rotary_positions": rotary.llama_class_exercise,
    "09_questions": questions.padded_positions_exercise,
}
"""One exercise per lesson, covering every kind of answer box."""


def as_text(kind, value) -> str:
    """What a reader types into the box of ``kind`` for ``value``."""
    if isinstance(kind, Mapping):
        return ", ".join(f"{key}: {number!r}" for key, number in value.items())
    if isinstance(kind, Words):
        return ", ".join(value)
    if isinstance(kind, Values):
        array = np.asarray(value, dtype=float)
        rows = array.reshape(1, -1) if array.ndim == 1 else array
        return "; ".join(", ".join(repr(float(x)) for x in row) for row in rows)
    return repr(float(value))


def a_known_mistake(kind) -> tuple[list, str]:
    """Answers for each box with one known mistake, and the hint it must bring."""
    parts = list(kind.parts) if isinstance(kind, Fields) else [("", kind)]
    answers = [expected_of(part) for _, part in parts]
    for index, (name, part) in enumerate(parts):
        if isinstance(part, Mapping) and part.mistakes:
            key, value, hint = part.mistakes[0]
            answers[index] = {**answers[index], key: value}
        elif getattr(part, "mistakes", ()):
            answers[index] = part.mistakes[0].value
            hint = part.mistakes[0].hint
        else:
            continue
        return answers, f"{name}: {hint}" if name else hint
    raise AssertionError("no known mistake to make")


def _type_answers(page, form_id: str, texts: list[str]) -> None:
    """Type each text into its box with the keyboard, then Tab to the Check button and press Enter."""
    for index, text in enumerate(texts):
        if index == 0:
            page.focus(f"#{form_id}-0")  # keyboard focus, no pointer event
        else:
            page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.id") == f"{form_id}-{index}"
        page.keyboard.press("Control+A")
        page.keyboard.type(text)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "course-self-check-button"
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", ""), "the focused Check button shows no focus ring"
    page.keyboard.press("Enter")


@pytest.mark.parametrize("lesson", list(ANSWERED_ON_EACH_PAGE))
def test_each_lesson_checks_an_answer_with_the_keyboard_only(browser, site_url, built_site, lesson):
    exercise = ANSWERED_ON_EACH_PAGE[lesson]()
    kind = exercise.answer
    parts = [part for _, part in kind.parts] if isinstance(kind, Fields) else [kind]
    form_id = f"self-check-{exercise.name}"
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(f"{site_url}/book/lessons/{lesson}.html", wait_until="load")
    assert page.locator("form.course-self-check").count() == len(DECLARATIONS[lesson])
    assert "Not yet" not in page.inner_text("main")
    assert "Correct!" not in page.inner_text("main"), "a solution's verdict shows before the reader opens it"
    feedback = page.locator(f"#{form_id}-feedback")
    assert feedback.get_attribute("aria-live") == "polite"

    right = [as_text(part, value) for part, value in zip(parts, [expected_of(p) for p in parts], strict=True)]
    _type_answers(page, form_id, right)
    assert feedback.inner_text().startswith("Correct!"), feedback.inner_text()
    assert exercise.success.replace("`", "") in feedback.inner_text()

    answers, hint = a_known_mistake(kind)
    page.keyboard.press("Shift+Tab")  # back into the boxes
    for _ in range(len(parts) - 1):
        page.keyboard.press("Shift+Tab")
    wrong = [as_text(part, value) for part, value in zip(parts, answers, strict=True)]
    for index, text in enumerate(wrong):
        if index:
            page.keyboard.press("Tab")
        page.keyboard.press("Control+A")
        page.keyboard.type(text)
    page.keyboard.press("Enter")  # submits the form from inside a box
    text = feedback.inner_text()
    assert text.startswith("Not yet."), text
    assert hint.replace("`", "") in text.replace("\n", " "), (hint, text)
    assert errors == []
    page.close()


def test_the_answer_box_reads_well_in_dark_mode(browser, site_url, built_site):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(f"{site_url}/book/lessons/04_sinusoidal_positions.html", wait_until="load")
    colours = page.evaluate("""() => {
        const box = document.querySelector('form.course-self-check input');
        const style = getComputedStyle(box);
        return [style.color, style.backgroundColor, document.documentElement.dataset.theme];
    }""")
    text, background, theme = colours
    assert theme == "dark"

    def luminance(rgb: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"\d+", rgb)[:3])
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    assert luminance(text) > 0.6 and luminance(background) < 0.3, colours
    # Each text of the box against what lies behind it. The legend sits on the box's border:
    # its upper half lies on what is behind the box, so it is measured against that too.
    pairs = page.evaluate("""() => {
        const behind = element => {
            for (let e = element; e; e = e.parentElement) {
                const colour = getComputedStyle(e).backgroundColor;
                if (colour !== 'rgba(0, 0, 0, 0)' && colour !== 'transparent') { return colour; }
            }
            return getComputedStyle(document.body).backgroundColor;
        };
        const form = document.querySelector('form.course-self-check');
        const fieldset = form.querySelector('fieldset');
        const texts = [...form.querySelectorAll('legend, label, .course-self-check-format')];
        return texts.map(e => [e.tagName + ' ' + e.className, getComputedStyle(e).color, behind(e)])
            .concat([['legend over the box edge', getComputedStyle(form.querySelector('legend')).color,
                      behind(fieldset.parentElement)]]);
    }""")
    assert len(pairs) >= 4, pairs

    def colour(css: str) -> tuple:
        return tuple(int(v) / 255 for v in re.findall(r"\d+", css)[:3])

    low = [(name, fg, bg) for name, fg, bg in pairs if contrast_ratio(colour(fg), colour(bg)) < 4.5]
    assert not low, f"text below 4.5:1 against what is behind it in dark mode: {low}"
    context.close()
