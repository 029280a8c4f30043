"""Argument checks shared by every module: one rule, one exception type, one message.

Each check returns the value it accepted, converted (``int`` or ``float``), so a caller
writes ``dim = checks.whole(dim, "dim")``. The rules:

* a *whole number* is an ``int`` or a NumPy integer (``np.int64(3)`` is fine, and so is a 0-d
  tensor or array of one, as ``for p in torch.arange(4)`` gives); ``True`` and ``False`` are
  not numbers here, and neither are ``3.0`` or ``"3"``;
* a *seed* is a whole number ``>= 0`` (``checks.seed(seed)``);
* an *even* width is a whole number split into pairs (``checks.even(dim, "dim")``);
* a *number* is a whole number or a float (Python or NumPy), and must be finite;
* *many* items are a non-empty list, tuple, range, array or tensor of them, each checked
  (``checks.many(d_models, "d_models", "width", checks.whole)``); *named* items a non-empty
  mapping of names to them;
* a *text* is a ``str`` (``checks.text(word, "word")``); a *path* a ``str`` or any
  ``os.PathLike`` such as ``pathlib.Path`` (``checks.path(folder, "folder", "folder")``);
* a *choice* is one of the names a caller lists (``checks.one_of(scheme, "scheme", SCHEMES)``);
* an *array* is anything :func:`~embedding_course.device.to_numpy` reads (a list, an array,
  a tensor on any device, with or without a gradient), non-empty, of the expected rank;
* *token IDs* are an array of whole numbers from 0 to the vocabulary's size - 1
  (``checks.token_ids``);
* a wrong type or a value out of its range raises ``ValueError``; an index outside the
  rows it points into raises ``IndexError``, like ``list[99]`` does.

Every message reads ``<name> must be <rule>, got <value>``, with an optional hint after it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from embedding_course import device  # device.to_numpy; device's own checks import this module


def _fail(name: str, rule: str, value, hint: str = "") -> ValueError:
    return ValueError(f"{name} must be {rule}, got {value!r}" + (f" ({hint})" if hint else ""))


def _plain(value):
    """A 0-d tensor or array (``torch.tensor(3)``, ``np.array(3)``) as the Python number it holds."""
    return value.item() if getattr(value, "ndim", None) == 0 and hasattr(value, "item") else value


def is_whole(value) -> bool:
    """``True`` for an ``int``, a NumPy integer or a 0-d integer tensor; ``False`` for a bool and
    everything else."""
    value = _plain(value)
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_number(value) -> bool:
    """``True`` for a finite int, float, NumPy number or 0-d tensor of one; ``False`` for a bool,
    a string, NaN, inf."""
    value = _plain(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return math.isfinite(float(value))


def whole(value, name: str, minimum: int = 1, hint: str = "") -> int:
    """Check that ``value`` is a whole number ``>= minimum``.

    Args:
        value: the argument to check.
        name: the argument's name, for the message.
        minimum: the smallest allowed value (1 for sizes, 0 for counts that may be empty).
        hint: what the number means, added to the message.

    Returns:
        ``value`` as an ``int``.
    """
    value = _plain(value)
    if not is_whole(value) or value < minimum:
        raise _fail(name, f"a whole number >= {minimum}", value, hint)
    return int(value)


def seed(value, name: str = "seed") -> int:
    """Check that ``value`` is a seed: a whole number ``>= 0``, which NumPy and PyTorch both accept.

    Returns:
        ``value`` as an ``int``.
    """
    return whole(value, name, minimum=0, hint="any whole number >= 0 gives a repeatable draw")


def even(value, name: str, minimum: int = 2, hint: str = "") -> int:
    """Check that ``value`` is an even whole number ``>= minimum`` (a width split into pairs).

    An odd value's message names the even numbers either side of it.

    Returns:
        ``value`` as an ``int``.
    """
    value = whole(value, name, minimum, hint)
    if value % 2:
        nearest = " or ".join(str(n) for n in (value - 1, value + 1) if n >= minimum)
        raise _fail(name, "even", value, "; ".join(part for part in (hint, f"try {nearest}") if part))
    return value


def many(values, name: str, item: str, each=None, empty: bool = False) -> list:
    """Check that ``values`` holds one or more items, each checked with ``each`` when given.

    A list, tuple, range, array or tensor will do; a single string, number or mapping will not.

    Args:
        item: what one item is, for the messages (``"width"`` reads "a list of widths").
        each: a check called as ``each(value, "name[i]")``, e.g. :func:`whole`, or
            ``functools.partial(checks.one_of, allowed=...)``.
        empty: accept no items at all (``exclude=[]``: exclude nothing).

    Returns:
        The items as a list, as ``each`` returned them.
    """
    if (isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable)
            or getattr(values, "ndim", 1) == 0):
        raise _fail(name, f"a list of {item}s", values)
    items = list(values)
    if not items and not empty:
        raise ValueError(f"{name} is empty; give at least one {item}")
    return items if each is None else [each(value, f"{name}[{index}]") for index, value in enumerate(items)]


def named(values, name: str, item: str, each=None) -> dict:
    """Check that ``values`` maps one or more names to items, each checked with ``each`` when given.

    Returns:
        The mapping as a ``dict``, its items as ``each`` returned them.
    """
    if not isinstance(values, Mapping):
        raise _fail(name, f"a mapping of names to {item}s", values)
    if not values:
        raise ValueError(f"{name} is empty; give at least one name -> {item} pair")
    return {key: value if each is None else each(value, f"{name}[{key!r}]") for key, value in values.items()}


def text(value, name: str, hint: str = "") -> str:
    """Check that ``value`` is a string (it may be empty: a box a reader clears).

    The message names the type it got: ``text must be a string, got list ['the', 'cat']``.
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, got {type(value).__name__} {value!r}"
                         + (f" ({hint})" if hint else ""))
    return value


