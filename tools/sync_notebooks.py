"""Keep each page's set-up cell and its Colab/Binder notebook (.ipynb) in sync.

For every MyST notebook page under book/:
1. rewrite its set-up cell (the first cell, tagged ``remove-cell``) so that it installs
   the course package from the repository named in ``_config.yml`` when it is missing;
2. write the same-named ``.ipynb`` beside it (what Colab and Binder open).

Usage:
    python tools/sync_notebooks.py           # rewrite
    python tools/sync_notebooks.py --check   # exit 1 if anything is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
SETUP_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[remove-cell\]\n\n# Set-up:.*?\n```", re.DOTALL
)
SETUP_TEMPLATE = '''```{{code-cell}} ipython3
:tags: [remove-cell]

# Set-up: install the course package when it is missing (Colab, Binder).
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("embedding_course") is None:
    REPOSITORY = "{url}"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet",
                           f"embedding-course[data] @ git+{{REPOSITORY}}@{branch}#subdirectory=code"])
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "{nodeps}"])
    importlib.invalidate_caches()  # so this running kernel sees the packages just installed
```'''


def repository(root: Path) -> tuple[str, str]:
    """The repository URL and branch configured in _config.yml."""
    config = yaml.safe_load((root / "_config.yml").read_text())
    repo = config.get("repository", {})
    if not repo.get("url"):
        raise SystemExit("_config.yml has no repository.url; the set-up cell needs it")
    return repo["url"].rstrip("/"), repo.get("branch", "main")


def no_deps_packages(root: Path) -> str:
    lines = (root / "requirements-nodeps.txt").read_text().splitlines()
    return " ".join(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def notebook_pages(root: Path) -> list[Path]:
    """Pages that are MyST notebooks (they have a kernelspec in their front matter)."""
    return sorted(p for p in (root / "book").rglob("*.md") if "\nkernelspec:" in p.read_text()[:600])


def synced_markdown(page: Path, setup_cell: str) -> str:
    text = page.read_text()
    cells = SETUP_CELL.findall(text)
    if len(cells) != 1:
        raise SystemExit(f"{page}: expected exactly one set-up cell tagged remove-cell, found {len(cells)}")
    return SETUP_CELL.sub(lambda _: setup_cell, text)


def notebook_json(markdown: str) -> str:
    notebook = jupytext.reads(markdown, fmt="md:myst")
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"  # stable ids: regenerating gives the same file
    return nbformat.writes(notebook) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report pages out of date")
    parser.add_argument("--root", type=Path, default=REPO_ROOT)
    args = parser.parse_args()
    url, branch = repository(args.root)
    setup_cell = SETUP_TEMPLATE.format(url=url, branch=branch, nodeps=no_deps_packages(args.root))
    stale = []
    for page in notebook_pages(args.root):
        markdown = synced_markdown(page, setup_cell)
        notebook = page.with_suffix(".ipynb")
        expected = {page: markdown, notebook: notebook_json(markdown)}
        for path, content in expected.items():
            if not path.exists() or path.read_text() != content:
                stale.append(path.relative_to(args.root))
                if not args.check:
                    path.write_text(content)
    if args.check and stale:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        return 1
    print(f"{'checked' if args.check else 'synced'} {len(notebook_pages(args.root))} pages"
          + (f"; rewrote {len(stale)} files" if stale and not args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
