"""Tables made by code: escaped, and clear about bad shapes."""

import pytest

from embedding_course import tables


def test_markdown_table_escapes_and_formats():
    text = tables.markdown_table(["word", "score"], [["a|b", 0.12345]], bold_columns=[1])
    assert text.splitlines() == ["| word | score |", "| --- | --- |", "| a\\|b | **0.123** |"]


def test_html_table_escapes_cells():
    html = tables.html_table(["token"], [["<unk>"]])
    assert "<td>&lt;unk&gt;</td>" in html and html.startswith('<table class="table">')


@pytest.mark.parametrize("make", [tables.markdown_table, tables.html_table])
def test_tables_reject_ragged_rows_and_no_headers(make):
    with pytest.raises(ValueError, match="row 0 has 2 cells but there are 1 headers"):
        make(["a"], [[1, 2]])
    with pytest.raises(ValueError, match="headers is empty"):
        make([], [])
