"""Build the book strictly (any warning or cell error fails) without stale figures.

The execution cache re-runs a page only when that page's own cells change. A page's
figures also depend on the course package, so this script keeps two kinds of hashes:

* one of the configuration, the Sphinx extension, the pinned requirements and the
  package's non-Python files: when it changes, the cache is cleared and every page is
  re-read and re-executed;
* one per page, of the package modules that page runs (``page_dependencies.py``): when a
  page's hash changes, its cache entry is dropped and the page is read and executed again.

Usage:
    python tools/build_book.py                      # the whole book into _build/html
    python tools/build_book.py --page book/lessons/04_sinusoidal_positions.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from page_dependencies import page_hashes

REPO_ROOT = Path(__file__).resolve().parent.parent
WATCHED = ["code", "_ext", "requirements.txt", "requirements-nodeps.txt", "_config.yml"]
PACKAGE_ROOT = "code"  # its .py files are tracked page by page
HASHED_SUFFIXES = {".py", ".toml", ".txt", ".css", ".js", ".yml", ".cfg", ".json", ".csv", ".npy"}
STATE_FILE = ".build-state.json"


def tree_hash(root: Path, watched: list[str], per_page: Path | None = None) -> str:
    """A hash of the content of every watched file (sorted, so it is stable).

    Python files under ``per_page`` are left out: their changes are tracked page by page.
    """
    digest = hashlib.sha256()
    for name in watched:
        path = root / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if file.suffix not in HASHED_SUFFIXES or "__pycache__" in file.parts or ".egg-info" in str(file):
                continue
            if per_page is not None and file.suffix == ".py" and file.is_relative_to(per_page):
                continue
            digest.update(str(file.relative_to(root)).encode())
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


def build(root: Path, output: Path, toc: Path | None, watched: list[str], jupyter_book: str) -> int:
    """Run jupyter-book; first clear the execution cache of whatever a change made stale."""
    build_dir = output / "_build"
    state_file = build_dir / STATE_FILE
    cache_dir = build_dir / ".jupyter_cache"
    code_root = root / PACKAGE_ROOT
    current = {"global": tree_hash(root, watched, per_page=code_root), "pages": page_hashes(root, code_root)}
    previous = json.loads(state_file.read_text()) if state_file.exists() else None
    command = [jupyter_book, "build", str(root), "--path-output", str(output), "-W", "-n", "--keep-going"]
    if toc is not None:
        command += ["--toc", str(toc)]
    if previous is None or previous.get("global") != current["global"]:
        if previous is not None:
            print("build_book: the configuration or requirements changed; re-executing every page")
        shutil.rmtree(cache_dir, ignore_errors=True)
        command.append("--all")
    else:
        known = previous.get("pages", {})
        stale = sorted(page for page, digest in current["pages"].items() if known.get(page) != digest)
        if stale:
            print("build_book: package code these pages run changed; re-executing " + ", ".join(stale))
        for page in stale:
            forget_page(cache_dir, root / page)
    print("build_book:", " ".join(command), flush=True)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the book's root folder")
    parser.add_argument("--page", help="build only this page (into _build/pages/NAME/_build/html)")
    parser.add_argument("--toc", type=Path, help="another table of contents (default: _toc.yml)")
    parser.add_argument("--output", type=Path, help="where _build/ goes (default: the root)")
    parser.add_argument("--watch", nargs="*", default=WATCHED,
                        help="paths whose change re-executes every page (Python files under code/ excepted)")
    args = parser.parse_args()
    root = args.root.resolve()
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")
    toc = args.toc.resolve() if args.toc else None
    output = args.output or root
    if args.page:
        toc = single_page_toc(root, args.page)
        output = args.output or root / "_build" / "pages" / Path(args.page).stem
    return build(root, output.resolve(), toc, args.watch, jupyter_book)


if __name__ == "__main__":
    sys.exit(main())