def path(value, name: str, what: str = "file") -> Path:
    """Check that ``value`` is a path (a ``str`` or an ``os.PathLike``) and return it as a ``Path``.

    ``what`` names what it points to, for the message: ``folder must be a folder's path (a str
    or a Path), got 8``. Whether it exists is for the caller to say.
    """
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise _fail(name, f"a {what}'s path (a str or a Path)", value)
    return Path(value)


def optional_whole(value, name: str, minimum: int = 1, hint: str = "") -> int | None:
    """:func:`whole`, or ``None`` when ``value`` is ``None``."""
    return None if value is None else whole(value, name, minimum, hint)


def number(value, name: str, above: float | None = None, below: float | None = None,
           hint: str = "") -> float:
    """Check that ``value`` is a finite number, ``> above`` and ``< below`` when they are given.

    Returns:
        ``value`` as a ``float``.
    """
    value = _plain(value)
    inside = is_number(value) and (above is None or value > above) and (below is None or value < below)
    if not inside:
        limits = [f"{sign} {bound:g}" for sign, bound in ((">", above), ("<", below)) if bound is not None]
        raise _fail(name, ("a finite number " + " and ".join(limits)).strip(), value, hint)
    return float(value)


def non_negative(value, name: str, hint: str = "") -> float:
    """Check that ``value`` is a finite number ``>= 0`` (a distance, a rounding error)."""
    value = _plain(value)
    if not is_number(value) or value < 0:
        raise _fail(name, "a finite number >= 0", value, hint)
    return float(value)


def positive(value, name: str, hint: str = "") -> float:
    """Check that ``value`` is a finite number ``> 0`` (a scale, a rate, a standard deviation)."""
    return number(value, name, above=0, hint=hint)


def optional_positive(value, name: str, hint: str = "") -> float | None:
    """:func:`positive`, or ``None`` when ``value`` is ``None``."""
    return None if value is None else positive(value, name, hint)


def probability(value, name: str, include_one: bool = False, hint: str = "") -> float:
    """Check that ``value`` is a probability: in [0, 1) (or [0, 1] with ``include_one``)."""
    value = _plain(value)
    inside = is_number(value) and (0 <= value <= 1 if include_one else 0 <= value < 1)
    if not inside:
        raise _fail(name, f"a probability in [0, 1{']' if include_one else ')'}", value, hint)
    return float(value)


def one_of(value, name: str, allowed, hint: str = ""):
    """Check that ``value`` is one of ``allowed`` (a scheme, a task, a layout: names the caller lists).

    Returns:
        ``value`` itself.
    """
    allowed = tuple(allowed)
    try:
        found = value in allowed
    except (TypeError, ValueError):  # e.g. an array, whose comparison is not one truth value
        found = False
    if not found:
        raise _fail(name, "one of " + ", ".join(str(choice) for choice in allowed), value, hint)
    return value


def index(value, name: str, size: int, of: str = "the valid range", from_end: bool = False) -> int:
    """Check that ``value`` is a whole number that picks one of ``size`` rows (0 .. size-1).

    Args:
        of: what the rows are, for the message: ``"the vocabulary"``, ``"the table"``.
        from_end: also allow ``-size .. -1``, counted from the end as a list does (-1 the last);
            the row returned is then ``value + size``.

    Raises:
        ValueError: if ``value`` is not a whole number.
        IndexError: if it is one, but outside ``0 .. size - 1``.
    """
    value = _plain(value)
    if not is_whole(value):
        raise _fail(name, "a whole number", value)
    if from_end and -size <= value < 0:
        value += size
    if not 0 <= value < size:
        counted_from_end = f", or -{size}..-1 from the end" if from_end else ""
        raise IndexError(f"{name} {value} is outside {of} (0..{size - 1}{counted_from_end})")
    return int(value)


