"""Does a page say the same on every machine? Run it under other arithmetic and compare its prose.

Every number in a page's prose is glued from its code. The build runs the pages' arithmetic on
one path (``build_book.arithmetic_paths``), but another machine takes another: Intel or AMD,
AVX2 or AVX-512, arm64, more threads, a GPU. Each adds in its own order, so a trained model or
a random sample ends a few units apart in the last places. The prose must not show that: it
quotes such numbers at a resolution their spread supports.

This script executes pages under ``SETUPS``, arithmetic paths that really round differently
on one machine, and compares the text that each ``{glue:text}`` of the prose shows. It also
reports which raw glued values moved, so a run shows that the set-ups bite. The site tests
take a learner's set-up from their run of each notebook twin (``tools/run_notebook.py --glue``)
instead of running the page once more.

Usage:
    python tools/prose_stability.py book/lessons/07_length_generalisation.md [...]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from build_book import (
    SAME_ON_EVERY_AVX2_CPU,
    SAME_ON_EVERY_CPU,
    arithmetic_paths,
    execute_page,
    execution_timeout,
)
from myst_markdown import ROLE
from sync_notebooks import executed_notebook, execution_caches, glue_lookup, glued_values

REPO_ROOT = Path(__file__).resolve().parent.parent
PINNED = (*SAME_ON_EVERY_CPU, *SAME_ON_EVERY_AVX2_CPU)
# Arithmetic set-ups, each the variables set on top of an environment with none of PINNED.
BUILD = "the build's path"
LEARNERS = "the libraries' own choices, two threads"
"""A learner's kernel: the tests run the notebook twins here, and their run stands for this set-up."""
PORTABLE = "PyTorch's portable kernels, one thread"
SETUPS = {
    BUILD: "pinned",
    LEARNERS: {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"},
    PORTABLE: {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "MKL_CBWR": "COMPATIBLE"},
}
# Where PyTorch's own kernels are already its portable ones (an arm64 CPU without 256-bit SVE,
# whose capability is "DEFAULT"), ATEN_CPU_CAPABILITY=default changes nothing: there the portable
# set-up also takes OpenBLAS's generic kernels for the machine (torch's BLAS on arm64).
GENERIC_BLAS = {"aarch64": "ARMV8"}
# A float32 sum whose last digits follow the order of the additions: it shows that the set-ups
# above really round differently on this machine.
ROUNDING_PROBE = ("import torch; g = torch.Generator().manual_seed(0); "
                  "x = torch.randn(4_000_000, generator=g); "
                  "print(repr(x.sum().item()), repr((x @ x).item()))")


# The prose needs the glued values, not the figures: a page executed here shows its outputs
# as text only, so no figure is drawn into an image (glue's values are published as they are).
# Drawing is most of some lessons' runs: lesson 4's takes about 30 s with its figures, 10 s without.
TEXT_MIME_TYPES = ("text/plain", "text/markdown", "text/html", "text/latex", "application/json")
TEXT_OUTPUTS_ONLY = tuple(f"--DisplayFormatter.active_types={mime}" for mime in TEXT_MIME_TYPES)


def portable_variables(machine: str, capability: str) -> dict[str, str]:
    """The portable set-up's variables on a ``machine`` (``platform.machine()``) whose PyTorch
    picks the kernels ``capability`` (``torch.backends.cpu.get_cpu_capability()``) by itself."""
    variables = dict(SETUPS[PORTABLE])
    if capability == "DEFAULT" and machine in GENERIC_BLAS:
        variables["OPENBLAS_CORETYPE"] = GENERIC_BLAS[machine]
    return variables


@functools.cache
def native_capability() -> str:
    """The kernels PyTorch picks on this machine when nothing tells it which."""
    environment = {name: value for name, value in os.environ.items() if name != "ATEN_CPU_CAPABILITY"}
    probe = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    return subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True, text=True,
                          check=True).stdout.strip()


