"""Measure how long each lesson takes to run as a notebook; write book/about/lesson_times.json.

Each lesson page runs top to bottom in a fresh kernel, as Run All runs its notebook (without the
set-up cell's installs: the course package is already here), one after another. For each it
records the wall time and the CPU time of the kernel (user + system, all its threads): on a
shared or busy machine the wall time grows with the load, the CPU time much less. The
instructors' page (book/about/instructors.md) reads the file; re-run this after a lesson changes
much, on a quiet machine:

    .venv/bin/python tools/lesson_times.py
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from datetime import date
from pathlib import Path

import jupytext
import yaml
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "book" / "about" / "lesson_times.json"


def lesson_pages(root: Path = ROOT) -> list[Path]:
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    lessons = next(part for part in toc["parts"] if part["caption"] == "Lessons")
    return [root / f"{chapter['file']}.md" for chapter in lessons["chapters"]]


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(page: Path) -> dict:
    notebook = jupytext.read(page)
    cpu, start = children_cpu_seconds(), time.perf_counter()
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(page.parent)}}).execute()
    return {"wall_seconds": round(time.perf_counter() - start, 1),
            "cpu_seconds": round(children_cpu_seconds() - cpu, 1)}


def main() -> int:
    import torch

    pages = {}
    for page in lesson_pages():
        pages[page.relative_to(ROOT).as_posix()] = run(page)
        print(page.name, pages[page.relative_to(ROOT).as_posix()], flush=True)
    OUTPUT.write_text(json.dumps({
        "measured_on": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, no GPU"
                   if not torch.cuda.is_available() else torch.cuda.get_device_name(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "pages": pages,
    }, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
