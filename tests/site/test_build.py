"""The build itself: strict, fresh and reproducible. Each test builds a tiny book that uses
the real configuration, extension and build script, so it fails the way the real book would."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import build_book  # tools/, on the path (conftest.py)
import pytest
import yaml

from embedding_course.device import build_info

from .conftest import FRONT_MATTER, REPO_ROOT, code_cell, toc_docnames

BUILD_SCRIPT = REPO_ROOT / "tools" / "build_book.py"

def make_book(root: Path, page_body: str, probe_source: str = "VALUE = 1\n",
              modules: dict[str, str] | None = None, pages: dict[str, str] | None = None) -> Path:
    """A tiny book in ``root`` with the real _config.yml and extension; returns the page path.

    It has an intro, ``book/page.md`` (``page_body``) and any other ``pages`` (name: body),
    and the package folder ``code/`` holds ``probe.py`` and any other ``modules``.
    """
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "_config.yml", root / "_config.yml")
    (root / "_ext").symlink_to(REPO_ROOT / "_ext")
    shutil.copytree(REPO_ROOT / "book" / "images", root / "book" / "images")
    pages = {"page": page_body, **(pages or {})}
    chapters = "".join(f"  - file: book/{name}\n" for name in pages)
    (root / "_toc.yml").write_text(f"format: jb-book\nroot: book/intro\nchapters:\n{chapters}")
    (root / "book" / "intro.md").write_text("# Tiny book\n\nA book for testing the build.\n")
    for name, body in pages.items():
        (root / "book" / f"{name}.md").write_text(FRONT_MATTER + f"\n# {name.title()}\n\n" + body)
    (root / "code").mkdir()
    shutil.copy(REPO_ROOT / "code" / "pyproject.toml", root / "code")  # the version the footer shows
    for name, source in {"probe": probe_source, **(modules or {})}.items():
        (root / "code" / f"{name}.py").write_text(source)
    return root / "book" / "page.md"


def run_build(root: Path) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(root / "code"))
    return subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), "--root", str(root)],
        cwd=root, env=environment, capture_output=True, text=True, timeout=600,
    )


# Pages that each break the build in their own way, in two tiny books built once each: a cell
# that fails stops the build before Sphinx renders, and a warning fails the rendering. Each book
# reports every broken page, so each test reads its own page's failure.
FAILING_PAGES = {
    "page": "import time\ntime.sleep(3)\nraise RuntimeError('broken on purpose')",
    "raises": "raise RuntimeError('this cell is broken on purpose')",
    # a message the notebook client cannot handle: it only logs it, which Sphinx never sees
    "client_warning": "from comm import create_comm\ncreate_comm(target_name='nobody.listens')",
}
WARNING_PAGES = {
    "page": "A link to {doc}`a page that does not exist <nowhere>`.\n",
    "warns": code_cell("import warnings\nwarnings.warn('a warning inside a cell')"),
    # stdout first: stderr must not hide inside a merged stream
    "stderr_after_stdout": code_cell("import sys\nprint('some output')\n"
                                "print('a library warning', file=sys.stderr)"),
    # the site serves no widget manager: a widget shown while building would be a blank box
    "widget": code_cell("import ipywidgets\nipywidgets.IntSlider(value=3)"),
}


def build_broken_book(root: Path, pages: dict[str, str]) -> tuple[str, int, Path]:
    make_book(root, pages["page"], pages={name: body for name, body in pages.items() if name != "page"})
    environment = dict(os.environ, PYTHONPATH=str(root / "code"))
    try:  # a Sphinx left waiting would hold the output pipe open: the build would never end
        result = subprocess.run([sys.executable, str(BUILD_SCRIPT), "--root", str(root)], cwd=root,
                                env=environment, capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail("the build did not end: a Sphinx process still waits for pages that failed")
    return result.stdout + result.stderr, result.returncode, root


@pytest.fixture(scope="module")
def failing_build(tmp_path_factory):
    """(output, return code, root) of a tiny book whose pages' cells fail."""
    return build_broken_book(tmp_path_factory.mktemp("failing"),
                             {name: code_cell(source) for name, source in FAILING_PAGES.items()})


