"""How long a lesson takes: words of prose to read, and measured minutes to run.

For instructors planning a session (the "For instructors" page). Reading time is the prose's
word count at a stated reading speed; code, its output and figures are not counted, so it is a
floor for a careful reader. Running time comes from ``tools/lesson_times.py``, which runs
each lesson as a notebook and records its wall and CPU time.
"""

from __future__ import annotations

import re

from . import checks

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
FENCED_BLOCK = re.compile(r"^(`{3,}|:{3,})[^\n]*\n.*?^\1\s*$", re.DOTALL | re.MULTILINE)
OPTION_LINE = re.compile(r"^:[\w-]+:.*$", re.MULTILINE)
ROLE = re.compile(r"\{[\w:-]+\}`([^`]*)`")
WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
# A Markdown cell tagged site-only (``+++ {"tags": ["site-only"]}``): a note about the website
# itself, not the lesson's prose (and not in its notebook); it ends at the next cell.
SITE_ONLY_CELL = re.compile(r'^\+\+\+[ \t]*\{[^\n]*"site-only"[^\n]*\}[ \t]*\n.*?(?=^\+\+\+|^```|\Z)',
                            re.DOTALL | re.MULTILINE)


def prose(markdown: str) -> str:
    """A MyST page's text as a reader reads it: no front matter, code cells, code listings or
    site-only Markdown cells.

    Admonitions (``:::`` blocks) keep their text; a role keeps its target or glued value's name
    as one word.
    """
    text = SITE_ONLY_CELL.sub("", FRONT_MATTER.sub("", markdown))
    # Admonition fences (:::{note} Title) become their title; the text inside stays.
    text = re.sub(r"^:{3,}(?:\{[\w-]+\})?[ \t]*(.*)$", r"\1", text, flags=re.MULTILINE)
    text = FENCED_BLOCK.sub("", text)
    text = OPTION_LINE.sub("", text)
    return ROLE.sub(lambda match: match.group(1).split(":")[0], text)


def prose_words(markdown: str) -> int:
    """How many words of prose a MyST page holds."""
    if not isinstance(markdown, str):
        raise ValueError(f"markdown must be the page's text (a str), got {type(markdown).__name__}; "
                         "read a file with Path.read_text()")
    return len(WORD.findall(prose(markdown)))


def reading_minutes(words: int, words_per_minute: float = 200) -> float:
    """Minutes to read ``words`` at ``words_per_minute``."""
    words = checks.whole(words, "words", minimum=0)
    return words / checks.positive(words_per_minute, "words_per_minute")


def column_total(values) -> int:
    """The total of a column of a table that shows each value rounded to a whole number: the sum
    of the numbers shown, so that a reader who adds up the column finds it (the sum of the
    unrounded values can differ by a few: 107 minutes against a column of 106)."""
    values = checks.many(values, "values", "value", checks.non_negative)
    return sum(round(value) for value in values)