def optional_index(value, name: str, size: int, of: str = "the valid range") -> int | None:
    """:func:`index`, or ``None`` when ``value`` is ``None`` (e.g. no padding row)."""
    return None if value is None else index(value, name, size, of)


def array(values, name: str, ndim: int | None = None, keep_float32: bool = False,
          finite: bool = False) -> np.ndarray:
    """Check that ``values`` is a non-empty array of numbers (of rank ``ndim``) and return it.

    Args:
        values: a list, a NumPy array or a tensor (read with ``device.to_numpy``).
        name: the argument's name, for the message.
        ndim: the required number of axes, or ``None`` for any.
        keep_float32: keep a float32 array as it is (a large table need not be copied to
            float64); otherwise the result is float64.
        finite: also reject NaN and infinite values.

    Returns:
        A float NumPy array.
    """
    result = device.to_numpy(values)
    if result.dtype.kind not in "biuf":  # bool, int, unsigned, float
        raise ValueError(f"{name} must hold numbers, got dtype {result.dtype}")
    if not (keep_float32 and np.issubdtype(result.dtype, np.floating)):
        result = result.astype(np.float64)
    if result.size == 0 or (ndim is not None and result.ndim != ndim):
        rank = f"{ndim}-D " if ndim is not None else ""
        raise ValueError(f"{name} must be a non-empty {rank}array, got shape {result.shape}")
    if finite and not np.all(np.isfinite(result)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return result


def vectors(values, name: str, ndim: int = 2) -> np.ndarray:
    """Embedding vectors: :func:`array` with finite values, float32 kept (one vector per row if 2-D)."""
    return array(values, name, ndim, keep_float32=True, finite=True)



def token_ids(values, vocab_size: int, ndim: int | None = None, name: str = "token id",
              of: str = "the vocabulary") -> np.ndarray:
    """Check token IDs (whole numbers in ``0 .. vocab_size - 1``) and return them as int64.

    Args:
        values: one ID, a (nested) list, a NumPy array or a tensor (any device, any integer dtype).
        vocab_size: the number of rows the IDs pick from.
        ndim: the required number of axes: 1 for (T,), 2 for a (B, T) batch; ``None`` for any.
        name: what one ID is, for the message: ``"token id"``, ``"position"``.
        of: what the rows are, for the message.

    Returns:
        An int64 NumPy array of the same shape.

    Raises:
        ValueError: empty or ragged input, a value that is not a whole number, a wrong rank.
        IndexError: an ID that is negative or not below ``vocab_size``.
    """
    vocab_size = whole(vocab_size, "vocab_size")
    try:
        ids = device.to_numpy(values)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name}s must form a rectangular array (equal-length rows): {error}") from None
    if ids.size == 0:
        raise ValueError(f"{name}s are empty; give at least one")
    if ids.dtype == bool:
        raise ValueError(f"{name}s must be whole numbers, got booleans")
    if not np.issubdtype(ids.dtype, np.integer):
        first = ids.flat[0]
        first = first.item() if isinstance(first, np.generic) else first
        if ids.dtype.kind == "f" and np.all(np.isfinite(ids)):
            fractions = ids[ids != np.round(ids)]
            if fractions.size:
                raise ValueError(f"{name}s must be whole numbers, got {float(fractions.flat[0])}")
            raise ValueError(f"{name}s must have an integer dtype, got {ids.dtype} (values like {first}); "
                             "convert with .astype(int) or .long()")
        if ids.dtype.kind in "USO":
            hint = "; turn words into ids with a vocabulary first" if name == "token id" else ""
            raise ValueError(f"{name}s must be whole numbers, got {first!r} (dtype {ids.dtype}){hint}")
        raise ValueError(f"{name}s must be whole numbers, got dtype {ids.dtype}")
    if ndim is not None and ids.ndim != ndim:
        shape = {1: "(T,)", 2: "(B, T) = (batch, tokens)"}.get(ndim, f"of {ndim} axes")
        hint = "; for one sentence use ids[None, :]" if ndim == 2 and ids.ndim == 1 else ""
        raise ValueError(f"{name}s must have shape {shape}, got shape {ids.shape}{hint}")
    ids = ids.astype(np.int64)
    negative = ids[ids < 0]
    if negative.size:
        raise IndexError(f"{name} {negative.flat[0]} is negative; {of} runs from 0 to {vocab_size - 1}")
    too_large = ids[ids >= vocab_size]
    if too_large.size:
        raise IndexError(f"{name} {too_large.flat[0]} is outside {of} (0..{vocab_size - 1})")
    return ids
