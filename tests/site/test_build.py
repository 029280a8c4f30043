"""The build itself: strict, fresh and reproducible. Each test builds a tiny book that uses
the real configuration, extension and build script, so it fails the way the real book would."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO_ROOT

BUILD_SCRIPT = REPO_ROOT / "tools" / "build_book.py"
FRONT_MATTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def make_book(root: Path, page_body: str, probe_source: str = "VALUE = 1\n") -> Path:
    """A two-page book in ``root`` with the real _config.yml and extension; returns the page path."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "_config.yml", root / "_config.yml")
    (root / "_ext").symlink_to(REPO_ROOT / "_ext")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/page\n")
    (root / "book").mkdir()
    (root / "book" / "intro.md").write_text("# Tiny book\n\nA book for testing the build.\n")
    (root / "code").mkdir()
    (root / "code" / "probe.py").write_text(probe_source)
    page = root / "book" / "page.md"
    page.write_text(FRONT_MATTER + "\n# Page\n\n" + page_body)
    return page


def run_build(root: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(root / "code"))
    return subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), "--root", str(root), "--watch", "code"],
        cwd=root, env=environment, capture_output=True, text=True, timeout=600,
    )


def cell(source: str) -> str:
    return f"```{{code-cell}} ipython3\n{source}\n```\n\n"


def test_a_failing_cell_fails_the_build(tmp_path):
    make_book(tmp_path, cell("raise RuntimeError('this cell is broken on purpose')"))
    result = run_build(tmp_path)
    assert result.returncode != 0, "a cell raised, yet the build passed"
    assert "this cell is broken on purpose" in result.stdout + result.stderr


def test_a_warning_fails_the_build(tmp_path):
    make_book(tmp_path, "A link to {doc}`a page that does not exist <nowhere>`.\n")
    result = run_build(tmp_path)
    assert result.returncode != 0, "a broken reference only warned, yet the build passed"


@pytest.mark.parametrize("source", [
    "import warnings\nwarnings.warn('a warning inside a cell')",
    # stdout first: stderr must not hide inside a merged stream
    "import sys\nprint('some output')\nprint('a library warning', file=sys.stderr)",
], ids=["warning", "stderr-after-stdout"])
def test_a_cell_writing_to_stderr_fails_the_build(tmp_path, source):
    make_book(tmp_path, cell(source))
    result = run_build(tmp_path)
    assert result.returncode != 0, "a cell wrote to stderr, yet the build passed"
    assert "mystnb.stderr" in result.stdout + result.stderr


def test_a_package_change_shows_up_on_the_next_build(tmp_path):
    make_book(tmp_path, cell("import probe\nprint('probe value', probe.VALUE)"), "VALUE = 'first'\n")
    first = run_build(tmp_path)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    html = tmp_path / "_build" / "html" / "book" / "page.html"
    assert "probe value first" in html.read_text()

    unchanged = run_build(tmp_path)  # no change: served from the cache
    assert unchanged.returncode == 0
    assert "--all" not in unchanged.stdout

    (tmp_path / "code" / "probe.py").write_text("VALUE = 'second'\n")
    second = run_build(tmp_path)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert "re-executing every page" in second.stdout
    assert "probe value second" in html.read_text(), "the page still shows the old package's output"


def _digest_outputs(html_root: Path) -> dict[str, str]:
    files = [*html_root.glob("_images/*"), html_root / "book" / "page.html"]
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def test_two_clean_builds_give_identical_pages_and_figures(tmp_path):
    body = cell(
        "import numpy as np\nimport torch\nfrom embedding_course import plotting, positional\n"
        "torch.manual_seed(0)\nnoise = torch.randn(6, 8)\n"
        "plotting.heatmap(positional.sinusoidal_encoding(16, 8, device='cpu') + noise[:1], diverging=True)"
    ) + cell(
        "states = [[plotting.go.Scatter(y=np.sin(np.arange(10) * k))] for k in range(3)]\n"
        "plotting.slider_figure(states, ['a', 'b', 'c'])"
    )
    digests = []
    for name in ("first", "second"):
        make_book(tmp_path / name, body)
        result = run_build(tmp_path / name)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        digests.append(_digest_outputs(tmp_path / name / "_build" / "html"))
    assert len(digests[0]) >= 2, "the tiny book produced no figure"
    assert digests[0] == digests[1]


@pytest.mark.parametrize("script", ["--check"])
def test_notebooks_are_in_sync_with_their_pages(script):
    result = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "sync_notebooks.py"), script],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
