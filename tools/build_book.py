"""Build the book strictly (any warning or cell error fails) without stale figures.

The execution cache re-runs a page only when that page's own cells change. A page's
figures also depend on the course package, so this script keeps two kinds of hashes:

* one of the configuration, the pinned requirements, the package's non-Python files and the
  two site modules that run with the pages (``WATCHED``): when it changes, the cache is
  cleared and every page is re-read and re-executed (the rest of the site's extension and its
  theme only render: a change to them rewrites every page and re-executes none, ``RENDERING``);
* one per page, of the package modules that page runs (``page_dependencies.py``): when a
  page's hash changes, its cache entry is dropped and the page is read and executed again.

Pages that need executing are executed first, in parallel (one worker per core, the slowest
of the last build first), into the same execution cache that MyST-NB reads; the Sphinx build
then only renders. A page that fails to execute fails the build, as in MyST-NB's strict
mode. The execution times of this run go to ``_build/execution-times.json``, and each page's
latest to ``.execution-times.json``, which outlives ``_build``.

Usage:
    python tools/build_book.py                      # the whole book into _build/html
    python tools/build_book.py --jobs 1             # execute one page at a time
    python tools/build_book.py --page book/lessons/04_sinusoidal_positions.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import yaml
from page_dependencies import page_hashes

REPO_ROOT = Path(__file__).resolve().parent.parent
# What the pages run: the package, the site's module that runs in their cells (glue), the pins,
# the configuration.
WATCHED = ["code", "_ext/course_glue.py", "requirements.txt", "requirements-nodeps.txt", "_config.yml"]
# What the browser gets and the build renders and draws with (the rest of the site's
# extension, its scripts and styles, the drawing tools), but no page runs: a change rewrites
# every page (``--all``) and re-executes none.
RENDERING = ["_ext", "tools/math-js/tex_to_svg.js", "tools/math-js/package-lock.json",
             "tools/css-js/bundle_css.js", "tools/css-js/package-lock.json", "tools/figure_heights.js"]
PACKAGE_ROOT = "code"  # its .py files are tracked page by page
HASHED_SUFFIXES = {".py", ".toml", ".txt", ".css", ".js", ".html", ".conf", ".yml", ".cfg", ".json", ".csv",
                   ".npy"}
STATE_FILE = ".build-state.json"
TIMES_FILE = "execution-times.json"
# Each page's last execution time, kept beside _build (which `make clean` and a cold build
# remove) so that the next cold build starts the slowest page first.
HISTORY_FILE = ".execution-times.json"
BUILD_INFO_FILE = "build-info.json"
# nbformat (so MyST-NB and Jupyter Book) imports jsonschema, and jsonschema imports
# rfc3987_syntax when it is installed (JupyterLab's jupyter-events asks for it). As it is
# imported, that package compiles 38 grammars, 2-3 s here, for the JSON-schema formats "iri"
# and "iri-reference", which no notebook schema uses. The build's processes mark it absent,
# and jsonschema leaves out those two format checks; nothing else changes.
UNUSED_MODULES = ("rfc3987_syntax",)
JUPYTER_BOOK = [sys.executable, "-c", f"import sys; sys.modules.update(dict.fromkeys({UNUSED_MODULES!r})); "
                "from jupyter_book.cli.main import main; sys.exit(main())"]


# The same numbers on every x86 machine that builds the site. Float results depend on the
# path the arithmetic takes, and the libraries pick it by the CPU: PyTorch's own kernels use
# AVX-512 where the CPU has it, MKL (PyTorch's matrix products) has a path per processor
# family, OpenBLAS (NumPy's) one per core type, and a sum split over more threads adds in
# another order. The models that lesson 7 trains amplify such differences into the second
# decimal. So the pages run on one path: AVX2 where the CPU has it, MKL's path that is the same
# on every processor, one thread per page (the pages themselves run in parallel). A variable
# that is already set is left as it is.
SAME_ON_EVERY_CPU = {"MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
SAME_ON_EVERY_AVX2_CPU = {"ATEN_CPU_CAPABILITY": "avx2", "OPENBLAS_CORETYPE": "Haswell",
                          "ONEDNN_MAX_CPU_ISA": "AVX2"}


def arithmetic_paths(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict[str, str]:
    """The variables that pin the pages' arithmetic to one path (``SAME_ON_EVERY_*``).

    The AVX2 ones only where ``cpuinfo`` lists the flag (elsewhere the libraries choose; a
    library told to use AVX2 on a CPU without it would stop). A variable already set wins.
    """
    try:
        has_avx2 = re.search(r"^flags\s*:.*\bavx2\b", cpuinfo.read_text(), re.MULTILINE) is not None
    except OSError:  # not Linux
        has_avx2 = False
    paths = {**SAME_ON_EVERY_CPU, **(SAME_ON_EVERY_AVX2_CPU if has_avx2 else {})}
    return {name: os.environ.get(name, value) for name, value in paths.items()}


def skip_unused_modules() -> None:
    """Mark UNUSED_MODULES as absent in this process (before nbformat is imported)."""
    for name in UNUSED_MODULES:
        sys.modules.setdefault(name, None)


def tree_hash(root: Path, watched: list[str], per_page: Path | None = None) -> str:
    """A hash of the content of every watched file (sorted, so it is stable).

    Python files under ``per_page`` are left out: their changes are tracked page by page.
    """
    digest = hashlib.sha256()
    for name in watched:
        path = root / name
        if not path.exists():
            continue
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if file.suffix not in HASHED_SUFFIXES or "__pycache__" in file.parts or ".egg-info" in str(file):
                continue
            if per_page is not None and file.suffix == ".py" and file.is_relative_to(per_page):
                continue
            digest.update(str(file.relative_to(root)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def inputs_hash(root: Path, paths: list[Path]) -> str:
    """A hash of every file the site is built from (any suffix): when it matches the last
    successful build's, there is nothing to do."""
    digest = hashlib.sha256()
    for path in paths:
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if {"__pycache__", ".ipynb_checkpoints"} & set(file.parts) or ".egg-info" in str(file):
                continue
            digest.update(str(file.relative_to(root) if file.is_relative_to(root) else file).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def forget_page(cache_dir: Path, page: Path) -> None:
    """Drop a page's cached execution and mark it changed, so Sphinx reads and executes it again."""
    if cache_dir.exists():
        from jupyter_cache import get_cache

        cache = get_cache(str(cache_dir))
        for record in cache.list_cache_records():
            if Path(record.uri) == page:
                cache.remove_cache(record.pk)
    os.utime(page)  # Sphinx re-reads a source whose modification time is newer than its last read


def toc_docnames(toc: Path) -> list[str]:
    """Every page of a table of contents, in order (e.g. 'book/lessons/02_one_hot')."""
    content = yaml.safe_load(toc.read_text())
    names = [content["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"].removesuffix(".md"))
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in content.get("parts", []):
        walk(part.get("chapters"))
    walk(content.get("chapters"))
    return names


def toc_pages(root: Path, toc: Path) -> list[Path]:
    """The source files of the pages in a table of contents that MyST-NB executes."""
    pages = [root / f"{name}.md" for name in toc_docnames(toc)]
    return [page for page in pages if page.exists() and "kernelspec:" in page.read_text()]


def read_page(page: Path):
    """The notebook MyST-NB makes of a page (the same cells, so the same cache key)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    return read_myst_markdown_notebook(page.read_text(), MdParserConfig(), add_source_map=True, path=page)


def execute_page(root: str, page: str, timeout: int, kernel_arguments: tuple[str, ...] = ()
                 ) -> tuple[str, float, str | None, dict | None]:
    """Run one page's notebook in its folder (in a worker process).

    ``kernel_arguments`` are added to the kernel's command line (IPython's settings).
    Returns (page, seconds, error or None, executed notebook or None).
    """
    import logging

    os.environ.setdefault("PYTHONHASHSEED", "0")
    from jupyter_cache.executors.utils import single_nb_execution
    from jupyter_client.manager import KernelManager

    client_warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            client_warnings.append(record.getMessage())

    logging.getLogger("traitlets").addHandler(Collect(level=logging.WARNING))
    path = Path(page)
    notebook = read_page(path)
    # Kernels talk over Unix sockets in a folder of their own. Over TCP, kernels started side by
    # side can pick the same free port (jupyter_client chooses it before the kernel binds it).
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:

        class UnixSocketKernelManager(KernelManager):
            def __init__(self, **kwargs):
                super().__init__(transport="ipc", ip=str(Path(sockets) / "kernel"), **kwargs)

        result = single_nb_execution(notebook, cwd=str(path.parent), allow_errors=False, timeout=timeout,
                                     meta_override=True, kernel_manager_class=UnixSocketKernelManager,
                                     extra_arguments=list(kernel_arguments))
    if result.err is not None:
        return page, result.time, result.exc_string or repr(result.err), None
    if client_warnings:
        return page, result.time, "the notebook client reported: " + "; ".join(client_warnings), None
    return page, result.time, None, notebook


# Where the pages run (the site's footer says it): device, its name, torch, Python. Importing
# torch takes about 2 s of CPU; a process of the lowest priority does it while the pages run,
# on whatever CPU time they leave.
DESCRIBE_MACHINE = ("import json, os; os.nice(19); from embedding_course.device import build_info; "
                    "print(json.dumps(build_info()))")


def stale_pages(root: Path, toc: Path, cache_dir: Path) -> list[Path]:
    """The pages whose cells have no entry in the execution cache (all of them, with no cache)."""
    pages = toc_pages(root, toc)
    if not cache_dir.exists():
        return pages
    from jupyter_cache import get_cache

    cache = get_cache(str(cache_dir))
    stale = []
    for page in pages:
        try:
            cache.match_cache_notebook(read_page(page))
        except KeyError:
            stale.append(page)
    return stale


def slowest_first(root: Path, page: Path, history: dict[str, float]) -> tuple:
    """Sort key: pages never timed first (by size), then by their last execution time, longest first."""
    seconds = history.get(page.relative_to(root).as_posix())
    return (seconds is not None, -(seconds or 0.0), -page.stat().st_size)


def execute_stale_pages(root: Path, toc: Path, cache_dir: Path, jobs: int, timeout: int,
                        build_info: Path, history: dict[str, float]) -> dict[str, float]:
    """Execute, in parallel, every page whose cells have no entry in the cache; cache them.

    Args:
        history: each page's last execution time (``root``-relative): the slowest start first,
            so that no long page is left running alone at the end.
        build_info: when pages run, where to write where they run (as JSON, from
            ``embedding_course.device.build_info``), so that the Sphinx build need not import torch.
    Returns:
        The execution seconds per page (relative to ``root``).
    Raises:
        SystemExit: a page failed.
    """
    stale = stale_pages(root, toc, cache_dir)
    if not stale:
        return {}
    stale.sort(key=lambda page: slowest_first(root, page, history))
    workers = max(1, min(jobs, len(stale)))
    print(f"build_book: executing {len(stale)} page(s), {workers} at a time", flush=True)
    times: dict[str, float] = {}
    failures = []
    machine = subprocess.Popen([sys.executable, "-c", DESCRIBE_MACHINE], stdout=subprocess.PIPE, text=True)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(execute_page, str(root), str(page), timeout) for page in stale]
        # Imported while the pages run: the results go into the cache as they come.
        from jupyter_cache import get_cache
        from jupyter_cache.base import CacheBundleIn

        cache = get_cache(str(cache_dir))
        for future in as_completed(futures):
            page, seconds, error, notebook = future.result()
            name = Path(page).relative_to(root).as_posix()
            times[name] = seconds
            if error is not None:
                failures.append(f"{name}:\n{error}")
                continue
            print(f"build_book: executed {name} in {seconds:.1f} s", flush=True)
            cache.cache_notebook_bundle(CacheBundleIn(notebook, page, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
    described, _ = machine.communicate()
    if machine.returncode != 0:
        raise SystemExit(f"build_book: describing the machine failed (exit {machine.returncode})")
    build_info.write_text(json.dumps(json.loads(described), indent=1, sort_keys=True) + "\n")
    if failures:
        raise SystemExit("build_book: executing a page failed\n" + "\n".join(failures))
    return times


def execution_timeout(root: Path) -> int:
    config = yaml.safe_load((root / "_config.yml").read_text())
    return int(config.get("execute", {}).get("timeout", 30))


def build(root: Path, output: Path, toc: Path | None, watched: list[str], jupyter_book: list[str],
          jobs: int = os.cpu_count() or 1, config: Path | None = None) -> int:
    """Run jupyter-book; first clear the execution cache of whatever a change made stale.

    ``toc`` and ``config`` replace ``_toc.yml`` and ``_config.yml`` for Sphinx (a one-page
    build); the execution cache is still invalidated by the book's own files.
    """
    build_dir = output / "_build"
    state_file = build_dir / STATE_FILE
    cache_dir = build_dir / ".jupyter_cache"
    code_root = root / PACKAGE_ROOT
    previous = json.loads(state_file.read_text()) if state_file.exists() else None
    sources = [root / name for name in watched + RENDERING] + [root / "book", toc or root / "_toc.yml"]
    paths = arithmetic_paths()
    os.environ.update(paths)  # the page workers and the process that describes the machine inherit them
    paths_text = " ".join(f"{name}={value}" for name, value in sorted(paths.items()))
    inputs = inputs_hash(root, [path for path in sources if path.exists()]) + " " + paths_text
    # The footer names the commit: a new commit rewrites the pages (without re-executing them).
    sys.path.insert(0, str(root / "_ext"))
    from release_info import commit
    inputs += " commit=" + commit(root)
    built = (build_dir / "html" / "index.html").exists()
    if built and previous is not None and previous.get("inputs") == inputs:
        print("build_book: nothing changed since the last build; _build/html is up to date")
        return 0
    current = {"global": tree_hash(root, watched, per_page=code_root) + " " + paths_text,
               "rendering": tree_hash(root, RENDERING), "inputs": inputs}
    everything_stale = previous is None or previous.get("global") != current["global"]

    current["pages"] = page_hashes(root, code_root)  # each page's hash of the code it runs and reads
    command = [*jupyter_book, "build", str(root), "--path-output", str(output), "-W", "-n", "--keep-going"]
    if toc is not None:
        command += ["--toc", str(toc)]
    if config is not None:
        command += ["--config", str(config)]
    if everything_stale:
        if previous is not None:
            print("build_book: the configuration or requirements changed; re-executing every page")
        shutil.rmtree(cache_dir, ignore_errors=True)
        command.append("--all")
    else:
        if previous.get("rendering") != current["rendering"]:
            print("build_book: the site's theme, scripts, styles or drawing tools changed; "
                  "rewriting every page")
            command.append("--all")
        known = previous.get("pages", {})
        stale = sorted(page for page, digest in current["pages"].items() if known.get(page) != digest)
        if stale:
            print("build_book: package code these pages run, or a file they read, changed; re-executing "
                  + ", ".join(stale))
        for page in stale:
            forget_page(cache_dir, root / page)
    build_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    history_file = root / HISTORY_FILE
    history = json.loads(history_file.read_text()) if history_file.exists() else {}
    times = execute_stale_pages(root, toc or root / "_toc.yml", cache_dir, jobs, execution_timeout(root),
                                build_info=build_dir / BUILD_INFO_FILE, history=history)
    if times:
        print(f"build_book: pages executed in {time.perf_counter() - start:.1f} s "
              f"(one after another: {sum(times.values()):.1f} s)", flush=True)
        history_file.write_text(json.dumps({**history, **times}, indent=1, sort_keys=True) + "\n")
    (build_dir / TIMES_FILE).write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
    print("build_book: jupyter-book", " ".join(command[len(jupyter_book):]), flush=True)
    result = subprocess.run(command, cwd=root)
    if result.returncode == 0:
        build_dir.mkdir(parents=True, exist_ok=True)
        state_file.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    else:
        state_file.unlink(missing_ok=True)  # a failed build must not be taken as up to date
    return result.returncode


def single_page_toc(root: Path, page: str) -> Path:
    """A table of contents with just one page, for building a lesson quickly."""
    page_path = (root / page).resolve()
    if not page_path.exists():
        raise SystemExit(f"build_book: no such page: {page}")
    docname = page_path.relative_to(root).with_suffix("").as_posix()
    toc = Path(tempfile.mkdtemp()) / "_toc.yml"
    # The page is the root: the intro's links to the other lessons would be broken here.
    toc.write_text(f"format: jb-book\nroot: {docname}\n")
    return toc


def single_page_config(root: Path, folder: Path) -> Path:
    """The book's configuration for a one-page build, written into ``folder``.

    A lesson links to other lessons, which a one-page book does not hold: MyST reports each
    such link as ``myst.xref_missing``, and the strict build would fail on it. This copy lets
    that warning through, so a Markdown link to a missing heading of the page itself passes
    here too; every other warning still fails the build, and the full build checks every
    link. Jupyter Book finds local extensions beside the configuration file: here their paths
    are made absolute.
    """
    config = yaml.safe_load((root / "_config.yml").read_text())
    extensions = config.get("sphinx", {}).get("local_extensions") or {}
    for name, path in extensions.items():
        extensions[name] = str((root / path).resolve())
    sphinx_config = config.setdefault("sphinx", {}).setdefault("config", {})
    let_through = sphinx_config.get("suppress_warnings") or []
    sphinx_config["suppress_warnings"] = [*let_through, "myst.xref_missing"]
    path = folder / "_config.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the book's root folder")
    parser.add_argument("--page", help="build only this page (into _build/pages/NAME/_build/html)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="pages executed at the same time (default: one per core)")
    args = parser.parse_args()
    root = args.root.resolve()
    toc, config, output = None, None, root
    if args.page:
        toc = single_page_toc(root, args.page)
        config = single_page_config(root, toc.parent)
        output = root / "_build" / "pages" / Path(args.page).stem
    if args.jobs < 1:
        raise SystemExit(f"build_book: --jobs must be at least 1, got {args.jobs}")
    skip_unused_modules()
    return build(root, output.resolve(), toc, WATCHED, JUPYTER_BOOK, args.jobs, config)


if __name__ == "__main__":
    sys.exit(main())
