"""On the static site a live explorer leaves no code behind, and each page says once where they run."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .conftest import REPO_ROOT

PAGES = sorted(page for page in (REPO_ROOT / "book" / "lessons").glob("*.md")
               if "live.show(" in page.read_text())
NOTE = "The widget explorers of this page run in a live notebook"  # a site-only cell of the page


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.stem)
def test_explorer_cells_leave_one_short_note_and_no_code(page, built_site):
    html = built_site / page.relative_to(REPO_ROOT).with_suffix(".html")
    article = BeautifulSoup(html.read_text(), "html.parser").find("article")
    text = article.get_text(" ")
    assert "live.show(" not in text, "an explorer's code is on the static page"
    assert " ".join(text.split()).count(NOTE) == 1, "the page should say once that its explorers run live"