@pytest.fixture(scope="module")
def warning_build(tmp_path_factory):
    """(output, return code, root) of a tiny book whose pages' rendering warns."""
    return build_broken_book(tmp_path_factory.mktemp("warning"), WARNING_PAGES)


def failure_of(output: str, page: str) -> str:
    """What the build reported for one page: its execution failure or its warning lines."""
    marker = f"book/{page}.md:"
    assert marker in output, f"the build reported nothing for {page}:\n{output[-3000:]}"
    if f"\n{marker}\n" in f"\n{output}":  # an execution failure: 'book/NAME.md:' then the traceback
        report = output.split(f"{marker}\n", 1)[1]
        return re.split(r"\nbook/\w+\.md:\n", report, maxsplit=1)[0]
    return "\n".join(line for line in output.splitlines() if marker in line)


def test_a_failing_cell_fails_the_build(failing_build):
    output, returncode, _ = failing_build
    assert returncode != 0, "cells raised, yet the build passed"
    assert "this cell is broken on purpose" in failure_of(output, "raises")


def test_a_notebook_client_warning_fails_the_build(failing_build):
    expected = "the notebook client reported: No handler found for comm target 'nobody.listens'"
    assert expected in failure_of(failing_build[0], "client_warning")


def test_a_failing_page_stops_the_sphinx_that_waits_for_it(failing_build):
    output, returncode, root = failing_build
    assert returncode != 0 and "broken on purpose" in failure_of(output, "page")
    waiting = subprocess.run(["pgrep", "-f", f"jupyter_book.*{root}"], capture_output=True, text=True)
    assert waiting.stdout == "", "a Sphinx process still waits for pages that failed"


def test_a_warning_fails_the_build(warning_build):
    output, returncode, _ = warning_build
    assert returncode != 0, "a broken reference only warned, yet the build passed"
    assert "nowhere" in failure_of(output, "page")


@pytest.mark.parametrize("page", ["warns", "stderr_after_stdout"])
def test_a_cell_writing_to_stderr_fails_the_build(warning_build, page):
    assert "mystnb.stderr" in failure_of(warning_build[0], page)


def test_a_widget_shown_while_building_fails_the_build(warning_build):
    assert "displayed an ipywidget while the page was built" in failure_of(warning_build[0], "widget")


# Each execution of the other page prints a new number, so a re-execution shows in its HTML.
STAMP_CELL = code_cell("import other, time\nprint('other', other.VALUE, 'run', time.time_ns())")
ARITHMETIC_PROBE = code_cell(
    "import os, torch\n"
    "print('kernels', torch.backends.cpu.get_cpu_capability(), 'threads', torch.get_num_threads(),\n"
    "      'mkl', os.environ.get('MKL_CBWR'))")


def _text(root: Path, name: str) -> str:
    return (root / "_build" / "html" / "book" / f"{name}.html").read_text()


