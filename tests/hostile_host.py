"""A hostile OpenWOP host on loopback: it serves a recorded stream as a run's events and puts
terminal escapes and the client's own key in everything else it says.

A real HTTP server (standard library, one thread) so the client's whole path is exercised:
discovery, run creation, the event stream, snapshots and error bodies. Use it as a context
manager; ``url`` is its base URL.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from hostile_data import API_KEY
from loopback import Loopback

EVIL = "\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x9b2J\u202e"


class HostileHost(Loopback):
    """Serves ``stream`` (SSE text) for every run; echoes the Authorization header back."""

    def __init__(self, stream: str) -> None:
        self.stream = stream.encode("utf-8", "surrogatepass")
        self.requests: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
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
                host.requests.append(f"GET {self.path}")
                if self.path.startswith("/.well-known/openwop"):
                    self._json(
                        200,
                        {
                            "protocolVersion": "1.0.0",
                            "supportedVersions": ["1.0.0"],
                            "implementation": {"name": f"Evil host {EVIL}", "version": EVIL},
                        },
                    )
                elif self.path.startswith("/v1/runs/run_hostile/events"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(host.stream)))
                    self.end_headers()
                    self.wfile.write(host.stream)
                elif self.path.startswith("/v1/runs/run_hostile"):
                    self._json(200, {"runId": "run_hostile", "status": "completed", "note": EVIL})
                else:
                    self._echo_error()

            def do_POST(self) -> None:
                host.requests.append(f"POST {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                if self.path == "/v1/runs":
                    self._json(201, {"runId": "run_hostile", "status": "running", "x": EVIL})
                else:
                    self._echo_error()

            def _echo_error(self) -> None:
                auth = self.headers.get("Authorization", "")
                self._json(
                    404,
                    {"error": {"code": EVIL, "message": f"no such thing; you sent {auth} {EVIL}"}},
                )

        self.serve(Handler)

    @classmethod
    def serving(cls, path: Path) -> HostileHost:
        return cls(path.read_text(encoding="utf-8", errors="surrogatepass"))


__all__ = ["API_KEY", "EVIL", "HostileHost"]
