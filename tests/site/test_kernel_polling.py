"""The build's notebook client waits for kernel messages in one-second slices."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from queue import Empty

import kernel_polling  # tools/ is on the path (conftest)
import pytest

from .conftest import REPO_ROOT


def run_coroutine(make_coroutine):
    """Run ``make_coroutine()`` to its end in a thread of its own: the browser tests of the same
    session keep an event loop running in the main thread, where ``asyncio.run`` refuses."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(lambda: asyncio.run(make_coroutine())).result()


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
    message = run_coroutine(lambda: kernel_polling.get_msg_in_slices(channel, timeout=100))
    assert message == {"msg_type": "execute_reply"}
    assert channel.socket.polls == [1000, 1000, 1000, 1000]


def test_no_timeout_still_polls_in_slices():
    channel = Channel(SlowSocket(ready_after=3))
    run_coroutine(lambda: kernel_polling.get_msg_in_slices(channel, timeout=None))
    assert channel.socket.polls == [1000, 1000, 1000]


def test_gives_up_at_the_timeout():
    channel = Channel(SlowSocket(ready_after=None))
    with pytest.raises(Empty):
        run_coroutine(lambda: kernel_polling.get_msg_in_slices(channel, timeout=0.05))
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

    assert run_coroutine(run)["content"]["status"] == "ok"


# ---------------------------------------------------------------- the fence


def test_refuses_versions_it_was_not_checked_with():
    checked = dict(kernel_polling.CHECKED_VERSIONS)
    kernel_polling.check_versions(checked)  # the checked versions pass
    newer = {**checked, "jupyter_client": "9.0.0"}
    with pytest.raises(RuntimeError, match=r"checked\s+with jupyter_client==8\.10\.0, pyzmq==27\.3\.0 only; "
                                           r"this environment has jupyter_client==9\.0\.0"):
        kernel_polling.check_versions(newer)
    with pytest.raises(RuntimeError, match="pyzmq==None"):
        kernel_polling.check_versions({"jupyter_client": checked["jupyter_client"]})


def test_checked_versions_are_the_pinned_and_installed_ones():
    pins = {}
    for line in (REPO_ROOT / "requirements.txt").read_text().splitlines():
        name, _, pinned = line.split("#")[0].strip().partition("==")
        pins[name.lower().replace("-", "_")] = pinned.rstrip(" \\")  # a lock line ends with a backslash
    for name, checked in kernel_polling.CHECKED_VERSIONS.items():
        assert pins[name] == checked, f"requirements.txt pins {name}=={pins[name]}, the patch knows {checked}"
    kernel_polling.check_versions()  # and they are what this environment has


def test_install_refuses_before_patching(monkeypatch):
    from jupyter_client.channels import AsyncZMQSocketChannel

    original = AsyncZMQSocketChannel.get_msg
    monkeypatch.setattr(AsyncZMQSocketChannel, "get_msg", original)
    monkeypatch.setattr(kernel_polling, "CHECKED_VERSIONS", {"jupyter_client": "0.0.1", "pyzmq": "0.0.1"})
    with pytest.raises(RuntimeError, match="was checked"):
        kernel_polling.install()
    assert AsyncZMQSocketChannel.get_msg is original
    monkeypatch.setenv(kernel_polling.OFF_SWITCH, "off")  # the switch for checking whether it is needed
    assert kernel_polling.install() is False
    assert AsyncZMQSocketChannel.get_msg is original


def test_the_tools_that_execute_pages_install_it_and_sphinx_does_not():
    """Pages run in the build's tools (Sphinx only reads the executed notebooks from the cache)."""
    import yaml

    config = yaml.safe_load((REPO_ROOT / "_config.yml").read_text())
    assert "kernel_polling" not in config["sphinx"]["local_extensions"]
    for tool in ("build_book.py", "run_notebook.py", "lesson_times.py"):
        assert "kernel_polling.install()" in (REPO_ROOT / "tools" / tool).read_text(), tool
    docstring = kernel_polling.__doc__
    assert "AsyncZMQSocketChannel.get_msg" in docstring and "still needed" in docstring
