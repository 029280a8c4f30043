"""The website's self-check: an answer box for each exercise, judged in the browser.

On the static site there is no kernel to run a checker. Each exercise's declaration is
written into the page as JSON next to a small form (:func:`self_check_html`); the site's
``self_check.js`` reads what the reader types, judges it with the same rules and the same
messages as :func:`embedding_course.exercises.check`, and says the verdict in a live region.
"""

from __future__ import annotations

import html
import json

import numpy as np

from embedding_course.exercises.engine import Exercise, Fields, Mapping, Number, Values, Words, to_json

FORM_CLASS = "course-self-check"
"""The class of every self-check form; the site loads its script on pages that hold one."""


def _tolerance_text(kind) -> str:
    if getattr(kind, "whole", False) or kind.tolerance == 0:
        return "exactly"
    if kind.relative:
        return f"to within {kind.tolerance * 100:g}%"
    return f"to within ±{kind.tolerance:g}"


def answer_format(kind) -> str:
    """How to type an answer of this kind, and how closely it is checked, for the reader.

    Args:
        kind: a :class:`Number`, :class:`Values`, :class:`Words` or :class:`Mapping`.
    Returns:
        One sentence, e.g. "One number, e.g. 0.25; checked to within ±0.001."
    """
    if isinstance(kind, Number):
        what = "One whole number" if kind.whole else "One number, e.g. 0.25 or 1e-3"
        return f"{what}; checked {_tolerance_text(kind)}."
    if isinstance(kind, Values):
        shape = np.asarray(kind.expected).shape
        entries = "1 or 0 (or true/false)" if kind.booleans else ("whole "
                                                                  "numbers" if kind.whole else "numbers")
        if kind.booleans and shape == (1,):
            return f"true or false (or 1 or 0); checked {_tolerance_text(kind)}."
        if len(shape) == 1:
            layout = f"{shape[0]} {entries}, separated by commas"
        else:
            layout = (f"{shape[0]} rows of {shape[1]} {entries}: commas between numbers, "
                      "a semicolon between rows")
        return f"{layout}; checked {_tolerance_text(kind)}."
    if isinstance(kind, Words):
        order = "best first" if kind.ordered else "in any order"
        return f"{len(kind.expected)} words separated by commas, {order}."
    if isinstance(kind, Mapping):
        return (f"{kind.key}: value pairs separated by commas, e.g. 5: 1.0, 6: 2.5; "
                f"checked {_tolerance_text(kind)}.")
    raise ValueError(f"no answer box for a {type(kind).__name__}")


def self_check_html(exercise: Exercise) -> str:
    """The self-check form of one exercise: labelled inputs, a Check button, a live feedback region.

    Args:
        exercise: the declaration; its JSON goes into the page for ``self_check.js``.
    Returns:
        HTML for a notebook output (shown on the website only).
    """
    if not isinstance(exercise, Exercise):
        raise ValueError(f"exercise must be an Exercise declaration, got {type(exercise).__name__}")
    base = f"self-check-{exercise.name}"
    kind = exercise.answer
    parts = list(kind.parts) if isinstance(kind, Fields) else [(exercise.label, kind)]
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
    data = json.dumps(to_json(exercise), allow_nan=False).replace("</", "<\\/")
    legend = "Check your answer" + (f": {exercise.label}" if isinstance(kind, Fields) else "")
    return (
        f'<form class="{FORM_CLASS}" id="{base}" data-exercise="{exercise.name}" novalidate>'
        f"<fieldset><legend>{html.escape(legend)}</legend>"
        + "".join(rows)
        + '<button type="submit" class="course-self-check-button">Check</button>'
        f'<div class="course-self-check-feedback" id="{base}-feedback" role="status" '
        'aria-live="polite"></div>'
        f"</fieldset>"
        f'<script type="application/json" class="course-self-check-data">{data}</script>'
        f"</form>"
    )
