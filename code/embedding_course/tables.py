"""Tables produced by code, for pages and notebooks: Markdown, always escaped.

A notebook, JupyterLab and the website all draw Markdown tables themselves; the package
writes no HTML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

_MARKDOWN_SPECIAL = set("\\`*_[]<>|#")


def escape_markdown(text: str) -> str:
    """Backslash-escape the characters Markdown would read as formatting (``*``, ``_``, ``|``...)."""
    return "".join("\\" + char if char in _MARKDOWN_SPECIAL else char for char in str(text))


def code_span(text: str) -> str:
    """``text`` as inline code that stays whole in a table cell: ``|`` escaped, backticks fenced."""
    text = str(text).replace("|", "\\|")  # GFM tables read \| as | even inside code
    runs = {len(run) for run in re.findall("`+", text)}  # a fence must match none of them
    fence = "`" * min(set(range(1, len(runs) + 2)) - runs)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence], bold_columns: Sequence[int] = ()) -> str:
    """A Markdown table; floats get 3 decimals, text is escaped. Show it with ``IPython.display.Markdown``.

    Args:
        headers: the column titles.
        rows: one sequence of cells per row, as many cells as headers.
        bold_columns: indices of columns written in bold.
    """
    if not headers:
        raise ValueError("headers is empty; a table needs at least one column")
    for number, row in enumerate(rows):
        if len(row) != len(headers):
            raise ValueError(f"row {number} has {len(row)} cells but there are {len(headers)} headers")
    bold = set(bold_columns)

    def cell(value, column: int | None = None) -> str:
        text = f"{value:.3f}" if isinstance(value, (float, np.floating)) else escape_markdown(value)
        return f"**{text}**" if column in bold else text

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "| " + " | ".join("---" for _ in headers) + " |"]
    lines += ["| " + " | ".join(cell(value, i) for i, value in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines)
