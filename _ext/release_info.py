"""Which release of the course a build is: the version, the commit, the release notes.

The version lives in one place, ``code/pyproject.toml`` (the package reads it from its
installed metadata, ``CITATION.cff`` and the CHANGELOG name it, tests keep them in step). The
commit is the checkout's, or ``GITHUB_SHA`` in CI. The site's footer shows both
(``course_site.py``), and ``tools/build_book.py`` re-renders the pages when either changes.

Usage:
    python _ext/release_info.py           # print the version
    python _ext/release_info.py --notes   # print the CHANGELOG's section for that version
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def version(root: Path = ROOT) -> str:
    """The course's version, from ``code/pyproject.toml``."""
    project = (root / "code" / "pyproject.toml").read_text().split("[project]", 1)[1]
    match = re.search(r'^version\s*=\s*"([^"]+)"', project, re.MULTILINE)
    if match is None:
        raise ValueError("code/pyproject.toml has no version in its [project] table")
    return match.group(1)


def commit(root: Path = ROOT) -> str:
    """The commit being built (12 hex digits), with "+changes" when the checkout differs from it."""
    sha = os.environ.get("GITHUB_SHA", "")
    if sha:
        return sha[:12]
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.strip()
        changes = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha[:12] + ("+changes" if changes else "")


def release_notes(root: Path = ROOT, wanted: str | None = None) -> str:
    """The CHANGELOG's section for a version (by default the current one), without its heading."""
    wanted = wanted or version(root)
    text = (root / "CHANGELOG.md").read_text()
    match = re.search(rf"^## {re.escape(wanted)}\b.*?\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    if match is None:
        raise ValueError(f"CHANGELOG.md has no section '## {wanted} ...'; add one before releasing")
    return match.group(1).strip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", action="store_true", help="print the CHANGELOG section of this version")
    args = parser.parse_args()
    print(release_notes() if args.notes else version(), end="" if args.notes else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
