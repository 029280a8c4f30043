"""The build's notebook client waits for kernel messages in one-second slices."""

from __future__ import annotations

import asyncio
import sys
from queue import Empty

import pytest

from .conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "_ext"))

import kernel_polling


class SlowSocket:
    """A socket whose message is there only from the ``ready_after``-th poll on."""

    def __init__(self, ready_after: int | None):
        self.ready_after = ready_after
        self.polls: list[int] = []

    async def poll(self, timeout_ms):
        self.polls.append(timeout_ms)
        return int(self.ready_after is not None and len(self.polls) >= self.ready_after)


class Channel:
    def __init__(self, socket):
        self.socket = socket

    async def _recv(self):
        return {"msg_type": "execute_reply"}


def test_waits_in_slices_until_the_message_comes():
    channel = Channel(SlowSocket(ready_after=4))
    message = asyncio.run(kernel_polling.get_msg_in_slices(channel, timeout=100))
    assert message == {"msg_type": "execute_reply"}
    assert channel.socket.polls == [1000, 1000, 1000, 1000]


def test_no_timeout_still_polls_in_slices():
    channel = Channel(SlowSocket(ready_after=3))
    asyncio.run(kernel_polling.get_msg_in_slices(channel, timeout=None))
    assert channel.socket.polls == [1000, 1000, 1000]


def test_gives_up_at_the_timeout():
    channel = Channel(SlowSocket(ready_after=None))
    with pytest.raises(Empty):
        asyncio.run(kernel_polling.get_msg_in_slices(channel, timeout=0.05))
    assert all(timeout_ms <= 50 for timeout_ms in channel.socket.polls)


def test_a_real_kernel_answers_through_the_sliced_channels(monkeypatch):
    from jupyter_client.channels import AsyncZMQSocketChannel
    from jupyter_client.manager import start_new_async_kernel

    monkeypatch.setattr(AsyncZMQSocketChannel, "get_msg", AsyncZMQSocketChannel.get_msg)
    kernel_polling.install()
    assert AsyncZMQSocketChannel.get_msg is kernel_polling.get_msg_in_slices

    async def run():
        manager, client = await start_new_async_kernel(kernel_name="python3")
        try:
            reply = await client.execute_interactive("print(6 * 7)", timeout=60)
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)
        return reply

    assert asyncio.run(run())["content"]["status"] == "ok"
