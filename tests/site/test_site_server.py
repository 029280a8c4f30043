"""The test server: a browser that leaves mid-response prints no traceback."""

from __future__ import annotations

import socket
import struct
import time

from site_server import serve


def test_a_reader_who_leaves_mid_page_is_no_error(tmp_path, capfd):
    (tmp_path / "page.html").write_bytes(b"<p>long</p>" * 500_000)
    with serve(tmp_path) as base:
        port = int(base.rsplit(":", 1)[1])
        for _ in range(3):
            client = socket.create_connection(("127.0.0.1", port))
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset on close
            client.sendall(b"GET /page.html HTTP/1.1\r\nHost: test\r\n\r\n")
            client.recv(16)
            client.close()
        time.sleep(0.5)
    assert "Traceback" not in capfd.readouterr().err
