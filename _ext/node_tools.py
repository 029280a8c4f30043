"""Build steps that hand work to a small node script: a JSON request on stdin, JSON back."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def run_node_script(script: Path, request: object, error: type[Exception], package: str | None = None):
    """Run ``node script`` in its folder with ``request`` as JSON on stdin; return its JSON answer.

    Args:
        script: a script under ``tools/``.
        request: anything ``json.dumps`` takes.
        error: the exception to raise, so that the build step's own error names the problem.
        package: an npm package the script needs in its folder's ``node_modules``.
    Raises:
        error: node or the package is missing, or the script exits with an error (its stderr).
    """
    node = shutil.which("node")
    if node is None or (package and not (script.parent / "node_modules" / package).is_dir()):
        needs = "node" + (f" and the npm package {package}" if package else "")
        raise error(f"{script.name} needs {needs}; run `make vendor` "
                    f"(it installs {script.parent.relative_to(REPO_ROOT)})")
    result = subprocess.run([node, str(script)], input=json.dumps(request), capture_output=True,
                            text=True, cwd=script.parent)
    if result.returncode != 0:
        raise error(result.stderr.strip() or f"{script.name} failed ({result.returncode})")
    return json.loads(result.stdout)
