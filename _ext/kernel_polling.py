"""Let the build's notebook client wait for kernel messages in one-second slices.

The pages are executed by nbclient through jupyter_client's asyncio channels. Their
``get_msg(timeout)`` makes one asyncio poll for the whole timeout, and that poll sometimes
misses the wake-up of a message that has already arrived: the client then sits idle until
the timeout, when pyzmq's last check finds the message (a 15 s notebook took 116 s here), or
forever when there is no timeout. Polling in short slices bounds such a stall to a slice.
"""

from __future__ import annotations

from queue import Empty
from time import monotonic

from jupyter_client.channels import AsyncZMQSocketChannel

SLICE_SECONDS = 1.0


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


def install() -> None:
    """Make every asyncio kernel channel in this process poll in slices."""
    AsyncZMQSocketChannel.get_msg = get_msg_in_slices
