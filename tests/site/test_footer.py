"""Every page's footer says which licence covers what, and which version and commit it is."""

from __future__ import annotations

import re
import sys

import pytest

from .conftest import REPO_ROOT, toc_docnames

sys.path.insert(0, str(REPO_ROOT / "_ext"))
import release_info


@pytest.mark.parametrize("docname", toc_docnames())
def test_footer_names_licences_version_and_commit(built_site, docname):
    page = (built_site / f"{docname}.html").read_text()
    footer = page[page.rindex("course-build-info"):]
    assert re.search(r'<a href="[^"]*/LICENSE">MIT</a>', page)
    assert re.search(r'<a href="[^"]*/LICENSE-CONTENT">CC BY 4\.0</a>', page)
    assert "GloVe 6B (PDDL)" in page and "all-MiniLM-L6-v2 (Apache-2.0)" in page
    commit = r"(?:<a [^>]*>)?<code>([0-9a-f]{12}(?:\+changes)?|unknown)</code>"
    match = re.search(r"Version ([\d.]+), built from commit " + commit, footer)
    assert match is not None, footer[:400]
    assert match.group(1) == release_info.version(REPO_ROOT)
