"""Reading time counts the prose a reader reads, and nothing else."""

from pathlib import Path

import pytest

from embedding_course import lesson_stats

PAGE = """---
kernelspec:
  name: python3
---

# Two words

Some prose with {glue:text}`count:.3f` items and a {numref}`fig-table` reference.

```{code-cell} ipython3
:tags: [remove-cell]

lots of code that nobody reads as prose
```

:::{admonition} Goals
:class: tip
Learn three things.
:::

```python
print("a listing")
```
"""


def test_counts_headings_prose_roles_and_admonitions_only():
    # "Two words" (2) + "Some prose with count items and a fig-table reference" (9)
    # + "Goals" (1) + "Learn three things" (3)
    assert lesson_stats.prose_words(PAGE) == 15
    assert "nobody" not in lesson_stats.prose(PAGE) and "listing" not in lesson_stats.prose(PAGE)


def test_a_site_only_markdown_cell_is_no_prose_of_the_lesson():
    note = '\n+++ {"tags": ["site-only"]}\n\n*A note about the website itself.*\n\n+++\n\nMore prose here.\n'
    assert lesson_stats.prose_words(PAGE + note) == 15 + 3
    before_code = '\n+++ {"tags": ["site-only"]}\n\nA note.\n\n```{code-cell} ipython3\nx = 1\n```\n'
    assert lesson_stats.prose_words(PAGE + before_code) == 15


def test_reading_minutes_is_words_over_speed():
    assert lesson_stats.reading_minutes(1000, 200) == 5
    assert lesson_stats.reading_minutes(0) == 0


@pytest.mark.parametrize("words, speed", [(-1, 200), (1.5, 200), (100, 0), (100, float("nan"))])
def test_bad_numbers_are_refused(words, speed):
    with pytest.raises(ValueError, match="must be"):
        lesson_stats.reading_minutes(words, speed)


@pytest.mark.parametrize(("page", "shown"), [
    (Path("book/intro.md"), r"\w*Path"), (3, "int"), (None, "NoneType"),
])
def test_a_page_must_be_text(page, shown):
    with pytest.raises(ValueError, match=rf"^markdown must be the page's text \(a str\), got {shown}; "
                                         r"read a file with Path\.read_text\(\)$"):
        lesson_stats.prose_words(page)


def test_every_lesson_has_hundreds_of_words():
    lessons = sorted((Path(__file__).resolve().parents[2] / "book" / "lessons").glob("*.md"))
    assert len(lessons) >= 9  # lessons 1-9
    assert all(lesson_stats.prose_words(page.read_text()) > 500 for page in lessons)


def test_a_column_s_total_is_the_sum_of_the_numbers_it_shows():
    """The instructors' page said "107 minutes in all" under a column of whole minutes that adds
    up to 106 (the sum of the unrounded minutes): the total is that of the numbers shown."""
    minutes = [10.4, 12.4, 9.4, 11.6]  # shown as 10, 12, 9, 12
    assert round(sum(minutes)) == 44 and lesson_stats.column_total(minutes) == 43
    assert lesson_stats.column_total([0.5, 1.5, 2.5]) == int(sum(float(f"{m:.0f}") for m in (0.5, 1.5, 2.5)))
    with pytest.raises(ValueError, match="values"):
        lesson_stats.column_total(3)
