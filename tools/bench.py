"""Measure the build: cold, no-change and after a package edit; and the weight of each page.

Usage: python tools/bench.py [--skip-cold]
Prints a Markdown table and writes _build/bench.json. A cold build removes _build/ first.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD = [sys.executable, str(REPO_ROOT / "tools" / "build_book.py")]
PACKAGE = REPO_ROOT / "code" / "embedding_course"
# Two edits: one to a module that every page runs, one to a module that one lesson runs.
PROBE_FILES = {"__init__.py (every page)": PACKAGE / "__init__.py",
               "projection.py (lesson 6 only)": PACKAGE / "projection.py"}
PROBE_LINE = "\n# bench: a one-line change to the package\n"


def timed_build(label: str) -> float:
    start = time.perf_counter()
    result = subprocess.run(BUILD, cwd=REPO_ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"bench: the {label} build failed")
    print(f"{label}: {seconds:.1f} s", flush=True)
    return seconds


def page_weights(html_root: Path) -> dict[str, float]:
    """KB per page: its HTML plus the images it shows (shared scripts and styles excluded)."""
    weights = {}
    for html in sorted((html_root / "book").rglob("*.html")):
        text = html.read_text()
        images = {src for src in re.findall(r'src="([^"]+)"', text) if "_images/" in src}
        size = html.stat().st_size + sum((html.parent / src).resolve().stat().st_size for src in images)
        weights[html.relative_to(html_root).as_posix()] = round(size / 1024, 1)
    return weights


def shared_weights(html_root: Path) -> dict[str, float]:
    vendor = html_root / "_static" / "vendor"
    return {
        "plotly.min.js": round((vendor / "plotly.min.js").stat().st_size / 1024, 1),
        "mathjax/tex-chtml.js": round((vendor / "mathjax" / "tex-chtml.js").stat().st_size / 1024, 1),
        "all of _static": round(sum(p.stat().st_size for p in (html_root / "_static").rglob("*")
                                    if p.is_file()) / 1024, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cold", action="store_true", help="keep _build/ and skip the cold build")
    args = parser.parse_args()
    results: dict[str, object] = {}
    if not args.skip_cold:
        shutil.rmtree(REPO_ROOT / "_build", ignore_errors=True)
        results["cold build (s)"] = timed_build("cold build")
    else:
        timed_build("warm-up build")
    results["no-change rebuild (s)"] = timed_build("no-change rebuild")
    for name, probe_file in PROBE_FILES.items():
        original = probe_file.read_text()
        try:
            probe_file.write_text(original + PROBE_LINE)
            label = f"rebuild after editing {name}"
            results[f"{label} (s)"] = timed_build(label)
        finally:
            probe_file.write_text(original)
        label = f"rebuild after undoing the edit to {name}"
        results[f"{label} (s)"] = timed_build(label)
    html_root = REPO_ROOT / "_build" / "html"
    results["page KB (HTML + own images)"] = page_weights(html_root)
    results["shared KB (loaded once, cached)"] = shared_weights(html_root)
    (REPO_ROOT / "_build" / "bench.json").write_text(json.dumps(results, indent=2) + "\n")
    print("\n| measure | value |\n| --- | --- |")
    for key, value in results.items():
        if isinstance(value, dict):
            for name, kb in value.items():
                print(f"| {key}: {name} | {kb} KB |")
        else:
            print(f"| {key} | {value:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
