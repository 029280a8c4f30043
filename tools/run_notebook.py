"""Execute a notebook top to bottom in a fresh kernel and save the executed copy.

Usage: python tools/run_notebook.py IN.ipynb OUT.ipynb [--timeout SECONDS]

Runs in its own process so that a test can bound it with a timeout and read the result.
Exits 1 with the failing cell's traceback if a cell raises.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell")
    args = parser.parse_args()
    notebook = nbformat.read(args.notebook, as_version=4)
    client = NotebookClient(notebook, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(args.notebook.resolve().parent)}})
    try:
        client.execute()
    except CellExecutionError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        nbformat.write(notebook, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
