"""Tables made by code: escaped, and clear about bad shapes."""

import re
from pathlib import Path

import pytest

from embedding_course import tables


def test_markdown_table_escapes_and_formats():
    text = tables.markdown_table(["word", "score"], [["a|b", 0.12345]], bold_columns=[1])
    assert text.splitlines() == ["| word | score |", "| --- | --- |", "| a\\|b | **0.123** |"]


def test_markdown_table_escapes_what_html_would_read():
    assert tables.markdown_table(["token"], [["<unk>"]]).splitlines()[-1] == "| \\<unk\\> |"


@pytest.mark.parametrize(("text", "span"), [
    ("the", "`the`"),
    ("<pad>", "`<pad>`"),  # code shows < and > as they are
    ("a | b", "`a \\| b`"),  # a table cell would end at a bare |
    ("`", "`` ` ``"),  # a fence longer than any backtick run inside, spaced from one at an edge
    ("x``y", "`x``y`"),
])
def test_code_span_survives_a_table_cell(text, span):
    assert tables.code_span(text) == span


def test_tables_reject_ragged_rows_and_no_headers():
    with pytest.raises(ValueError, match="row 0 has 2 cells but there are 1 headers"):
        tables.markdown_table(["a"], [[1, 2]])
    with pytest.raises(ValueError, match="headers is empty"):
        tables.markdown_table([], [])


def test_the_package_writes_no_html():
    """Tables and figures leave the package as data, Markdown or figure objects; the site draws them.

    (Plotly's own label markup, ``<br>`` in a hover template, is part of a figure object.)
    """
    package = Path(tables.__file__).parent
    html = re.compile(r"<(table|thead|tbody|tr|td|th|div|span|p)\b|_repr_html_|display import HTML")
    writers = [f"{path.relative_to(package)}:{number}"
               for path in sorted(package.rglob("*.py"))
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if html.search(line)]
    assert writers == []
