"""Write the repository's address, as ``_config.yml`` names it, everywhere it is needed.

``_config.yml`` (``repository.url`` and ``repository.branch``) is the one place to change. The
build's launch links (Binder, Colab) and the footer read it themselves; this writes the copies
that files outside the build need, and `make` runs it before every build:

* the set-up cell of every page and of its ``.ipynb`` twin (it installs the course package
  from that repository and branch; the twin's other cells are left as they are);
* ``CITATION.cff``: ``repository-code``, and ``url``, the site's address: ``html.baseurl`` in
  ``_config.yml`` when the site is published somewhere else, else the repository's GitHub Pages
  address.

Binder's configuration (``binder/``) names no repository: Binder builds the one it was opened
from. A file is rewritten only when it changes.

Usage:
    python tools/sync_repository.py            # write what changed
    python tools/sync_repository.py --check    # exit 1 if a copy is out of date
    python tools/sync_repository.py --url https://github.com/ORG/NAME [--branch main]
                                               # fork: set _config.yml's line, then write the copies
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from urllib.parse import urlparse

import jupytext
import nbformat
import yaml
from sync_notebooks import SETUP_MARK, notebook_pages, repository, setup_cell_markdown, synced_markdown

REPO_ROOT = Path(__file__).resolve().parent.parent


def site_address(root: Path) -> str:
    """Where the site is published: ``html.baseurl``, else the repository's GitHub Pages address."""
    config = yaml.safe_load((root / "_config.yml").read_text())
    baseurl = (config.get("html") or {}).get("baseurl")
    if baseurl:
        return baseurl.rstrip("/") + "/"
    url, _ = repository(root)
    parsed = urlparse(url)
    parts = parsed.path.strip("/").removesuffix(".git").split("/")
    if parsed.netloc != "github.com" or len(parts) != 2:
        raise SystemExit(f"_config.yml: {url} is not on github.com; set html.baseurl to the site's address")
    owner, name = parts
    return f"https://{owner.lower()}.github.io/{name}/"


def set_repository(root: Path, url: str, branch: str | None) -> None:
    """Change ``repository.url`` (and ``branch``) in ``_config.yml``, keeping the rest of the file."""
    parsed = urlparse(url)
    if parsed.scheme != "https" or not parsed.netloc or parsed.path.strip("/").count("/") < 1:
        raise SystemExit(f"--url wants the repository's https address (https://github.com/ORG/NAME): {url!r}")
    path = root / "_config.yml"
    text = path.read_text()
    block = re.search(r"^repository:\n((?:[ \t]+.*\n)+)", text, re.MULTILINE)
    if block is None:
        raise SystemExit("_config.yml has no repository: block")
    body = re.sub(r"^(\s+url:\s*).*$", lambda m: m.group(1) + url.rstrip("/"), block.group(1), flags=re.M)
    if branch:
        body = re.sub(r"^(\s+branch:\s*).*$", lambda m: m.group(1) + branch, body, flags=re.M)
    path.write_text(text[:block.start(1)] + body + text[block.end(1):])


def citation(root: Path) -> str:
    url, _ = repository(root)
    text = (root / "CITATION.cff").read_text()
    for key, value in (("repository-code", url), ("url", site_address(root))):
        text, count = re.subn(rf'^{key}: .*$', f'{key}: "{value}"', text, flags=re.MULTILINE)
        if count != 1:
            raise SystemExit(f"CITATION.cff: expected one '{key}:' line, found {count}")
    return text


def setup_cell_source(root: Path) -> str:
    """The set-up cell's code, as a notebook holds it."""
    cells = jupytext.reads(setup_cell_markdown(root), fmt="md:myst").cells
    return next(cell.source for cell in cells if cell.cell_type == "code")


def twin(path: Path, source: str) -> str:
    """The notebook with its set-up cell's code replaced."""
    notebook = nbformat.read(path, as_version=4)
    cells = [cell for cell in notebook.cells
             if cell.cell_type == "code" and cell.source.startswith(SETUP_MARK)]
    if len(cells) != 1:
        raise SystemExit(f"{path}: expected one set-up cell (starting {SETUP_MARK!r}); found {len(cells)}")
    cells[0].source = source
    return nbformat.writes(notebook) + "\n"


def expected_files(root: Path) -> dict[Path, str]:
    """Every file that holds a copy of the repository's address, as it should read."""
    setup_cell, source = setup_cell_markdown(root), setup_cell_source(root)
    expected = {root / "CITATION.cff": citation(root)}
    for page in notebook_pages(root):
        expected[page] = synced_markdown(page, setup_cell)
        if page.with_suffix(".ipynb").exists():
            expected[page.with_suffix(".ipynb")] = twin(page.with_suffix(".ipynb"), source)
    return expected


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report copies out of date")
    parser.add_argument("--url", help="set the repository's address in _config.yml first (a fork)")
    parser.add_argument("--branch", help="with --url: the branch the notebooks install from")
    parser.add_argument("--root", type=Path, default=REPO_ROOT)
    args = parser.parse_args()
    if args.url:
        set_repository(args.root, args.url, args.branch)
    expected = expected_files(args.root)
    stale = [path for path, text in expected.items() if not path.exists() or path.read_text() != text]
    if args.check:
        if stale:
            print("out of date with _config.yml (run `python tools/sync_repository.py`):",
                  *[path.relative_to(args.root) for path in stale], sep="\n  ")
            return 1
        return 0
    for path in stale:
        path.write_text(expected[path])
    if stale:
        print(f"sync_repository: wrote the repository's address into {len(stale)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
