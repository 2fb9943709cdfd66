"""A test host's HTTP server on 127.0.0.1, served by a thread while the host is used as a context
manager (a plain module: ``tests/`` is on ``sys.path``). The hosts tests write (`HostileHost`,
`KeySplitHost`, `CatchUpHost`) differ in what they answer, not in how they are served."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self


class Loopback:
    """Serves a request handler on a free loopback port from ``with`` to its end."""

    def serve(self, handler: type[BaseHTTPRequestHandler]) -> None:
        """Bind ``handler`` to a free port (served once the ``with`` begins)."""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
