"""Execute a notebook top to bottom in a fresh kernel and save the executed copy.

Usage: python tools/run_notebook.py IN.ipynb OUT.ipynb [--timeout SECONDS]

Runs in its own process so that a test can bound it with a time limit and read the result.
Exits 1 with the failing cell's traceback if a cell raises, 2 if a cell runs past the limit.

It talks to the kernel through jupyter_client's blocking client, whose sockets are polled
with a plain (level-triggered) zmq poll. nbclient's asyncio client sometimes missed the
kernel's reply after a cell that opened many widgets and sat idle until the cell's timeout
ran out (seen as a notebook that ran in 15 s taking 116 s, or longer than any limit).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from queue import Empty
from time import monotonic

import nbformat
from jupyter_client.manager import start_new_kernel

OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}


class CellTimeout(Exception):
    """A cell did not finish within its time limit."""


def run_cell(client, source: str, timeout: float) -> tuple[list, dict]:
    """Run one cell's source; return its outputs and the kernel's execute reply."""
    message_id = client.execute(source, allow_stdin=False, stop_on_error=True)
    deadline = monotonic() + timeout
    outputs = []
    while True:
        message = _next_message(client.get_iopub_msg, deadline)
        if message["parent_header"].get("msg_id") != message_id:
            continue
        kind = message["msg_type"]
        if kind == "status" and message["content"]["execution_state"] == "idle":
            break
        if kind == "clear_output":
            outputs = []
        elif kind in OUTPUT_TYPES:
            outputs.append(nbformat.v4.output_from_msg(message))
    while True:
        reply = _next_message(client.get_shell_msg, deadline)
        if reply["parent_header"].get("msg_id") == message_id:
            return outputs, reply["content"]


def _next_message(get_message, deadline: float) -> dict:
    remaining = deadline - monotonic()
    if remaining <= 0:
        raise CellTimeout
    try:
        return get_message(timeout=remaining)
    except Empty:
        raise CellTimeout from None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per cell")
    args = parser.parse_args()
    notebook = nbformat.read(args.notebook, as_version=4)
    kernel, client = start_new_kernel(kernel_name="python3", cwd=str(args.notebook.resolve().parent))
    status = 0
    try:
        code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
        for count, cell in enumerate(code_cells, start=1):
            started = monotonic()
            try:
                cell.outputs, reply = run_cell(client, cell.source, args.timeout)
            except CellTimeout:
                print(f"cell {count} ran past {args.timeout:.0f} s:\n{cell.source}", file=sys.stderr)
                status = 2
                break
            cell.execution_count = reply.get("execution_count")
            print(f"cell {count}/{len(code_cells)}: {monotonic() - started:.1f} s", file=sys.stderr)
            if reply["status"] != "ok":
                traceback = "\n".join(reply.get("traceback", [])) or reply.get("evalue", "")
                print(f"cell {count} raised:\n{cell.source}\n{traceback}", file=sys.stderr)
                status = 1
                break
    finally:
        client.stop_channels()
        kernel.shutdown_kernel(now=True)
        nbformat.write(notebook, args.output)
    return status


if __name__ == "__main__":
    sys.exit(main())
