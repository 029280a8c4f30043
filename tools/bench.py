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
the slowdown is fitted to the host's speed. Lighthouse's throttling is simulated: it loads the
page at full speed, measures the host (its benchmarkIndex), and only later, as it audits, works
out how long each task would take on the slower CPU. So every mobile load is gathered first
(``--gather-mode``, each page RUNS times, the pages taken in turn), and then each is audited
(``--audit-mode``) with one slowdown: Lighthouse's calculator (``cpu_slowdown``) at the median
benchmarkIndex of all those loads. One index per load would not do on a shared host: it
measures a moment before the page loads, not the page's own work (eight loads of lesson 4 here:
indices 1,184-1,601, main-thread work 666-833 ms at full speed, the most work on the load with
the highest index), so a slowdown fitted to each load added its noise to the scores.
``--cpu-slowdown 4`` measures with the fixed default instead.
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
# Printed with the lowest and highest of the runs beside the median: on a shared host a page's
# blocking time, and so its performance score, spreads by 100 ms and 5 points between loads.
SPREAD = ["performance", "TBT ms"]


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


def host_slowdown(benchmark_indices: list[float]) -> float:
    """One CPU slowdown for every load of a session: the calculator's at their median index."""
    if not benchmark_indices:
        raise ValueError("host_slowdown needs the benchmarkIndex of at least one load")
    return round(cpu_slowdown(statistics.median(benchmark_indices)), 2)


