"""Which files of the course package each page runs, so a package edit re-executes only those pages.

A page depends on the package modules its code cells import, on the modules those import,
and so on, together with the ``__init__.py`` of every package on the way. Imports are read
from the source with ``ast``; nothing is imported. A page whose code cannot be read this way
(a cell that is not plain Python) is taken to depend on every module, so a change is never missed.

A page whose cells also read other files names them in its front matter, as paths or
patterns from the book's root, and depends on them too (the instructors' page counts the
lessons' words)::

    course:
      reads: [book/lessons/*.md, CITATION.cff]
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

SKIPPED_FOLDERS = {"_build", "__pycache__", "node_modules"}


def module_index(code_root: Path) -> dict[str, Path]:
    """Map each dotted module name under ``code_root`` to its file ('a.b' -> code/a/b.py)."""
    index = {}
    for path in sorted(code_root.rglob("*.py")):
        relative = path.relative_to(code_root)
        if any(part in SKIPPED_FOLDERS or part.endswith(".egg-info") for part in relative.parts):
            continue
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            index[".".join(parts)] = path
    return index


def _with_parents(name: str, index: dict[str, Path]) -> set[str]:
    """A module and the packages that hold it (importing a.b.c runs a, a.b and a.b.c)."""
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts) + 1)} & index.keys()


def imported_modules(tree: ast.AST, index: dict[str, Path], current: str | None = None) -> set[str]:
    """The indexed modules that the code in ``tree`` imports.

    Args:
        tree: parsed code of a page cell or of a module.
        index: from :func:`module_index`.
        current: the dotted name of the module the code belongs to, to resolve relative imports.
    """
    found: set[str] = set()
    is_package = current is not None and index.get(current, Path()).name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found |= _with_parents(alias.name, index)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if current is None:
                    continue
                package = current.split(".")
                if not is_package:
                    package = package[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            found |= _with_parents(base, index)
            for alias in node.names:  # `from package import module` names a module
                found |= _with_parents(f"{base}.{alias.name}" if base else alias.name, index)
    return found


def module_closure(start: set[str], index: dict[str, Path],
                   imports: dict[str, set[str]] | None = None) -> set[str]:
    """Every indexed module that running ``start`` imports, directly or not.

    ``imports`` keeps each module's own imports between calls (each file is parsed once).
    """
    imports = {} if imports is None else imports
    seen: set[str] = set()
    pending = list(start)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in imports:
            tree = ast.parse(index[name].read_text(), filename=str(index[name]))
            imports[name] = imported_modules(tree, index, current=name)
        pending.extend(imports[name] - seen)
    return seen


def read_notebook(page: Path):
    """The notebook of a MyST Markdown page (its cells and its front matter)."""
    from myst_nb.core.read import read_myst_markdown_notebook  # 3 s to import: only when needed

    return read_myst_markdown_notebook(page.read_text())


def page_reads(page: Path, root: Path, notebook=None) -> list[Path]:
    """The files besides the package that a page's front matter says its cells read
    (``course: reads:``, paths or glob patterns from ``root``), in a stable order.

    Raises:
        ValueError: ``reads`` is not a list of strings, or a pattern matches no file.
    """
    notebook = read_notebook(page) if notebook is None else notebook
    patterns = (notebook.metadata.get("course") or {}).get("reads", [])
    if not isinstance(patterns, list) or not all(isinstance(pattern, str) for pattern in patterns):
        raise ValueError(f"{page}: course: reads: must be a list of paths or patterns from the book's root, "
                         f"got {patterns!r}")
    files = []
    for pattern in patterns:
        found = sorted(path for path in root.glob(pattern) if path.is_file())
        if not found:
            raise ValueError(f"{page}: course: reads: {pattern!r} matches no file under {root}")
        files += found
    return files


def page_modules(page: Path, index: dict[str, Path], imports: dict[str, set[str]] | None = None,
                 notebook=None) -> set[str]:
    """The package modules a MyST notebook page runs (all of them if its code cannot be read)."""
    notebook = read_notebook(page) if notebook is None else notebook
    start: set[str] = set()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            return set(index)
        start |= imported_modules(tree, index)
    return module_closure(start, index, imports)


def notebook_pages(root: Path) -> list[Path]:
    """The MyST Markdown pages under ``root`` that hold code cells."""
    pages = []
    for folder, subfolders, files in os.walk(root):
        # Not into skipped or hidden folders (.venv holds thousands of files).
        subfolders[:] = [name for name in subfolders
                         if name not in SKIPPED_FOLDERS and not name.startswith(".")]
        for name in files:
            path = Path(folder) / name
            if name.endswith(".md") and "```{code-cell}" in path.read_text():
                pages.append(path)
    return sorted(pages)


def page_hashes(root: Path, code_root: Path) -> dict[str, str]:
    """For each notebook page (relative path), a hash of the package files it runs and of the
    other files it reads (``page_reads``)."""
    index = module_index(code_root) if code_root.is_dir() else {}
    hashes = {}
    imports: dict[str, set[str]] = {}
    for page in notebook_pages(root):
        notebook = read_notebook(page)
        digest = hashlib.sha256()
        for name in sorted(page_modules(page, index, imports, notebook)):
            digest.update(name.encode())
            digest.update(index[name].read_bytes())
        for file in page_reads(page, root, notebook):
            digest.update(file.relative_to(root).as_posix().encode())
            digest.update(file.read_bytes())
        hashes[page.relative_to(root).as_posix()] = digest.hexdigest()
    return hashes
