"""The build's notebook client waits for kernel messages in one-second slices.

What it works around. The pages are executed by nbclient through jupyter_client's asyncio
channels. ``jupyter_client.channels.AsyncZMQSocketChannel.get_msg(timeout)`` makes *one*
``await socket.poll(timeout)`` (pyzmq's asyncio poller) for the whole timeout, and that poll
sometimes misses the wake-up of a message that has already arrived: the client then sits
idle until the timeout, when pyzmq's last check finds the message (a 15 s notebook took
116 s here), or forever when there is no timeout. :func:`get_msg_in_slices` polls in slices
of ``SLICE_SECONDS``, which bounds such a stall to one slice.

One cause, found and fixed where it lives: jupyter_client's ``Session.send`` sends on an
asyncio socket through a blocking ``zmq.Socket.shadow`` of it, outside pyzmq's asyncio layer,
and a send on a ZMQ socket can reset the socket's edge-triggered file descriptor. So when the
client sends on the shell socket while it awaits the cell's reply there, and the reply arrives
at that moment, the asyncio poller never wakes for it. nbclient does send mid-cell: its stand-in
for the front end's Output widget answers every line printed into an ``ipywidgets`` Output
widget with a ``comm_msg`` on the shell channel. The explorers printed their first drawing that
way; ``embedding_course.live.show`` now writes it into the widget as data, so plain ``jupyter
nbconvert --execute`` (which has no such patch) no longer stalls at the explorers (``make
bench-notebooks``; a stand-alone reproduction, 15 explorer cells with a 10 s cell timeout,
stalled for the full timeout in 3 of 20 runs before and in none of 32 after). The build runs
the pages with the explorers switched off, so this patch stays as a bound on any other missed
wake-up.

How it does it. :func:`install` replaces ``AsyncZMQSocketChannel.get_msg`` for the whole
process that executes pages (``build_book.execute_page``, ``run_notebook.py``,
``lesson_times.py``). That method is jupyter_client's, not a
public hook, so the patch refuses to run on versions it was not checked with:
``CHECKED_VERSIONS`` must equal the installed jupyter_client and pyzmq (and the pins in
``requirements.txt``; a test keeps the three in step).

How to check whether it is still needed, e.g. after upgrading jupyter_client or pyzmq:

1. Put the new versions in ``requirements.txt`` and ``CHECKED_VERSIONS``.
2. Run the notebooks without the patch, several times:
   ``COURSE_KERNEL_POLLING=off python tools/run_notebook.py book/lessons/05_combined_pipeline.ipynb
   /tmp/out.ipynb``. It prints each cell's time. A stall shows as a cell that takes about
   its timeout (or never ends) although it computes in well under a second.
3. If no run stalls, delete this file and its ``install()`` calls; if one does, keep
   the patch with the new versions (the sliced poll is the same code either way).
"""

from __future__ import annotations

import os
from importlib.metadata import version
from queue import Empty
from time import monotonic

SLICE_SECONDS = 1.0
CHECKED_VERSIONS = {"jupyter_client": "8.10.0", "pyzmq": "27.3.0"}
"""The versions whose ``get_msg`` this patch replaces and was tested against."""
OFF_SWITCH = "COURSE_KERNEL_POLLING"  # "off": leave jupyter_client alone (to test whether it is needed)


def check_versions(installed: dict[str, str] | None = None) -> None:
    """Refuse, with the reason and what to do, when jupyter_client or pyzmq is not a checked version.

    Args:
        installed: package -> version; by default what is installed in this environment.

    Raises:
        RuntimeError: a version differs from ``CHECKED_VERSIONS``.
    """
    installed = installed or {name: version(name) for name in CHECKED_VERSIONS}
    wrong = {name: installed.get(name) for name, checked in CHECKED_VERSIONS.items()
             if installed.get(name) != checked}
    if wrong:
        found = ", ".join(f"{name}=={found}" for name, found in wrong.items())
        checked = ", ".join(f"{name}=={v}" for name, v in CHECKED_VERSIONS.items())
        raise RuntimeError(
            f"kernel_polling replaces jupyter_client's AsyncZMQSocketChannel.get_msg and was checked "
            f"with {checked} only; this environment has {found}. Install the versions pinned in "
            f"requirements.txt, or follow 'How to check whether it is still needed' in "
            f"_ext/kernel_polling.py and update CHECKED_VERSIONS with the pins."
        )


async def get_msg_in_slices(self, timeout: float | None = None) -> dict:
    """Like AsyncZMQSocketChannel.get_msg, but poll at most SLICE_SECONDS at a time."""
    assert self.socket is not None
    deadline = None if timeout is None else monotonic() + timeout
    while True:
        wait = SLICE_SECONDS if deadline is None else max(0.0, min(SLICE_SECONDS, deadline - monotonic()))
        if await self.socket.poll(int(wait * 1000)):
            return await self._recv()
        if deadline is not None and monotonic() >= deadline:
            raise Empty


def install() -> bool:
    """Make every asyncio kernel channel in this process poll in slices (after checking versions).

    Returns:
        ``True`` if installed, ``False`` when switched off with ``COURSE_KERNEL_POLLING=off``.
    """
    if os.environ.get(OFF_SWITCH, "").lower() == "off":
        return False
    check_versions()
    from jupyter_client.channels import AsyncZMQSocketChannel

    AsyncZMQSocketChannel.get_msg = get_msg_in_slices
    return True