def lighthouse(url: str, *options: str) -> dict | None:
    """Run Lighthouse on ``url``; its JSON report (None when ``options`` only gather)."""
    command = ["node", str(LIGHTHOUSE), url, "--output=json", "--output-path=stdout", "--quiet",
               f"--chrome-flags={CHROME_FLAGS}", "--only-categories=" + ",".join(CATEGORIES), *options]
    result = subprocess.run(command, capture_output=True, text=True,
                            env={**os.environ, "CHROME_PATH": CHROME_PATH})
    if result.returncode != 0:
        raise SystemExit(f"bench: lighthouse failed on {url}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout) if result.stdout.strip() else None


def gather(url: str, folder: Path) -> float:
    """Load ``url`` once with Lighthouse's mobile settings, keep the load in ``folder``; return
    the host's benchmarkIndex measured with it."""
    lighthouse(url, f"--gather-mode={folder}")
    artifacts = json.loads((folder / "artifacts.json").read_text())
    if artifacts["settings"]["throttlingMethod"] != "simulate":
        raise SystemExit("bench: Lighthouse no longer simulates its throttling; calibrate differently")
    return artifacts["BenchmarkIndex"]


def audit(url: str, folder: Path, slowdown: float) -> dict:
    """Lighthouse's mobile report of the load kept in ``folder``, on a CPU ``slowdown`` times slower.

    The slowdown is the only setting that changes: simulated throttling uses it only when it audits.
    """
    artifacts_file = folder / "artifacts.json"
    artifacts = json.loads(artifacts_file.read_text())
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


def summary(report: dict) -> dict[str, float]:
    """One Lighthouse report's category scores (0-100), metrics, host speed and CPU slowdown."""
    values = {name: round(100 * report["categories"][name]["score"]) for name in CATEGORIES}
    for audit_id, (column, divisor, _) in METRICS.items():
        values[column] = report["audits"][audit_id]["numericValue"] / divisor
    # Lighthouse's measure of the host's speed during the load, and the slowdown it audited with
    values[HOST_SPEED] = report["environment"]["benchmarkIndex"]
    values[SLOWDOWN] = report["configSettings"]["throttling"]["cpuSlowdownMultiplier"]
    return values


def mobile_reports(urls: dict[str, str], runs: int, slowdown: float | None) -> dict[str, list[dict]]:
    """``runs`` mobile reports per page (name: URL), all audited with one CPU slowdown.

    ``slowdown`` None fits it to the host: the calculator's at the median benchmarkIndex of
    every load. The pages are loaded in turn, so that a slow spell of the host is shared out.
    """
    with tempfile.TemporaryDirectory(prefix="course-bench-") as scratch:
        loads: dict[str, list[Path]] = {name: [] for name in urls}
        speeds = []
        for _ in range(runs):
            for name, url in urls.items():
                folder = Path(scratch) / f"{len(speeds)}"
                folder.mkdir()
                speeds.append(gather(url, folder))
                loads[name].append(folder)
        if slowdown is None:
            slowdown = host_slowdown(speeds)
        print(f"mobile: {len(speeds)} loads, benchmarkIndex {min(speeds):.0f}-{max(speeds):.0f} "
              f"(median {statistics.median(speeds):.0f}); audited at {slowdown:g}x", flush=True)
        return {name: [audit(urls[name], folder, slowdown) for folder in folders]
                for name, folders in loads.items()}


def lighthouse_table(docnames: list[str], runs: int, presets: list[str],
                     slowdown: float | None = None) -> dict[str, dict]:
    """The median of ``runs`` Lighthouse runs per page and preset (``slowdown``: see ``mobile_reports``)."""
    results: dict[str, dict] = {}
    with serve(HTML_ROOT, gzip=True) as base:
        urls = {docname: f"{base}/{docname}.html" for docname in docnames}
        for preset in presets:
            if preset == "mobile":
                reports = mobile_reports(urls, runs, slowdown)
            else:
                reports = {name: [lighthouse(url, "--preset=desktop") for _ in range(runs)]
                           for name, url in urls.items()}
            for docname, page_reports in reports.items():
                median = runs_summary([summary(report) for report in page_reports])
                results[f"{preset} {docname}"] = median
                print(f"{preset} {docname}: " + ", ".join(f"{k} {v:g}" for k, v in median.items()),
                      flush=True)
    return results


def runs_summary(samples: list[dict[str, float]]) -> dict[str, float]:
    """The median of each value over a page's runs, and the lowest and highest of ``SPREAD``'s."""
    values = {key: statistics.median(sample[key] for sample in samples) for key in samples[0]}
    for key in SPREAD:
        values[f"{key} lowest"] = min(sample[key] for sample in samples)
        values[f"{key} highest"] = max(sample[key] for sample in samples)
    return values


def table_cell(values: dict[str, float], column: str, fmt: str = "{:.0f}") -> str:
    """A column's median, with the runs' lowest and highest when they differ: "93 (89-96)"."""
    cell = fmt.format(values[column])
    low, high = values.get(f"{column} lowest"), values.get(f"{column} highest")
    if low is not None and fmt.format(low) != fmt.format(high):
        cell += f" ({fmt.format(low)}-{fmt.format(high)})"
    return cell


def print_lighthouse(results: dict[str, dict], runs: int) -> None:
    columns = CATEGORIES + [column for column, _, _ in METRICS.values()]
    formats = {column: fmt for column, _, fmt in METRICS.values()}
    print(f"\nLighthouse 13, median of {runs} run(s) (lowest-highest), site served with gzip\n")
    print("| page | " + " | ".join(columns) + " |")
    print("| --- " * (len(columns) + 1) + "|")
    for page, values in results.items():
        cells = [table_cell(values, column, formats.get(column, "{:.0f}")) for column in columns]
        print(f"| {page} | " + " | ".join(cells) + " |")
    speeds = [values[HOST_SPEED] for values in results.values()]
    slowdowns = [values[SLOWDOWN] for page, values in results.items() if page.startswith("mobile")]
    print(f"\nHost speed during these runs (Lighthouse benchmarkIndex, median per page): "
          f"{min(speeds):.0f}-{max(speeds):.0f}.")
    if slowdowns:
        print(f"Mobile CPU slowdown: {max(slowdowns):.2f}x (Lighthouse's default is 4x, right for "
              "a host of benchmarkIndex about 1533).")


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
                             "without it, one is fitted to the host's median speed over every load")
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
