"""Exercise checkers: each tells a learner what is right or wrong with an answer.

Each exercise is a declaration (:class:`~embedding_course.exercises.engine.Exercise`): the
expected value, its tolerance and a table of known mistakes with their hints, computed by the
package. One engine judges every answer (:func:`check`), in a notebook; the website's
self-check judges the same declarations in the browser (:mod:`.self_check`).

A checker returns a :class:`Feedback`, which prints as a short verdict in a notebook and can
be tested with ``bool(feedback)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from embedding_course.exercises.engine import Exercise, judge


@dataclass
class Feedback:
    """The verdict of a checker: ``correct`` plus messages that explain it.

    ``exercise`` is set for an answer left as ``None``: on the website the verdict then shows
    the exercise's self-check box instead (see :mod:`.self_check`).
    """

    correct: bool
    messages: list[str] = field(default_factory=list)
    exercise: Exercise | None = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.correct

    def __str__(self) -> str:
        head = "Correct!" if self.correct else "Not yet."
        return "\n".join([head, *(f"  - {message}" for message in self.messages)])

    def _repr_markdown_(self) -> str:
        head = f"**{'Correct!' if self.correct else 'Not yet.'}**"
        return "\n".join([head, "", *(f"- {message}" for message in self.messages)])

    def _repr_html_(self) -> str | None:
        from embedding_course.exercises.self_check import self_check_html
        from embedding_course.web import on_static_site

        if self.exercise is None or not on_static_site():
            return None  # Jupyter falls back to the Markdown
        return self_check_html(self.exercise)

    def __repr__(self) -> str:
        return str(self)


def correct(*messages: str) -> Feedback:
    """A passing verdict with optional explanations."""
    return Feedback(True, list(messages))


def wrong(*messages: str) -> Feedback:
    """A failing verdict; each message says what is wrong and how to fix it."""
    return Feedback(False, list(messages))


def check(exercise: Exercise, answer) -> Feedback:
    """Judge a learner's ``answer`` against an exercise's declaration.

    Args:
        exercise: the declaration (expected value, tolerance, known mistakes).
        answer: anything the learner wrote; ``None`` means "not answered yet".
    Returns:
        The verdict, with every problem found; never raises on an answer.
    """
    if answer is None:
        return Feedback(False, [f"No answer yet (the cell still holds None). Hint: {exercise.hint}"],
                        exercise=exercise)
    problems = judge(exercise.answer, answer)
    return wrong(*problems) if problems else correct(exercise.success)


def checker(declare: Callable[[], Exercise]) -> Callable[[object], Feedback]:
    """A learner-facing check function for the exercise that ``declare`` builds (once, on first use)."""
    declaration = functools.cache(declare)

    def check_answer(answer) -> Feedback:
        return check(declaration(), answer)

    name = declare.__name__.removesuffix("_exercise")
    check_answer.__name__ = check_answer.__qualname__ = f"check_{name}"
    check_answer.__doc__ = declare.__doc__
    check_answer.declaration = declaration
    return check_answer
