"""Figures are numbered per lesson on the site, as in the notebook twins: lesson 4's third figure
is "Fig. 4.3" in its caption and wherever the prose refers to it (``course_site.py``)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .conftest import REPO_ROOT

LESSONS = sorted((REPO_ROOT / "book" / "lessons").glob("[0-9][0-9]_*.md"))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda path: path.stem)
def test_a_lesson_numbers_its_figures_from_one_behind_its_own_number(lesson, built_site):
    html = (built_site / lesson.relative_to(REPO_ROOT).with_suffix(".html")).read_text()
    soup = BeautifulSoup(html, "html.parser")
    number = int(lesson.name[:2])
    captions = [" ".join(span.get_text().split()) for span in soup.select("figcaption .caption-number")]
    assert captions == [f"Fig. {number}.{index}" for index in range(1, len(captions) + 1)]
    figures = {figure["id"]: caption for figure, caption in zip(soup.select("figure[id]"), captions,
                                                                 strict=False)}
    for reference in soup.select("a.reference.internal[href^='#'] span.std-numref"):
        target = reference.find_parent("a")["href"][1:]
        if target in figures:
            assert " ".join(reference.get_text().split()) == figures[target], target