def environment(setup: str) -> dict[str, str]:
    """The environment a set-up runs in: this one without the build's pins, then the set-up's."""
    variables = SETUPS[setup]
    if setup == PORTABLE:
        variables = portable_variables(platform.machine(), native_capability())
    base = {name: value for name, value in os.environ.items() if name not in PINNED}
    if variables == "pinned":
        saved = {name: os.environ.pop(name) for name in PINNED if name in os.environ}
        try:
            variables = arithmetic_paths()
        finally:
            os.environ.update(saved)
    return {**base, **variables}


def glue_roles(page: Path) -> list[tuple[str, str]]:
    """Every (key, format spec) that the page's prose inserts, in order."""
    found = []
    for match in ROLE.finditer(page.read_text()):
        if match.group("name") in {"glue", "glue:text"}:
            key, _, spec = match.group("content").partition(":")
            found.append((key.strip(), spec.strip()))
    return found


def page_prose(page: Path, root: Path = REPO_ROOT) -> dict:
    """Execute ``page`` here, without drawing its figures; its glued texts ("key:spec" -> text)
    and raw glued values."""
    _, _, error, notebook = execute_page(str(root), str(page), execution_timeout(root), TEXT_OUTPUTS_ONLY)
    if error is not None:
        raise SystemExit(f"{page} failed:\n{error}")
    return prose(page, notebook)


def prose(page: Path, notebook) -> dict:
    """The glued texts ("key:spec" -> text) and raw glued values of an executed page."""
    lookup = glue_lookup(notebook, page)
    texts = {f"{key}:{spec}": lookup(key, spec) for key, spec in glue_roles(page)}
    return {"texts": texts, "values": glued_values(notebook)}


def run(page: Path, setup: str) -> dict:
    """``page_prose`` of ``page`` in a child process with the set-up's environment.

    The build's own execution (its cache) stands for the build's path when it matches the page.
    """
    if SETUPS[setup] == "pinned":
        try:
            return prose(page, executed_notebook(page.read_text(), page, execution_caches(REPO_ROOT)))
        except SystemExit:  # no build of this page's current code
            pass
    result = subprocess.run([sys.executable, __file__, "--execute", str(page)], env=environment(setup),
                            capture_output=True, text=True, timeout=1200)
    if result.returncode != 0:
        raise RuntimeError(f"{page} under '{setup}' failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return json.loads(result.stdout.splitlines()[-1])


def rounding_probe(setup: str) -> str:
    """What the probe prints under a set-up (differs between set-ups that round differently)."""
    result = subprocess.run([sys.executable, "-c", ROUNDING_PROBE], env=environment(setup),
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


def compare(pages: list[Path], jobs: int = os.cpu_count() or 1) -> dict:
    """Run every page under every set-up.

    Returns:
        ``{"texts": {page: {glue: {setup: text}}}, "values": {page: {key: {setup: value}}}}``,
        each holding only the entries that differ between set-ups.
    """
    jobs_list = [(page, setup) for page in pages for setup in SETUPS]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = dict(zip(jobs_list, pool.map(lambda job: run(*job), jobs_list), strict=True))
    report = {"texts": {}, "values": {}}
    for page in pages:
        for kind, moved_here in moved({setup: results[page, setup] for setup in SETUPS}).items():
            if moved_here:
                report[kind][str(page.relative_to(REPO_ROOT) if page.is_absolute() else page)] = moved_here
    return report


def moved(by_setup: dict[str, dict]) -> dict:
    """What differs between one page's results (``prose``) under several set-ups.

    Returns:
        ``{"texts": {glue: {setup: text}}, "values": {key: {setup: value}}}``, each holding only
        the entries that differ; a key missing under a set-up reads ``None`` there.
    """
    first = next(iter(by_setup.values()))
    report = {}
    for kind in ("texts", "values"):
        found = {key: {setup: result[kind].get(key) for setup, result in by_setup.items()}
                 for key in first[kind]}
        report[kind] = {key: by_key for key, by_key in found.items() if len(set(by_key.values())) > 1}
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--execute", action="store_true",
                        help="execute one page here and print its prose as JSON")
    args = parser.parse_args()
    if args.execute:
        print(json.dumps(page_prose(args.pages[0].resolve())))
        return 0
    report = compare([page.resolve() for page in args.pages])
    print(json.dumps(report, indent=1))
    return 1 if report["texts"] else 0


if __name__ == "__main__":
    sys.exit(main())
