"""Execute a notebook top to bottom in a fresh kernel and save the executed copy.

Usage: python tools/run_notebook.py IN.ipynb OUT.ipynb [--timeout SECONDS]

Runs in its own process so that a test can bound it with a time limit and read the result.
Exits 1 with the failing cell's traceback if a cell raises, 2 if a cell runs past the limit.
It uses nbclient, as the site build does, with the same fix: ``kernel_polling`` makes the
client wait for kernel messages in short slices (a single long wait sometimes missed a reply
and sat idle until the cell's timeout).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from time import monotonic

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "_ext"))

import kernel_polling


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell")
    args = parser.parse_args()
    kernel_polling.install()
    notebook = nbformat.read(args.notebook, as_version=4)
    started = {}

    def report(cell, cell_index, **_):
        seconds = monotonic() - started.pop(cell_index, monotonic())
        print(f"cell {cell_index}: {seconds:.1f} s", file=sys.stderr, flush=True)

    client = NotebookClient(notebook, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(args.notebook.resolve().parent)}},
                            on_cell_start=lambda cell, cell_index: started.update({cell_index: monotonic()}),
                            on_cell_executed=report)
    try:
        client.execute()
    except CellTimeoutError as error:
        print(f"a cell ran past {args.timeout} s:\n{error}", file=sys.stderr)
        return 2
    except CellExecutionError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        nbformat.write(notebook, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
