"""Measure the site as readers get it (Lighthouse) and the build (cold, no-change rebuild).

Usage:
    python tools/bench.py                                # everything
    python tools/bench.py --pages 02_one_hot intro --runs 1
    python tools/bench.py --no-build                     # Lighthouse on the site as built
    python tools/bench.py --no-lighthouse                # build timings only

The site is served with gzip, as a static host serves it. Lighthouse (npm, pinned in
tools/bench-js/package.json) drives Debian's Chromium with its mobile and desktop presets;
each page is measured RUNS times per preset and the median is reported. Run this on an
otherwise idle machine.

Lighthouse's mobile preset slows the CPU down 4 times, a factor chosen so that a fast desktop
(its benchmarkIndex 1500-2000) stands in for a mid-range phone; on a slower or faster host the
same factor stands for a slower or faster phone. As Lighthouse's docs/throttling.md advises,
each mobile run is calibrated to the host's speed during that run. Lighthouse's throttling is
simulated: it loads the page at full speed, measures the host (its benchmarkIndex), and only
later, as it audits, works out how long each task would take on the slower CPU. So each mobile
run gathers first (``--gather-mode``), then audits (``--audit-mode``) with the slowdown that
Lighthouse's calculator gives for the benchmarkIndex of that same run (``cpu_slowdown``). ``--cpu-slowdown 4``
measures with the fixed default instead.
Prints Markdown tables and writes _build/bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from build_book import toc_docnames
from site_server import serve

REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD = [sys.executable, str(REPO_ROOT / "tools" / "build_book.py")]
HTML_ROOT = REPO_ROOT / "_build" / "html"
EXECUTION_TIMES = REPO_ROOT / "_build" / "execution-times.json"
LIGHTHOUSE = REPO_ROOT / "tools" / "bench-js" / "node_modules" / "lighthouse" / "cli" / "index.js"
CHROME_PATH = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
# Lighthouse audit id -> (column, unit divisor, format)
METRICS = {
    "first-contentful-paint": ("FCP s", 1000, "{:.1f}"),
    "largest-contentful-paint": ("LCP s", 1000, "{:.1f}"),
    "total-blocking-time": ("TBT ms", 1, "{:.0f}"),
    "cumulative-layout-shift": ("CLS", 1, "{:.3f}"),
    "total-byte-weight": ("KB before scroll", 1024, "{:.0f}"),
}


HOST_SPEED = "host benchmarkIndex"
SLOWDOWN = "CPU slowdown"


def cpu_slowdown(benchmark_index: float) -> float:
    """The CPU slowdown that makes this host a mid-range phone, from its Lighthouse benchmarkIndex.

    Lighthouse's calculator (linked from its docs/throttling.md): 150 -> 1x, 800 -> 2x,
    1300 -> 3x, then one more per 233 (1533 -> 4x, the default; 2000 -> 6x).
    """
    if benchmark_index < 150:
        raise ValueError(f"benchmarkIndex {benchmark_index:g} is below 150: this host is too slow "
                         "to stand in for a phone")
    if benchmark_index < 800:
        return 1 + (benchmark_index - 150) / 650
    if benchmark_index < 1300:
        return 2 + (benchmark_index - 800) / 500
    return 3 + (benchmark_index - 1300) / 233


def lighthouse(url: str, *options: str) -> dict | None:
    """Run Lighthouse on ``url``; its JSON report (None when ``options`` only gather)."""
    command = ["node", str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
               f"--chrome-flags={CHROME_FLAGS}", "--only-categories=" + ",".join(CATEGORIES), *options]
    result = subprocess.run(command, capture_output=True, text=True,
                            env={**os.environ, "CHROME_PATH": CHROME_PATH})
    if result.returncode != 0:
        raise SystemExit(f"bench: lighthouse failed on {url}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout) if result.stdout.strip() else None


def calibrated_mobile_run(url: str, slowdown: float | None) -> dict:
    """Lighthouse's mobile report of one load of ``url``, its CPU slowdown fitted to that load.

    The load is gathered once; its artifacts hold the host's benchmarkIndex and the settings
    it was gathered with. The audit then simulates the page on a CPU ``slowdown`` times slower
    (by default the calculator's for that benchmarkIndex): the only setting that changes, and
    one that simulated throttling uses only when it audits.
    """
    with tempfile.TemporaryDirectory(prefix="course-bench-") as folder:
        lighthouse(url, f"--gather-mode={folder}")
        artifacts_file = Path(folder) / "artifacts.json"
        artifacts = json.loads(artifacts_file.read_text())
        if artifacts["settings"]["throttlingMethod"] != "simulate":
            raise SystemExit("bench: Lighthouse no longer simulates its throttling; calibrate differently")
        if slowdown is None:
            slowdown = round(cpu_slowdown(artifacts["BenchmarkIndex"]), 2)
        artifacts["settings"]["throttling"]["cpuSlowdownMultiplier"] = slowdown
        artifacts_file.write_text(json.dumps(artifacts))
        return lighthouse(url, f"--audit-mode={folder}", f"--throttling.cpuSlowdownMultiplier={slowdown}")


def timed_build(label: str) -> float:
    """Run the build, print and return its wall time in seconds."""
    start = time.perf_counter()
    result = subprocess.run(BUILD, cwd=REPO_ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"bench: the {label} build failed")
    print(f"{label}: {seconds:.1f} s", flush=True)
    return seconds


def build_timings() -> dict[str, float]:
    """Cold build (``_build`` removed) against the sum of its page executions; no-change rebuild."""
    shutil.rmtree(REPO_ROOT / "_build", ignore_errors=True)
    cold = timed_build("cold build")
    executions = json.loads(EXECUTION_TIMES.read_text()) if EXECUTION_TIMES.exists() else {}
    total = sum(executions.values())
    timings = {"cold build (s)": cold, "sum of page executions (s)": total,
               "cold build / sum of executions": cold / total if total else float("nan")}
    timings["no-change rebuild (s)"] = timed_build("no-change rebuild")
    for page, seconds in sorted(executions.items(), key=lambda item: -item[1]):
        timings[f"execution of {page} (s)"] = seconds
    return timings


def lighthouse_run(url: str, preset: str, slowdown: float | None = None) -> dict[str, float]:
    """One Lighthouse run of one page: category scores (0-100) and metrics.

    ``slowdown`` is the mobile CPU slowdown; None fits it to the host's speed during the run.
    """
    if preset == "desktop":
        report = lighthouse(url, "--preset=desktop")
    else:
        report = calibrated_mobile_run(url, slowdown)
    values = {name: round(100 * report["categories"][name]["score"]) for name in CATEGORIES}
    for audit, (column, divisor, _) in METRICS.items():
        values[column] = report["audits"][audit]["numericValue"] / divisor
    # Lighthouse's measure of the host's speed during the run, and the slowdown it ran with
    values[HOST_SPEED] = report["environment"]["benchmarkIndex"]
    values[SLOWDOWN] = report["configSettings"]["throttling"]["cpuSlowdownMultiplier"]
    return values


def lighthouse_table(docnames: list[str], runs: int, presets: list[str],
                     slowdown: float | None = None) -> dict[str, dict]:
    """The median of ``runs`` Lighthouse runs per page and preset (``slowdown``: see ``lighthouse_run``)."""
    results: dict[str, dict] = {}
    with serve(HTML_ROOT, gzip=True) as base:
        for preset in presets:
            for docname in docnames:
                samples = [lighthouse_run(f"{base}/{docname}.html", preset, slowdown) for _ in range(runs)]
                median = {key: statistics.median(sample[key] for sample in samples) for key in samples[0]}
                results[f"{preset} {docname}"] = median
                print(f"{preset} {docname}: " + ", ".join(f"{k} {v:g}" for k, v in median.items()),
                      flush=True)
    return results


def print_lighthouse(results: dict[str, dict], runs: int) -> None:
    columns = CATEGORIES + [column for column, _, _ in METRICS.values()]
    formats = {column: fmt for column, _, fmt in METRICS.values()}
    print(f"\nLighthouse 13, median of {runs} run(s), site served with gzip\n")
    print("| page | " + " | ".join(columns) + " |")
    print("| --- " * (len(columns) + 1) + "|")
    for page, values in results.items():
        cells = [formats.get(column, "{:.0f}").format(values[column]) for column in columns]
        print(f"| {page} | " + " | ".join(cells) + " |")
    speeds = [values[HOST_SPEED] for values in results.values()]
    slowdowns = [values[SLOWDOWN] for page, values in results.items() if page.startswith("mobile")]
    print(f"\nHost speed during these runs (Lighthouse benchmarkIndex, median per page): "
          f"{min(speeds):.0f}-{max(speeds):.0f}.")
    if slowdowns:
        print(f"Mobile CPU slowdown (median per page): {min(slowdowns):.2f}-{max(slowdowns):.2f}x "
              "(Lighthouse's default is 4x, right for a host of benchmarkIndex about 1533).")


def select_pages(wanted: list[str] | None) -> list[str]:
    docnames = toc_docnames(REPO_ROOT / "_toc.yml")
    if not wanted:
        return docnames
    chosen = [name for name in docnames if any(part in name for part in wanted)]
    if not chosen:
        raise SystemExit(f"bench: no page matches {wanted}; pages are {docnames}")
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", help="only pages whose name contains one of these")
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page and preset")
    parser.add_argument("--presets", nargs="*", default=["mobile", "desktop"], choices=["mobile", "desktop"])
    parser.add_argument("--no-build", action="store_true", help="skip the build timings")
    parser.add_argument("--no-lighthouse", action="store_true", help="skip Lighthouse")
    parser.add_argument("--cpu-slowdown", type=float, default=None,
                        help="a fixed mobile CPU slowdown (Lighthouse's default: 4); "
                             "without it, each mobile run's is fitted to the host's speed")
    args = parser.parse_args()
    if args.runs < 1:
        raise SystemExit(f"bench: --runs must be at least 1, got {args.runs}")
    if args.cpu_slowdown is not None and not 1 <= args.cpu_slowdown <= 20:
        raise SystemExit(f"bench: --cpu-slowdown must be between 1 and 20, got {args.cpu_slowdown:g}")
    results: dict[str, object] = {}
    if not args.no_build:
        results["build"] = build_timings()
    if not args.no_lighthouse:
        if not LIGHTHOUSE.exists():
            raise SystemExit("bench: Lighthouse is not installed; run `make bench` (it installs it)")
        if not (HTML_ROOT / "index.html").exists():
            raise SystemExit("bench: no built site; run `make` first")
        results["lighthouse"] = lighthouse_table(select_pages(args.pages), args.runs, args.presets,
                                                 args.cpu_slowdown)
    (REPO_ROOT / "_build").mkdir(exist_ok=True)
    (REPO_ROOT / "_build" / "bench.json").write_text(json.dumps(results, indent=2) + "\n")
    if "build" in results:
        print("\n| build | value |\n| --- | --- |")
        for key, value in results["build"].items():
            print(f"| {key} | {value:.2f} |")
    if "lighthouse" in results:
        print_lighthouse(results["lighthouse"], args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
