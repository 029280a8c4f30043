"""The engine behind every checker: read an answer strictly, compare it, explain what is wrong.

An exercise is data: an :class:`Exercise` holds a hint, a success message and one answer
*kind* — :class:`Number`, :class:`Values`, :class:`Words`, :class:`Mapping` or :class:`Fields` —
with the expected value, its tolerance and a table of known mistakes (:class:`Mistake`), each
with the hint that explains it. :func:`check` judges a learner's answer against it; the static
self-check on the website (``self_check.js``) judges the same declaration, written out as JSON
by :func:`to_json`, with the same rules and messages.

Reading is strict: ``True`` and ``"1"`` are not numbers; ``None``, a string, a bool, a dict, a
0-d or 1-d tensor, a tensor that requires grad, a NumPy scalar or a nested list each get
feedback, never a traceback.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from embedding_course.device import to_numpy

FEW = 3
"""Up to this many wrong entries are each named; above it, a count and the worst one."""


# ---------------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Mistake:
    """A known wrong value and the hint that explains it.

    Args:
        value: the wrong answer (a number, nested lists of numbers, or words).
        hint: what the learner did, and how to fix it.
        tolerance: how close an answer must be to count as this mistake (default: the kind's).
    """

    value: object
    hint: str
    tolerance: float | None = None


@dataclass(frozen=True)
class Number:
    """One number, right within ``tolerance`` (absolute, or relative to ``expected``)."""

    expected: float
    tolerance: float
    relative: bool = False
    whole: bool = False
    mistakes: tuple[Mistake, ...] = ()
    low: float | None = None
    high: float | None = None
    range_hint: str = ""
    otherwise: str = "you gave {got}; that is not it."
    nan_hint: str = ""
    """What a NaN answer means for this exercise (default: the general "finite number" message)."""


@dataclass(frozen=True)
class Values:
    """An array of numbers of a fixed shape (a vector, a matrix, a short tuple).

    ``element`` names one entry in messages ("dimension", "position"); ``labels`` names each
    entry of a vector instead of its index; ``notes`` adds a per-entry explanation shown when
    that entry is wrong. ``booleans`` accepts True/False as 1/0 (for a mask).
    """

    expected: tuple
    tolerance: float
    relative: bool = False
    whole: bool = False
    booleans: bool = False
    mistakes: tuple[Mistake, ...] = ()
    shape_hints: tuple[tuple[tuple[int, ...], str], ...] = ()
    allowed: tuple[float, ...] = ()
    allowed_hint: str = ""
    low: float | None = None
    high: float | None = None
    range_hint: str = ""
    order_hint: str = ""
    element: str = "entry"
    labels: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    otherwise: str = ""

    @property
    def shape(self) -> tuple[int, ...]:
        return np.asarray(self.expected).shape


@dataclass(frozen=True)
class Words:
    """A short list of words, in order or as a set; ``choices`` lists the words allowed."""

    expected: tuple[str, ...]
    ordered: bool = True
    choices: tuple[str, ...] = ()
    forbidden: tuple[tuple[str, str], ...] = ()
    mistakes: tuple[Mistake, ...] = ()
    order_hint: str = ""
    otherwise: str = ""
    noun: str = "word"


@dataclass(frozen=True)
class Mapping:
    """A dict ``{whole number: number}``, e.g. ``{row: gradient norm}``.

    ``mistakes`` are ``(key, value, hint)``; ``excluded`` keys must be absent (or zero).
    """

    expected: tuple[tuple[int, float], ...]
    tolerance: float
    relative: bool = False
    key: str = "key"
    excluded: tuple[tuple[int, str], ...] = ()
    mistakes: tuple[tuple[int, float, str], ...] = ()
    missing: str = "{key} {k} is missing."
    extra: str = "{key} {k} should not be there."
    otherwise: str = "{key} {k}: you gave {got}."


@dataclass(frozen=True)
class Fields:
    """A tuple of named parts, each judged by its own kind, e.g. ``(ids, mask)``."""

    parts: tuple[tuple[str, object], ...]
    flat: bool = False
    """With ``flat``, a :class:`Words` part takes one item per word: ``(city_a, city_b, gap)``."""
    describe: str = ""
    """How messages write the tuple (default: its part names)."""

    def widths(self) -> list[int]:
        return [len(part.expected) if self.flat and isinstance(part, Words) else 1 for _, part in self.parts]

    @property
    def what(self) -> str:
        return self.describe or "(" + ", ".join(name for name, _ in self.parts) + ")"


@dataclass(frozen=True)
class Exercise:
    """An exercise as data: what a right answer is, and what each known mistake means.

    Args:
        name: a short id, unique on the site (e.g. ``"encoding"``).
        answer: the kind of answer and its expected value.
        hint: where to start (shown for an answer left as ``None``).
        success: what the right answer teaches (shown with "Correct!").
        label: what to type in the website's answer box.
    """

    name: str
    answer: object
    hint: str
    success: str
    label: str = ""
    extra: dict = field(default_factory=dict)


# ---------------------------------------------------------------------- formatting

def fmt(value: float) -> str:
    """A number for a message: whole numbers with thousands commas, others to 4 significant digits."""
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) < 1e-3:
        return f"{value:.3e}".replace("e-0", "e-")
    digits = max(0, 3 - math.floor(math.log10(abs(value))))
    return f"{value:,.{digits}f}"


def _describe_shape(shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return "one number" if shape[0] == 1 else f"{shape[0]} numbers"
    return f"a {' x '.join(str(n) for n in shape)} array"


def _wanted_values(kind: Values) -> str:
    """What a :class:`Values` answer must be, in words: "8 numbers", "True or False", ..."""
    shape = kind.shape
    if kind.booleans and len(shape) == 1 and shape[0] == 1:
        return "one answer, True or False"
    if kind.booleans:
        return f"{_describe_shape(shape)} (True/False or 1/0)"
    return _describe_shape(shape)


def _example_words(count: int) -> str:
    """A list of ``count`` placeholder words, e.g. ``['a', 'b', 'c']``."""
    return "[" + ", ".join(repr(chr(ord("a") + i)) for i in range(count)) + "]"


def _close(got: float, want: float, tolerance: float, relative: bool) -> bool:
    return abs(got - want) <= tolerance * (abs(want) if relative else 1.0)


# ---------------------------------------------------------------------- strict reading

class Unreadable(Exception):
    """An answer that is not what the kind needs; the message says why."""


def read_numbers(answer, booleans: bool = False) -> np.ndarray:
    """A learner's answer as a float array, read strictly.

    Args:
        answer: a number, NumPy scalar or array, tensor (any device, with or without grad),
            or nested lists/tuples of numbers.
        booleans: accept True/False as 1/0 (for a mask).
    Returns:
        The array (``float64``).
    Raises:
        Unreadable: with a message for the learner, for a string, bool, dict, ragged list, ...
    """
    if isinstance(answer, (bool, np.bool_)):
        if booleans:
            return np.asarray(float(answer))
        raise Unreadable(f"{answer} is a truth value, not a number; give the number itself.")
    if isinstance(answer, (str, bytes)) and booleans:
        raise Unreadable(f"{answer!r} is text; give True or False (or 1 or 0), without quotes.")
    if isinstance(answer, (str, bytes)):
        raise Unreadable(f"{answer!r} is text, not a number; give the number itself, without quotes.")
    if isinstance(answer, (int, float, np.integer, np.floating)):
        return np.asarray(float(answer))
    if isinstance(answer, (torch.Tensor, np.ndarray)):
        array = to_numpy(answer)
        if array.dtype == bool and not booleans:
            raise Unreadable("that holds truth values (True/False), not numbers.")
        if array.dtype.kind not in "biuf":
            if array.dtype.kind == "O":
                return read_numbers(array.tolist(), booleans)
            raise Unreadable(f"that holds {array.dtype} values, not numbers.")
        return array.astype(np.float64)
    if isinstance(answer, (list, tuple)):
        items = [read_numbers(item, booleans) for item in answer]
        if len({item.shape for item in items}) > 1:
            raise Unreadable("the rows have different lengths; every row needs the same number of entries.")
        return np.asarray(items, dtype=np.float64).reshape((len(items), *(items[0].shape if items else ())))
    raise Unreadable(f"a {type(answer).__name__} is not numbers; give numbers "
                     "(a number, a list, an array or a tensor).")


def _finite(array: np.ndarray) -> np.ndarray:
    if not np.isfinite(array).all():
        raise Unreadable("the answer holds NaN or infinity; every entry must be a finite number.")
    return array


# ---------------------------------------------------------------------- judging

def judge(kind, answer) -> list[str]:
    """What is wrong with ``answer`` for ``kind``: an empty list when it is right."""
    try:
        if isinstance(kind, Number):
            return _judge_number(kind, answer)
        if isinstance(kind, Values):
            return _judge_values(kind, answer)
        if isinstance(kind, Words):
            return _judge_words(kind, answer)
        if isinstance(kind, Mapping):
            return _judge_mapping(kind, answer)
        if isinstance(kind, Fields):
            return _judge_fields(kind, answer)
    except Unreadable as problem:
        return [str(problem)]
    raise TypeError(f"unknown answer kind {type(kind).__name__}")


def _judge_number(kind: Number, answer) -> list[str]:
    if isinstance(answer, (list, tuple)) and len(answer) != 1:
        raise Unreadable(f"give one number, not {len(answer)} values.")
    array = read_numbers(answer)
    if kind.nan_hint and array.size == 1 and np.isnan(array).all():
        return [kind.nan_hint]
    array = _finite(array)
    if array.size != 1:
        raise Unreadable(f"give one number, not {array.size} values.")
    got = float(array.reshape(-1)[0])
    if kind.whole and got != round(got):
        return [f"give a whole number; you gave {fmt(got)}."]
    if _close(got, kind.expected, kind.tolerance, kind.relative):
        return []
    for mistake in kind.mistakes:
        tolerance = kind.tolerance if mistake.tolerance is None else mistake.tolerance
        if _close(got, float(mistake.value), tolerance, kind.relative):
            return [mistake.hint]
    if kind.range_hint and ((kind.low is not None and got < kind.low)
                            or (kind.high is not None and got > kind.high)):
        return [kind.range_hint.format(got=fmt(got))]
    return [kind.otherwise.format(got=fmt(got))]


def _element_name(kind: Values, index: tuple[int, ...]) -> str:
    if kind.labels and len(index) == 1:
        return kind.labels[index[0]]
    if len(index) == 1:
        return f"{kind.element} {index[0]}"
    return f"{kind.element}[{', '.join(str(i) for i in index)}]"


def _element_problem(kind: Values, index: tuple[int, ...], got: np.ndarray, want: np.ndarray) -> str:
    flat = int(np.ravel_multi_index(index, want.shape))
    note = kind.notes[flat] if kind.notes and kind.notes[flat] else ""
    text = f"{_element_name(kind, index)} is {fmt(got[index])} but should be {fmt(want[index])}"
    return f"{text}; {note}" if note else f"{text}."


def _judge_values(kind: Values, answer) -> list[str]:
    if isinstance(answer, dict):
        raise Unreadable(f"give {_wanted_values(kind)} as a list, an array or a tensor, not a dict.")
    if isinstance(answer, (list, tuple)) and answer and all(isinstance(item, str) for item in answer):
        raise Unreadable(f"that is a list of words (text in quotes); give {_wanted_values(kind)} instead.")
    array = _finite(read_numbers(answer, kind.booleans))
    want = np.asarray(kind.expected, dtype=np.float64)
    same_numbers = array.size == want.size and array.squeeze().shape == want.squeeze().shape
    if array.shape != want.shape and same_numbers:
        array = array.reshape(want.shape)  # e.g. a (1, 8) row for 8 numbers
    if array.shape != want.shape:
        for shape, hint in kind.shape_hints:
            if array.shape == tuple(shape):
                return [hint]
        got = _describe_shape(array.shape) if array.ndim else "one number"
        return [f"give {_wanted_values(kind)}; got {got}."]
    if kind.whole and not np.array_equal(array, np.round(array)):
        return ["every entry must be a whole number."]
    close = np.abs(array - want) <= kind.tolerance * (np.abs(want) if kind.relative else 1.0)
    if close.all():
        return []
    for mistake in kind.mistakes:
        tolerance = kind.tolerance if mistake.tolerance is None else mistake.tolerance
        value = np.asarray(mistake.value, dtype=np.float64)
        if value.shape == want.shape and (np.abs(array - value) <= tolerance).all():
            return [mistake.hint]
    if kind.allowed and not np.isin(array, kind.allowed).all():
        return [kind.allowed_hint]
    if kind.range_hint and ((kind.low is not None and array.min() < kind.low)
                            or (kind.high is not None and array.max() > kind.high)):
        return [kind.range_hint]
    reordered = array.ndim == 1 and np.allclose(np.sort(array), np.sort(want), atol=kind.tolerance)
    if kind.order_hint and reordered:
        return [kind.order_hint]
    wrong_at = [tuple(int(i) for i in index) for index in np.argwhere(~close)]
    if len(wrong_at) <= FEW:
        problems = [_element_problem(kind, index, array, want) for index in wrong_at]
    else:
        worst = np.unravel_index(int(np.argmax(np.abs(array - want))), want.shape)
        worst = tuple(int(i) for i in worst)
        problems = [f"{len(wrong_at)} of {want.size} entries are wrong; the worst: "
                    + _element_problem(kind, worst, array, want)]
    if kind.otherwise:
        problems.append(kind.otherwise)
    return problems


def _known_spelling(kind: Words, words: list[str]) -> list[str]:
    """Each word as the exercise spells it, when it is one of its words in other capitals ("Paris")."""
    known = [*kind.choices, *kind.expected, *(word for m in kind.mistakes for word in m.value),
             *(word for word, _ in kind.forbidden)]
    by_folded = {word.lower(): word for word in known}
    return [word if word in known else by_folded.get(word.lower(), word) for word in words]


def _judge_words(kind: Words, answer) -> list[str]:
    if isinstance(answer, str) or not isinstance(answer, (list, tuple)):
        count = len(kind.expected)
        raise Unreadable(f"give a list of {count} words, e.g. {_example_words(count)}.")
    words = list(answer)
    if not all(isinstance(word, str) for word in words):
        return ["every entry must be a word (a string in quotes), not a number or a row."]
    if len(words) != len(kind.expected):
        spaced = [word for word in words if len(word.split()) > 1]
        apart = f" (separate them with commas: '{spaced[0]}' is one entry)" if spaced else ""
        return [f"give exactly {len(kind.expected)} words; you gave {len(words)}{apart}."]
    words = _known_spelling(kind, words)
    if kind.choices:
        unknown = [word for word in words if word not in kind.choices]
        if unknown:
            return [f"unknown {kind.noun} {unknown[0]!r}; choose from: {', '.join(kind.choices)}."]
    for word, hint in kind.forbidden:
        if word in words:
            return [hint]
    same = words == list(kind.expected) if kind.ordered else sorted(words) == sorted(kind.expected)
    if same:
        return []
    for mistake in kind.mistakes:
        value = list(mistake.value)
        if words == value if kind.ordered else sorted(words) == sorted(value):
            return [mistake.hint]
    if kind.ordered and sorted(words) == sorted(kind.expected) and kind.order_hint:
        return [kind.order_hint]
    return [kind.otherwise]


def _judge_mapping(kind: Mapping, answer) -> list[str]:
    if not isinstance(answer, dict):
        raise Unreadable(f"give a dict {{{kind.key}: number}}, e.g. {{5: 1.0}}.")
    got = {}
    for key, value in answer.items():
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise Unreadable(f"every key must be a {kind.key} number (a whole number); {key!r} is not.")
        number = read_numbers(value)
        if number.size != 1:
            raise Unreadable(f"the value for {kind.key} {int(key)} must be one number.")
        got[int(key)] = float(_finite(number).reshape(-1)[0])
    expected = dict(kind.expected)
    problems = []
    for key, hint in kind.excluded:
        if got.pop(key, 0.0) != 0.0:
            problems.append(hint)
    got = {key: value for key, value in got.items() if value != 0.0}
    problems += [kind.missing.format(key=kind.key, k=key) for key in sorted(set(expected) - set(got))]
    problems += [kind.extra.format(key=kind.key, k=key) for key in sorted(set(got) - set(expected))]
    for key in sorted(set(got) & set(expected)):
        if _close(got[key], expected[key], kind.tolerance, kind.relative):
            continue
        hints = [hint for k, value, hint in kind.mistakes
                 if k == key and _close(got[key], value, kind.tolerance, kind.relative)]
        problems.append(hints[0] if hints else kind.otherwise.format(key=kind.key, k=key, got=fmt(got[key])))
    return problems


def _one_array(kind: Fields, answer) -> bool:
    """True when ``answer`` is a single array shaped like one of the parts, not a tuple of parts."""
    try:
        array = read_numbers(answer, booleans=True)
    except Unreadable:
        return False
    return any(isinstance(part, Values) and array.shape == part.shape for _, part in kind.parts)


def _judge_fields(kind: Fields, answer) -> list[str]:
    widths = kind.widths()
    count = sum(widths)
    numbers_only = all(isinstance(part, Number) for _, part in kind.parts)
    if isinstance(answer, (torch.Tensor, np.ndarray)) and numbers_only and to_numpy(answer).ndim == 1:
        answer = list(to_numpy(answer))  # a vector of numbers is a tuple of numbers
    if not numbers_only and isinstance(answer, (list, tuple)) and _one_array(kind, answer):
        answer = np.asarray(0.0)  # one matrix, e.g. the rows of ids read as (ids, mask)
    if isinstance(answer, (torch.Tensor, np.ndarray)):
        raise Unreadable(f"give the {'pair' if count == 2 else 'tuple'} {kind.what}: "
                         f"{count} separate values in a tuple, not one array or tensor.")
    if not isinstance(answer, (list, tuple)) or len(answer) != count:
        raise Unreadable(f"give the {'pair' if count == 2 else 'tuple'} {kind.what}.")
    problems, start = [], 0
    for (name, part), width in zip(kind.parts, widths, strict=True):
        flat_words = kind.flat and isinstance(part, Words)
        value = tuple(answer[start:start + width]) if flat_words else answer[start]
        start += width
        problems += [f"{name}: {problem}" for problem in judge(part, value)]
    return problems


# ---------------------------------------------------------------------- the JSON the website reads

def to_json(exercise: Exercise) -> dict:
    """The declaration as plain JSON data, for the website's self-check."""

    def plain(value):
        if isinstance(value, Mistake):
            return {"value": plain(value.value), "hint": value.hint, "tolerance": value.tolerance}
        if isinstance(value, (Number, Values, Words, Mapping, Fields)):
            data = {"kind": type(value).__name__.lower()}
            for name in value.__dataclass_fields__:
                data[name] = plain(getattr(value, name))
            return data
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, (tuple, list)):
            return [plain(item) for item in value]
        if isinstance(value, (np.integer, np.floating)):
            return value.item()
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"a declaration holds {value}; use finite numbers")
        return value

    return {"name": exercise.name, "label": exercise.label, "success": exercise.success,
            "answer": plain(exercise.answer)}
