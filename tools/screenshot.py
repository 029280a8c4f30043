"""Take a full-page screenshot of a built page in Chromium, to look at it.

Usage:
    python tools/screenshot.py _build/html/book/lessons/04_sinusoidal_positions.html out.png [--dark]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_server import serve

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def html_root(page: Path) -> Path:
    for parent in page.resolve().parents:
        if parent.name == "html":
            return parent
    raise SystemExit(f"{page} is not inside a built 'html' folder")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--dark", action="store_true", help="dark colour scheme")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = html_root(args.page)
    relative = args.page.resolve().relative_to(root).as_posix()
    with serve(root) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": args.width, "height": 900},
                                color_scheme="dark" if args.dark else "light")
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                   else route.abort())
        page.goto(f"{base}/{relative}", wait_until="networkidle")
        if args.dark:
            page.evaluate("document.documentElement.dataset.theme = 'dark'")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(args.output), full_page=True)
        browser.close()
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
