"""Exercise checkers: each tells a learner what is right or wrong with an answer.

A checker returns a :class:`Feedback`, which prints as a short verdict in a notebook
and can be tested with ``bool(feedback)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Feedback:
    """The verdict of a checker: ``correct`` plus messages that explain it."""

    correct: bool
    messages: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.correct

    def __str__(self) -> str:
        head = "Correct!" if self.correct else "Not yet."
        return "\n".join([head, *(f"  - {message}" for message in self.messages)])

    def _repr_markdown_(self) -> str:
        head = f"**{'Correct!' if self.correct else 'Not yet.'}**"
        return "\n".join([head, "", *(f"- {message}" for message in self.messages)])

    def __repr__(self) -> str:
        return str(self)


def correct(*messages: str) -> Feedback:
    """A passing verdict with optional explanations."""
    return Feedback(True, list(messages))


def wrong(*messages: str) -> Feedback:
    """A failing verdict; each message says what is wrong and how to fix it."""
    return Feedback(False, list(messages))


def not_answered(hint: str) -> Feedback:
    """The verdict for an answer left as ``None``: a hint at where to start."""
    return Feedback(False, [f"No answer yet (the cell still holds None). Hint: {hint}"])


def as_array(answer) -> np.ndarray | None:
    """A learner's answer as a float array (from a list, array or tensor); ``None`` if it is not numbers."""
    if isinstance(answer, (bool, str)):
        return None
    if hasattr(answer, "detach"):
        answer = answer.detach().cpu().numpy()
    try:
        return np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None


def as_number(answer) -> float | None:
    """A learner's answer as one float (a number, or a one-element array/tensor); else ``None``."""
    array = as_array(answer)
    if array is None or array.size != 1:
        return None
    return float(array.reshape(-1)[0])


def number_pair(answer, what: str, whole: bool = False) -> tuple[float, float] | Feedback:
    """Read a learner's ``(a, b)`` pair of numbers, or return the Feedback saying why it is not one.

    Args:
        what: the pair's meaning for the message, e.g. ``"(cosine, distance)"``.
        whole: read whole numbers (``int``) instead of floats.
    """
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__len__") or len(answer) != 2:
        return wrong(f"give a pair: {what}.")
    convert = int if whole else float
    try:
        return convert(answer[0]), convert(answer[1])
    except (TypeError, ValueError):
        kind = "whole numbers" if whole else "numbers"
        return wrong(f"both entries of the pair must be {kind}.")