@pytest.fixture(scope="module")
def life(tmp_path_factory):
    """One tiny book through the life of a course: built cold, rebuilt unchanged, then after an
    edit to each kind of file, and cold again. Each stage: (build output, each page's HTML)."""
    root = tmp_path_factory.mktemp("life")
    make_book(root, code_cell("import probe\nprint('probe value', probe.VALUE)") + ARITHMETIC_PROBE,
              "from helper import WORD\nVALUE = 'first ' + WORD\n",
              modules={"helper": "WORD = 'one'\n", "other": "VALUE = 'a'\n"},
              pages={"other": STAMP_CELL,
                     "slow": code_cell("import time\ntime.sleep(2)\nprint('slow page', 'done')")})
    (root / "_ext").unlink()  # a copy, to edit: the real extension stays as it is
    shutil.copytree(REPO_ROOT / "_ext", root / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    for shared in ("tools", ".vendor"):  # what the extension finds beside itself
        (root / shared).symlink_to(REPO_ROOT / shared)
    edits = {
        "cold": lambda: None,
        "unchanged": lambda: None,
        # helper.py is imported by probe.py, which the page imports: only that page runs again
        "helper": lambda: (root / "code" / "helper.py").write_text("WORD = 'two'\n"),
        "other": lambda: (root / "code" / "other.py").write_text("VALUE = 'b'\n"),
        "style": lambda: append(root / "_ext" / "static" / "course.css",
                                "\n.a-rule-added-for-this-test { color: teal }\n"),
        # the site's extension renders; it runs no page
        "site code": lambda: append(root / "_ext" / "first_paint.py", "\n# an edit to the site's code\n"),
        # the theme only renders too (a component that every page's sidebar holds)
        "theme": lambda: append(root / "_ext" / "course_theme" / "components" / "search-button-field.html",
                                THEME_EDIT),
        "configuration": lambda: append(root / "_config.yml", "# changed\n"),
        "cold again": lambda: shutil.rmtree(root / "_build"),
    }
    stages = {}
    for stage, edit in edits.items():
        edit()
        result = run_build(root)
        assert result.returncode == 0, f"{stage}: {result.stdout[-3000:]}{result.stderr[-3000:]}"
        history = json.loads((root / build_book.HISTORY_FILE).read_text())
        pages = {name: _text(root, name) for name in ("page", "other", "slow")}
        stages[stage] = (result.stdout, pages, history)
        if stage == "cold":
            stages["build-info"] = json.loads((root / "_build" / "build-info.json").read_text())
        if stage == "style":
            stages["stylesheet"] = (root / "_build/html/_static/styles/course-site.css").read_text()
    return stages


THEME_EDIT = "<!-- an edit to the theme for this test -->\n"


def append(path: Path, text: str) -> None:
    with path.open("a") as file:
        file.write(text)


def _stamp(html: str) -> str:
    return re.search(r"other \w run \d+", html).group(0)


def test_a_package_change_shows_up_on_the_next_build(life):
    output, html, _ = life["cold"]
    assert "probe value first one" in html["page"]
    # Where the pages ran, as the build's workers found it, is in every page's footer.
    machine = life["build-info"]
    assert machine == build_info()
    assert (f'Pages executed on <b>{machine["device"]}</b> ({machine["device_name"]}) '
            f'with PyTorch {machine["torch"]}') in html["page"]
    unchanged, _, _ = life["unchanged"]  # no change: served from the cache
    assert "--all" not in unchanged and "re-executing" not in unchanged
    output, html, _ = life["helper"]
    assert "re-executing book/page.md\n" in output
    assert "probe value first two" in html["page"], "the page still shows the old package's output"


def test_a_package_change_re_executes_only_the_pages_that_run_it(life):
    assert _stamp(life["helper"][1]["other"]) == _stamp(life["cold"][1]["other"]), (
        "a page that does not run helper.py was re-executed")
    output, html, _ = life["other"]
    assert "re-executing book/other.md\n" in output
    assert "other b run" in html["other"] and "probe value first two" in html["page"]
    output, html, _ = life["configuration"]  # a configuration change re-executes everything
    assert "re-executing every page" in output
    assert _stamp(html["other"]) != _stamp(life["site code"][1]["other"])


def test_an_edit_to_the_site_s_extension_rewrites_the_pages_without_running_them(life):
    """The site's Python only renders (``RENDERING`` in build_book.py): no page runs again."""
    output, html, _ = life["site code"]
    assert "rewriting every page" in output and "re-executing" not in output
    assert _stamp(html["other"]) == _stamp(life["style"][1]["other"]), "the page was executed again"


def test_an_edit_to_the_theme_rewrites_the_pages_without_running_them(life):
    """A template of the course's theme only renders: the edit shows on every page at once."""
    output, html, _ = life["theme"]
    assert "rewriting every page" in output and "re-executing" not in output
    assert all(THEME_EDIT.strip() in page for page in html.values()), "a page does not show the edit"
    assert _stamp(html["other"]) == _stamp(life["site code"][1]["other"]), "the page was executed again"


def test_a_style_change_rewrites_the_pages_without_running_them(life):
    """An edit to the site's own CSS or JavaScript shows on the next build; no page re-runs."""
    output, html, _ = life["style"]
    assert "rewriting every page" in output and "re-executing" not in output
    assert ".a-rule-added-for-this-test" in life["stylesheet"]
    before = life["other"][1]["other"]
    assert _stamp(html["other"]) == _stamp(before), "the page was executed again"
    assert _stylesheet(html["other"]) != _stylesheet(before)  # the link carries the new version


def _stylesheet(html: str) -> str:
    return re.search(r'href="[^"]*course-site\.css\?v=(\w+)"', html).group(1)


def test_a_cold_build_links_the_stylesheet_as_a_rebuild_does(life):
    """The stylesheet's version follows the sheets alone: a cold build and a build that writes
    the pages over an earlier build's output link the same version (MyST-NB copies its sheet at
    the end of a build, so a cold build once counted it by its name only)."""
    rewritten, cold = life["configuration"][1]["page"], life["cold again"][1]["page"]
    assert _stylesheet(cold) == _stylesheet(rewritten)
    assert _stylesheet(life["site code"][1]["page"]) == _stylesheet(life["style"][1]["page"])


def test_the_pages_run_their_arithmetic_on_one_path_on_every_x86_machine(life, tmp_path, monkeypatch):
    # AVX-512 kernels, MKL's per-processor paths, OpenBLAS's per-core kernels and the thread
    # count all change rounding; a build repeats itself on one machine only on one path.
    for name in [*build_book.SAME_ON_EVERY_CPU, *build_book.SAME_ON_EVERY_AVX2_CPU]:
        monkeypatch.delenv(name, raising=False)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f avx512bw\n")
    assert build_book.arithmetic_paths(cpuinfo) == {
        "MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "ATEN_CPU_CAPABILITY": "avx2", "OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx\n")
    assert build_book.arithmetic_paths(cpuinfo) == {"MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "1",
                                                    "MKL_NUM_THREADS": "1"}
    assert "ATEN_CPU_CAPABILITY" not in build_book.arithmetic_paths(tmp_path / "absent")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a variable already set wins
    assert build_book.arithmetic_paths(cpuinfo)["OMP_NUM_THREADS"] == "3"
    monkeypatch.delenv("OMP_NUM_THREADS")

    expected = build_book.arithmetic_paths()
    probe = re.search(r"kernels (\w+) threads (\d+) mkl (\w+)", life["cold"][1]["page"])
    kernels, threads, mkl = probe.groups()
    assert (threads, mkl) == ("1", "COMPATIBLE")
    if "ATEN_CPU_CAPABILITY" in expected:
        assert kernels == "AVX2"


def test_a_cold_build_starts_the_slowest_page_of_the_last_build_first(life, tmp_path):
    sizes = {"short.md": 900, "long.md": 100, "new_small.md": 10, "new_big.md": 50}
    for name, size in sizes.items():
        (tmp_path / name).write_text("x" * size)
    history = {"short.md": 2.0, "long.md": 14.0, "gone.md": 99.0}
    pages = sorted((tmp_path / name for name in sizes),
                   key=lambda page: build_book.slowest_first(tmp_path, page, history))
    # pages never timed first (the bigger first), then by their last time, longest first
    assert [page.name for page in pages] == ["new_big.md", "new_small.md", "long.md", "short.md"]

    recorded = life["cold"][2]
    assert set(recorded) == {"book/page.md", "book/other.md", "book/slow.md"}
    assert all(seconds > 0 for seconds in recorded.values())
    output, _, kept = life["cold again"]  # a cold build keeps what the last one measured
    assert "executing 3 page(s)" in output and set(kept) == set(recorded)


def test_sphinx_starts_once_every_page_has_run(life):
    """No handshake between the build and the site's extension: Sphinx simply starts later."""
    output, html, _ = life["cold"]
    assert output.index("executed book/slow.md") < output.index("build_book: jupyter-book build")
    assert "slow page done" in html["slow"]


# A wall-clock time in a cell's output ("in 59.8 s"): the one thing two builds on one machine
# write differently.
WALL_CLOCK = re.compile(r"\b\d+(?:\.\d+)?\s+(?:s|secs?|seconds|ms|min|minutes)\b")


def test_only_the_pages_the_build_page_names_print_a_wall_clock_time(built_site):
    """The build page says two builds give bit-identical pages but for the times that lesson 7's
    and lesson 8's experiments print: no other page's cell output prints one."""
    printing = set()
    for docname in toc_docnames():
        html = (built_site / f"{docname}.html").read_text()
        for output in re.findall(r'<div class="cell_output[^"]*">(.*?)</div>\s*</div>', html, re.S):
            if WALL_CLOCK.search(re.sub(r"<[^>]+>", "", output)):
                printing.add(Path(docname).name)
    assert printing == {"07_length_generalisation", "08_rotary_positions"}, printing
    claim = " ".join((built_site / "book" / "about" / "build.html").read_text().split())
    assert "but for how long lesson 7’s and lesson 8’s experiments took" in claim


def _digest_outputs(html_root: Path) -> dict[str, str]:
    files = [*html_root.glob("_images/*"), *html_root.glob("_static/figures/**/*.json"),
             html_root / "book" / "page.html"]
    return {f.relative_to(html_root).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


def test_two_clean_builds_give_identical_pages_and_figures(tmp_path):
    body = code_cell(
        "import numpy as np\nimport torch\nfrom embedding_course import plotting, positional\n"
        "torch.manual_seed(0)\nnoise = torch.randn(6, 8)\n"
        "plotting.heatmap(positional.sinusoidal_encoding(16, 8, device='cpu') + noise[:1], diverging=True)"
    ) + code_cell(
        "states = [[plotting.go.Scatter(y=np.sin(np.arange(10) * k))] for k in range(3)]\n"
        "plotting.slider_figure(states, ['a', 'b', 'c'])"
    ) + code_cell(  # two stream messages from the kernel: how a cell's printing is split varies
        "import sys, time\nprint('first line'); sys.stdout.flush(); time.sleep(0.3); print('second line')"
    )
    digests = []
    for name in ("first", "second"):
        make_book(tmp_path / name, body)
        result = run_build(tmp_path / name)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        digests.append(_digest_outputs(tmp_path / name / "_build" / "html"))
    assert len(digests[0]) >= 3, "the tiny book produced no figure"
    assert digests[0] == digests[1]
    # However the kernel split a cell's printing, the page shows it as one block (nb_merge_streams).
    blocks = [re.sub(r"<[^>]+>", "", block)
              for block in re.findall(r"<pre>(.*?)</pre>", _text(tmp_path / "first", "page"), re.DOTALL)]
    printed = [block for block in blocks if block.startswith("first line")]
    assert printed == ["first line\nsecond line\n"], blocks


def test_one_page_builds_on_its_own_though_it_links_other_pages(tmp_path):
    """``make page``: a lesson that links another lesson builds alone (the other is not built)."""
    make_book(tmp_path, "See [the other page](other.md), then [its section](other.md#a-section).\n"
              + code_cell("print('page ran')"), pages={"other": "## A section\n\nText.\n"})
    environment = dict(os.environ, PYTHONPATH=str(tmp_path / "code"))
    command = [sys.executable, str(BUILD_SCRIPT), "--root", str(tmp_path), "--page", "book/page.md"]
    result = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    html_root = tmp_path / "_build" / "pages" / "page" / "_build" / "html"
    html = (html_root / "book" / "page.html").read_text()
    assert "page ran" in html and "the other page" in html
    assert not (html_root / "book" / "other.html").exists()


def test_a_one_page_build_lets_through_only_links_to_pages_it_does_not_hold(tmp_path):
    """Its configuration is the book's, with one more warning let through; any other warning
    still fails it (the command keeps -W)."""
    book = yaml.safe_load((REPO_ROOT / "_config.yml").read_text())
    one_page = yaml.safe_load(build_book.single_page_config(REPO_ROOT, tmp_path).read_text())
    let_through = one_page["sphinx"]["config"].pop("suppress_warnings")
    assert let_through == [*(book["sphinx"]["config"].get("suppress_warnings") or []), "myst.xref_missing"]
    book["sphinx"]["config"].pop("suppress_warnings", None)
    extensions = one_page["sphinx"]["local_extensions"]
    assert {name: Path(path) for name, path in extensions.items()} == {
        name: (REPO_ROOT / path).resolve() for name, path in book["sphinx"]["local_extensions"].items()}
    one_page["sphinx"]["local_extensions"] = book["sphinx"]["local_extensions"]
    assert one_page == book


@pytest.mark.parametrize("script", ["--check"])
def test_notebooks_are_in_sync_with_their_pages(script):
    result = subprocess.run([sys.executable, str(REPO_ROOT / "tools" / "sync_notebooks.py"), script],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
