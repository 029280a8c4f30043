"""Run every notebook twin with ``jupyter nbconvert --execute`` several times; report any hang.

This is the route an instructor takes outside the build: plain nbconvert, no cell timeout and
none of the build's patches. A run that has not finished after ``--limit`` seconds counts as a
hang (it is stopped). Every run prints its wall time; the summary gives, per notebook, the
runs, hangs and the slowest run, and the command exits 1 if any run hung or failed.

Usage:
    python tools/bench_notebooks.py                  # every twin under book/, 10 times each
    python tools/bench_notebooks.py --runs 3 book/lessons/02_one_hot.ipynb
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def run_once(notebook: Path, output_dir: Path, limit: float) -> tuple[str, float]:
    """One ``jupyter nbconvert --execute`` of ``notebook``: ("ok" | "hang" | "failed", seconds)."""
    environment = dict(os.environ)
    command = [str(Path(sys.executable).parent / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
               "--output-dir", str(output_dir), str(notebook)]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=notebook.parent, env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, errors = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # nbconvert and the kernel it started
        process.communicate()
        return "hang", time.monotonic() - started
    seconds = time.monotonic() - started
    if process.returncode != 0:
        print(errors[-2000:], file=sys.stderr)
        return "failed", seconds
    return "ok", seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every .ipynb under book/")
    parser.add_argument("--runs", type=int, default=10, help="runs of each notebook (default 10)")
    parser.add_argument("--limit", type=float, default=600,
                        help="seconds after which a run counts as hung (default 600)")
    args = parser.parse_args()
    notebooks = args.notebooks or sorted((REPO_ROOT / "book").rglob("*.ipynb"))
    results: dict[Path, list[tuple[str, float]]] = {notebook: [] for notebook in notebooks}
    with tempfile.TemporaryDirectory() as output_dir:
        for run in range(1, args.runs + 1):
            for notebook in notebooks:
                outcome, seconds = run_once(notebook.resolve(), Path(output_dir), args.limit)
                results[notebook].append((outcome, seconds))
                print(f"run {run}/{args.runs} {notebook.name}: {outcome} in {seconds:.1f} s", flush=True)
    print(f"\n{'notebook':<36} runs  hangs  failed  slowest")
    for notebook, outcomes in results.items():
        hangs = sum(outcome == "hang" for outcome, _ in outcomes)
        failed = sum(outcome == "failed" for outcome, _ in outcomes)
        slowest = max(seconds for _, seconds in outcomes)
        print(f"{notebook.name:<36} {len(outcomes):>4}  {hangs:>5}  {failed:>6}  {slowest:6.1f} s")
    bad = sum(outcome != "ok" for outcomes in results.values() for outcome, _ in outcomes)
    print(f"\n{bad} of {sum(map(len, results.values()))} runs hung or failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
