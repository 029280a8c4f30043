"""Which package modules a page runs: the import graph that decides what a build re-executes."""

from __future__ import annotations

from pathlib import Path

import pytest
from page_dependencies import module_index, page_hashes, page_modules, page_reads

from .conftest import FRONT_MATTER, REPO_ROOT, code_cell


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def page(root: Path, *sources: str) -> Path:
    cells = "".join(code_cell(source) for source in sources)
    return write(root / "book" / "page.md", FRONT_MATTER + "\n# Page\n\n" + cells)


def tiny_package(root: Path) -> dict[str, Path]:
    code = root / "code"
    write(code / "pkg" / "__init__.py", "SEED = 0\n")
    write(code / "pkg" / "plotting.py", "from . import web\n")
    write(code / "pkg" / "web.py", "import json\n")
    write(code / "pkg" / "glove.py", "from .plotting import style\nfrom pkg.similarity import cosine\n")
    write(code / "pkg" / "similarity.py", "")
    write(code / "pkg" / "live" / "__init__.py", "from ..web import glue\n")
    write(code / "pkg" / "live" / "glove.py", "from .. import glove\n")
    write(code / "pkg" / "unused.py", "")
    return module_index(code)


def test_index_names_modules_and_packages(tmp_path):
    index = tiny_package(tmp_path)
    assert index["pkg"].name == "__init__.py"
    assert index["pkg.live.glove"] == tmp_path / "code" / "pkg" / "live" / "glove.py"


def test_imports_are_followed_through_relative_and_absolute_imports(tmp_path):
    index = tiny_package(tmp_path)
    modules = page_modules(page(tmp_path, "from pkg.live import glove as live_glove"), index)
    assert modules == {"pkg", "pkg.live", "pkg.live.glove", "pkg.glove", "pkg.plotting", "pkg.web",
                       "pkg.similarity"}


def test_from_package_import_module_counts_the_module(tmp_path):
    index = tiny_package(tmp_path)
    modules = page_modules(page(tmp_path, "from pkg import similarity, SEED"), index)
    assert modules == {"pkg", "pkg.similarity"}
    assert page_modules(page(tmp_path, "import json"), index) == set()


def test_a_cell_that_is_not_plain_python_depends_on_everything(tmp_path):
    index = tiny_package(tmp_path)
    assert page_modules(page(tmp_path, "import pkg", "%timeit pkg.SEED"), index) == set(index)


def test_page_hash_changes_only_with_the_modules_the_page_runs(tmp_path):
    tiny_package(tmp_path)
    page(tmp_path, "from pkg import similarity")
    before = page_hashes(tmp_path, tmp_path / "code")
    write(tmp_path / "code" / "pkg" / "unused.py", "X = 1\n")
    assert page_hashes(tmp_path, tmp_path / "code") == before
    write(tmp_path / "code" / "pkg" / "similarity.py", "X = 1\n")
    assert page_hashes(tmp_path, tmp_path / "code") != before


def test_a_page_depends_on_the_files_its_front_matter_says_it_reads(tmp_path):
    tiny_package(tmp_path)
    front_matter = FRONT_MATTER.removesuffix("---\n")
    reads = "course:\n  reads: [notes/*.txt, data.json]\n---\n\n# Page\n\n"
    page_path = write(tmp_path / "book" / "page.md", front_matter + reads + code_cell("import pkg"))
    for name in ("notes/a.txt", "notes/b.txt", "data.json", "other.txt"):
        write(tmp_path / name, "one\n")
    reads = [path.relative_to(tmp_path).as_posix() for path in page_reads(page_path, tmp_path)]
    assert reads == ["notes/a.txt", "notes/b.txt", "data.json"]
    before = page_hashes(tmp_path, tmp_path / "code")
    write(tmp_path / "other.txt", "two\n")
    assert page_hashes(tmp_path, tmp_path / "code") == before
    write(tmp_path / "notes" / "b.txt", "two\n")
    assert page_hashes(tmp_path, tmp_path / "code") != before
    (tmp_path / "data.json").unlink()
    with pytest.raises(ValueError, match=r"'data\.json' matches no file"):
        page_hashes(tmp_path, tmp_path / "code")
    write(page_path, front_matter + "course:\n  reads: data.json\n---\n")
    with pytest.raises(ValueError, match="must be a list of paths or patterns"):
        page_reads(page_path, tmp_path)


def test_the_instructors_page_runs_again_when_a_lesson_s_words_change():
    reads = page_reads(REPO_ROOT / "book" / "about" / "instructors.md", REPO_ROOT)
    assert REPO_ROOT / "book" / "lessons" / "09_questions.md" in reads
    assert REPO_ROOT / "book" / "about" / "lesson_times.json" in reads


def test_every_lesson_runs_the_modules_it_is_about():
    index = module_index(REPO_ROOT / "code")
    lessons = REPO_ROOT / "book" / "lessons"
    assert "embedding_course.glove" in page_modules(lessons / "06_seeing_embeddings.md", index)
    assert "embedding_course.rope" in page_modules(lessons / "04_sinusoidal_positions.md", index)
    assert "embedding_course.glove" not in page_modules(lessons / "02_one_hot.md", index)
