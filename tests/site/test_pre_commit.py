"""pre-commit runs what `make lint` runs, with the tools in .venv."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from .conftest import REPO_ROOT


def lint_tools() -> set[str]:
    makefile = (REPO_ROOT / "Makefile").read_text()
    recipe = re.search(r"^lint:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    return set(re.findall(r"\$\(VENV\)/bin/(\S+)", recipe))


def test_every_lint_tool_is_a_local_hook():
    config = yaml.safe_load((REPO_ROOT / ".pre-commit-config.yaml").read_text())
    hooks = [hook for repo in config["repos"] for hook in repo["hooks"]]
    assert all(repo["repo"] == "local" for repo in config["repos"])  # nothing to fetch
    entries = {Path(hook["entry"].split()[0]).name for hook in hooks}
    assert lint_tools() == {"ruff", "actionlint", "zizmor"}
    assert lint_tools() <= entries


def test_pre_commit_passes_on_every_file():
    result = subprocess.run([str(Path(sys.executable).parent / "pre-commit"), "run", "--all-files"],
                            cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
