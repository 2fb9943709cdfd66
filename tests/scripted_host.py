"""A scripted host for the stream's tests: each path answers with its next responder, and
every request is kept (`Host`); the run's paths and event documents the scripts are made of."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

BASE = "http://127.0.0.1:8765"
RUN = "run-1"
EVENTS = f"/v1/runs/{RUN}/events"
SNAPSHOT = f"/v1/runs/{RUN}"
POLL = f"/v1/runs/{RUN}/events/poll"

Responder = Callable[[httpx.Request], httpx.Response]


class Host:
    """A scripted host: each path answers with its next responder, and every request is kept."""

    def __init__(self, script: dict[str, list[Responder]]) -> None:
        self.script = script
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        queue = self.script.get(request.url.path)
        assert queue, f"unexpected request {request.method} {request.url}"
        return queue.pop(0)(request)

    def to(self, path: str) -> list[httpx.Request]:
        """The requests made to ``path``, in order."""
        return [r for r in self.requests if r.url.path == path]


def ev(seq: int, type_: str = "node.started", **payload: Any) -> dict[str, Any]:
    """Event ``seq`` of the run, of ``type_``, with ``payload``."""
    return {"eventId": f"e{seq}", "runId": RUN, "type": type_, "payload": payload, "sequence": seq}
