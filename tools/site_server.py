"""Serve a built site on 127.0.0.1 (a free port) from a background thread.

With ``gzip=True`` text files are sent compressed, as a static host sends them, so that
what a browser downloads can be measured.
"""

from __future__ import annotations

import functools
import gzip as gzip_module
import sys
import threading
from contextlib import contextmanager
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path
from typing import ClassVar

COMPRESSED_SUFFIXES = {".html", ".js", ".css", ".json", ".svg", ".txt", ".map", ".ipynb"}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class GzipHandler(QuietHandler):
    """Like QuietHandler, but text files go out gzip-compressed when the browser accepts it."""

    _cache: ClassVar[dict[tuple[str, float], bytes]] = {}

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not accepts or path.suffix not in COMPRESSED_SUFFIXES or not path.is_file():
            return super().send_head()
        key = (str(path), path.stat().st_mtime)
        if key not in self._cache:
            self._cache[key] = gzip_module.compress(path.read_bytes(), compresslevel=6, mtime=0)
        body = self._cache[key]
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        return BytesIO(body)


class SiteServer(ThreadingHTTPServer):
    """A browser that closes a page mid-response is no error worth a traceback."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve(root: Path, gzip: bool = False):
    """Yield the base URL of an HTTP server for ``root``; stop it on exit."""
    handler = functools.partial(GzipHandler if gzip else QuietHandler, directory=str(root))
    server = SiteServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
