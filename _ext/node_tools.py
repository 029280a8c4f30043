"""Build steps that hand work to a small node script: a JSON request on stdin, JSON back."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def run_node_script(script: Path, request: object, error: type[Exception], package: str | None = None,
                    reply: Callable[[dict], object] | None = None):
    """Run ``node script`` in its folder with ``request`` as JSON on stdin; return its JSON answer.

    Args:
        script: a script under ``tools/``.
        request: anything ``json.dumps`` takes.
        error: the exception to raise, so that the build step's own error names the problem.
        package: an npm package the script needs in its folder's ``node_modules``.
        reply: for a script that may ask one question mid-way: the request goes as one line;
            a question is one line of JSON (its answer never ends with a newline), and
            ``reply(question)`` is written back to it as one line before its answer is read.
    Raises:
        error: node or the package is missing, or the script exits with an error (its stderr).
    """
    node = shutil.which("node")
    if node is None or (package and not (script.parent / "node_modules" / package).is_dir()):
        needs = "node" + (f" and the npm package {package}" if package else "")
        raise error(f"{script.name} needs {needs}; run `make vendor` "
                    f"(it installs {script.parent.relative_to(REPO_ROOT)})")
    with subprocess.Popen([node, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=script.parent) as process:
        if reply is None:
            output, errors = process.communicate(json.dumps(request))
        else:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            first = process.stdout.readline()
            if first.endswith("\n"):  # a question
                process.stdin.write(json.dumps(reply(json.loads(first))) + "\n")
                output, errors = process.communicate()
            else:  # the script answered, or failed, without asking
                rest, errors = process.communicate()
                output = first + rest
    if process.returncode != 0:
        raise error(errors.strip() or f"{script.name} failed ({process.returncode})")
    return json.loads(output)
