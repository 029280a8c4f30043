"""Build the book strictly (any warning or cell error fails) without stale figures.

The execution cache re-runs a page only when that page's own cells change. A page's
figures also depend on the course package, so this script keeps a hash of the watched
paths (the package, the Sphinx extension, the pinned requirements); when it changes,
the cache is cleared and every page is re-read and re-executed.

Usage:
    python tools/build_book.py                      # the whole book into _build/html
    python tools/build_book.py --page book/lessons/04_sinusoidal_positions.md
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
WATCHED = ["code", "_ext", "requirements.txt", "requirements-nodeps.txt", "_config.yml"]
HASHED_SUFFIXES = {".py", ".toml", ".txt", ".css", ".js", ".yml", ".cfg"}


def tree_hash(root: Path, watched: list[str]) -> str:
    """A hash of the content of every watched file (sorted, so it is stable)."""
    digest = hashlib.sha256()
    for name in watched:
        path = root / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if file.suffix not in HASHED_SUFFIXES or "__pycache__" in file.parts or ".egg-info" in str(file):
                continue
            digest.update(str(file.relative_to(root)).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def build(root: Path, output: Path, toc: Path | None, watched: list[str], jupyter_book: str) -> int:
    """Run jupyter-book; clear the execution cache first if a watched file changed."""
    build_dir = output / "_build"
    hash_file = build_dir / ".watched-hash"
    current = tree_hash(root, watched)
    previous = hash_file.read_text().strip() if hash_file.exists() else None
    command = [jupyter_book, "build", str(root), "--path-output", str(output),
               "-W", "-n", "--keep-going"]
    if toc is not None:
        command += ["--toc", str(toc)]
    if previous != current:
        if previous is not None:
            print("build_book: the package or configuration changed; re-executing every page")
        shutil.rmtree(build_dir / ".jupyter_cache", ignore_errors=True)
        command.append("--all")
    print("build_book:", " ".join(command), flush=True)
    result = subprocess.run(command, cwd=root)
    if result.returncode == 0:
        build_dir.mkdir(parents=True, exist_ok=True)
        hash_file.write_text(current + "\n")
    else:
        hash_file.unlink(missing_ok=True)  # a failed build must not be taken as up to date
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
    parser.add_argument("--watch", nargs="*", default=WATCHED, help="paths whose change re-executes all")
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
