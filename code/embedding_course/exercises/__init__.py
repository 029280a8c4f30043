"""Exercise checkers: each tells a learner what is right or wrong with an answer.

Each exercise is a declaration (:class:`~embedding_course.exercises.engine.Exercise`): the
expected value, its tolerance and a table of known mistakes with their hints, computed by the
package. One engine judges every answer (:func:`check`), in a notebook. An unanswered
exercise's verdict also carries its declaration as JSON (``EXERCISE_MIME``, from
:func:`~embedding_course.exercises.engine.to_json`): a front end that knows that type (the
course website) can judge answers with the same rules without a kernel; Jupyter shows the hint.

A checker returns a :class:`Feedback`, which prints as a short verdict in a notebook and can
be tested with ``bool(feedback)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from embedding_course.exercises.engine import Exercise, judge, to_json

EXERCISE_MIME = "application/vnd.embedding-course.exercise+json"
"""The MIME type of an unanswered exercise's declaration (the JSON of ``engine.to_json``)."""


@dataclass
class Feedback:
    """The verdict of a checker: ``correct`` plus messages that explain it.

    ``exercise`` is set for an answer left as ``None``: the verdict's output then also carries
    the declaration as ``EXERCISE_MIME`` (the website shows an answer box for it).
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

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """The declaration of an unanswered exercise; IPython adds the Markdown and the text."""
        if self.exercise is None:
            return {}
        return {EXERCISE_MIME: to_json(self.exercise)}

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
