"""A fork changes the repository's address in one place, _config.yml, and nothing else names
the old one: tools/sync_repository.py (which `make` runs before every build) writes the copies."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from .conftest import REPO_ROOT

TOOL = REPO_ROOT / "tools" / "sync_repository.py"
NEW_URL = "https://github.com/another-school/embeddings-term-2"
MAY_NAME_IT = {"README.md", "CHANGELOG.md"}  # as text, for people


def current_repository() -> str:
    return yaml.safe_load((REPO_ROOT / "_config.yml").read_text())["repository"]["url"]


def sync(root: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), "--root", str(root), *arguments],
                          capture_output=True, text=True)


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of the checkout's files (tracked and new, not ignored ones)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if source.is_file():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tmp_path / name)
    return tmp_path


def files_naming(root: Path, text: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            try:
                if text in path.read_text():
                    found.append(path.relative_to(root).as_posix())
            except UnicodeDecodeError:
                continue
    return sorted(found)


def test_the_checkout_is_in_step_with_its_config():
    result = sync(REPO_ROOT, "--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_fork_changes_one_line_and_no_file_names_the_old_repository(checkout):
    old = current_repository()
    old_site = "https://{}.github.io/{}/".format(*old.removeprefix("https://github.com/").split("/"))
    assert files_naming(checkout, old)  # the copies are there to be rewritten
    config_before = (checkout / "_config.yml").read_text().splitlines()

    result = sync(checkout, "--url", NEW_URL)
    assert result.returncode == 0, result.stdout + result.stderr

    config_after = (checkout / "_config.yml").read_text().splitlines()
    changed = [(a, b) for a, b in zip(config_before, config_after, strict=True) if a != b]
    assert changed == [(f"  url: {old}", f"  url: {NEW_URL}")]
    assert set(files_naming(checkout, old)) <= MAY_NAME_IT
    assert set(files_naming(checkout, old_site)) <= MAY_NAME_IT
    assert sync(checkout, "--check").returncode == 0

    pages = [p for p in (checkout / "book").rglob("*.md") if "\nkernelspec:" in p.read_text()[:600]]
    assert pages
    for page in pages:
        twin = nbformat.read(page.with_suffix(".ipynb"), as_version=4)
        setup = next(cell.source for cell in twin.cells if cell.cell_type == "code")
        assert f'REPOSITORY = "{NEW_URL}"' in setup, page.name
        assert f'REPOSITORY = "{NEW_URL}"' in page.read_text(), page.name
    citation = yaml.safe_load((checkout / "CITATION.cff").read_text())
    assert citation["repository-code"] == NEW_URL
    assert citation["url"] == "https://another-school.github.io/embeddings-term-2/"


def test_a_site_published_elsewhere_names_its_own_address(checkout):
    config = checkout / "_config.yml"
    elsewhere = "https://courses.example.org/embeddings"
    config.write_text(config.read_text().replace("html:\n", f"html:\n  baseurl: {elsewhere}\n", 1))
    assert sync(checkout).returncode == 0
    assert yaml.safe_load((checkout / "CITATION.cff").read_text())["url"] == elsewhere + "/"


def test_a_repository_off_github_needs_the_site_address(checkout):
    result = sync(checkout, "--url", "https://gitlab.com/another-school/embeddings")
    assert result.returncode == 1
    assert "set html.baseurl" in result.stderr


def test_a_wrong_address_is_refused(checkout):
    result = sync(checkout, "--url", "github.com/another-school")
    assert result.returncode == 1 and "https address" in result.stderr


def test_dependabot_configuration_has_no_zizmor_findings():
    result = subprocess.run([str(Path(sys.executable).parent / "zizmor"), "--offline",
                             str(REPO_ROOT / ".github" / "dependabot.yml")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
