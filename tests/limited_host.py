"""A chat host on loopback that advertises a request limit and enforces it, as real hosts do.

Standard library HTTP (one thread per request), so the client's whole path runs over a socket:
discovery (``limits.maxRequestBodyBytes`` at the root, or in the legacy ``capabilities``
wrapper), ``POST /v1/runs`` refused with 413 past the limit (or, with ``cut=True``, the
connection closed without an answer, as some proxies do), and each run streamed as a reply
naming how many messages it was sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


class LimitedHost:
    """``limit`` bytes per request body; ``bodies`` are the sizes of the bodies it took."""

    def __init__(self, limit: int, *, wrapped: bool = False, cut: bool = False) -> None:
        self.limit, self.wrapped, self.cut = limit, wrapped, cut
        self.bodies: list[int] = []
        self.messages: list[int] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _json(self, status: int, doc: Any) -> None:
                body = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.startswith("/.well-known/openwop"):
                    limits = {"clarificationRounds": 3, "schemaRounds": 3, "envelopesPerTurn": 8}
                    limits["maxRequestBodyBytes"] = host.limit
                    doc: dict[str, Any] = {"protocolVersion": "1.0.0", "supportedEnvelopes": []}
                    if host.wrapped:
                        doc["capabilities"] = {"limits": limits}
                    else:
                        doc["limits"] = limits
                    self._json(200, doc)
                elif "/events" in self.path:
                    run = self.path.split("/")[3]
                    count = host.messages[-1] if host.messages else 0
                    reply = f"I was sent {count} messages."
                    events = [
                        ("run.started", {"workflowId": "chat"}),
                        ("output.chunk", {"nodeId": "reply", "chunk": reply}),
                        ("node.completed", {"nodeId": "reply", "outputs": {"completion": reply}}),
                        ("run.completed", {"outputs": {}}),
                    ]
                    text = "".join(
                        f"id: {n}\nevent: {kind}\ndata: "
                        + json.dumps({"type": kind, "runId": run, "sequence": n, "payload": p})
                        + "\n\n"
                        for n, (kind, p) in enumerate(events)
                    ).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(text)))
                    self.end_headers()
                    self.wfile.write(text)
                else:
                    self._json(404, {"error": "not_found", "message": "no such thing"})

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                if size > host.limit:
                    if host.cut:
                        self.close_connection = True
                        self.connection.close()
                        return
                    self._json(
                        413,
                        {"error": "payload_too_large", "message": "request body too large"},
                    )
                    self.close_connection = True
                    return
                body = json.loads(self.rfile.read(size))
                host.bodies.append(size)
                host.messages.append(len(body["inputs"]["messages"]))
                run = f"run_{len(host.bodies)}"
                self._json(201, {"runId": run, "status": "running"})

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> LimitedHost:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
