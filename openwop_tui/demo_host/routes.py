"""The protocol endpoints: discovery, create, snapshot, events (SSE and JSON), poll, cancel.

Each route is a function of the request handler and a parsed `Request`; `server.py` matches
paths, checks auth and turns `HttpError` into the spec's error body ``{error, message,
details?}`` (protocol.md §2.6).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openwop_tui.demo_host.discovery import discovery_document
from openwop_tui.demo_host.faults import GARBAGE_FRAME
from openwop_tui.demo_host.runs import TERMINAL_STATUS, IdempotencyMismatch, Run
from openwop_tui.demo_host.sse import (
    SUPPORTED_MODES,
    StreamModeError,
    admitted,
    frame,
    parse_modes,
)

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

#: Long-poll ceiling, seconds (the spec's range is 1..60; 0 is accepted here for "don't wait").
MAX_POLL_TIMEOUT = 60.0


class HttpError(Exception):
    """Raised by a route to answer with a JSON error."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.details = details
        self.headers = headers or {}


@dataclass(frozen=True, slots=True)
class Request:
    """What a route needs from the request beyond its headers."""

    run_id: str | None
    body: bytes
    query: dict[str, list[str]]


Route = Callable[["DemoRequestHandler", Request], None]


def discovery(h: DemoRequestHandler, req: Request) -> None:
    """``GET /.well-known/openwop``: public and cacheable."""
    h.send_json(
        200, discovery_document(h.host.store.workflows), {"Cache-Control": "public, max-age=300"}
    )


def _json_body(req: Request, *, required: bool) -> dict[str, Any]:
    if not req.body.strip():
        if required:
            raise HttpError(400, "validation_error", "a JSON object body is required")
        return {}
    try:
        doc = json.loads(req.body)
    except (ValueError, UnicodeDecodeError):
        raise HttpError(400, "validation_error", "the body is not valid JSON") from None
    if not isinstance(doc, dict):
        raise HttpError(400, "validation_error", "the body must be a JSON object")
    return doc


def create(h: DemoRequestHandler, req: Request) -> None:
    """``POST /v1/runs``: start a run; honours ``Idempotency-Key``."""
    doc = _json_body(req, required=True)
    workflow_id = doc.get("workflowId")
    if not isinstance(workflow_id, str) or not workflow_id:
        raise HttpError(
            400,
            "validation_error",
            "'workflowId' must be a non-empty string",
            {"field": "workflowId"},
        )
    for field in ("inputs", "metadata"):
        if doc.get(field) is not None and not isinstance(doc[field], dict):
            raise HttpError(
                400, "validation_error", f"'{field}' must be an object", {"field": field}
            )
    store = h.host.store
    if workflow_id not in store.workflows:
        raise HttpError(
            404,
            "workflow_not_found",
            f"no workflow '{workflow_id[:100]}' on this host; "
            f"available: {', '.join(store.workflows)}",
        )
    key = h.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 255:
        raise HttpError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters")
    try:
        run, replay = store.create(
            workflow_id, doc.get("inputs") or {}, doc.get("metadata") or {}, doc, key
        )
    except IdempotencyMismatch:
        raise HttpError(
            409,
            "idempotency_key_mismatch",
            "this Idempotency-Key was already used with a different body",
        ) from None
    headers = {"Location": f"/v1/runs/{run.run_id}"}
    if replay:
        headers["OpenWOP-Idempotent-Replay"] = "true"
    h.send_json(201, run.create_response, headers)


def _run(h: DemoRequestHandler, req: Request) -> Run:
    run = h.host.store.get(req.run_id or "")
    if run is None:
        raise HttpError(404, "run_not_found", f"no run '{req.run_id}' on this host")
    return run


def snapshot(h: DemoRequestHandler, req: Request) -> None:
    """``GET /v1/runs/{runId}``."""
    h.send_json(200, _run(h, req).snapshot())


def _last_event_id(value: str | None) -> int:
    # Lenient: an id that is not a sequence number means "from the start", not an error.
    try:
        return max(-1, int(value.strip())) if value is not None else -1
    except ValueError:
        return -1


def events(h: DemoRequestHandler, req: Request) -> None:
    """``GET /v1/runs/{runId}/events``: SSE when asked for, else JSON ``{events}`` so far."""
    run = _run(h, req)
    try:
        modes = parse_modes(req.query.get("streamMode", []))
    except StreamModeError as error:
        raise HttpError(
            400,
            "unsupported_stream_mode",
            f"stream mode '{error}' is not supported",
            {"supported": list(SUPPORTED_MODES)},
        ) from None
    injected = h.host.faults.take_status(run.run_id)
    if injected is not None:
        status, code, headers = injected
        raise HttpError(
            status, code, f"fault injection: --status {status} on the first request", None, headers
        )
    after = _last_event_id(h.headers.get("Last-Event-ID"))
    if "text/event-stream" not in h.headers.get("Accept", ""):
        batch = run.wait_after(after, 0)
        h.send_json(200, {"events": [doc for doc in batch.events if admitted(doc, modes)]})
        return
    _stream(h, run, modes, after)


def _stream(h: DemoRequestHandler, run: Run, modes: tuple[str, ...], after: int) -> None:
    # The body ends when the connection closes: no Content-Length, no keep-alive.
    h.close_connection = True
    h.begin(
        200,
        {
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "Connection": "close",
            "X-Accel-Buffering": "no",
        },
    )
    h.wfile.write(b"retry: 2000\n\n")
    keepalive = h.host.keepalive
    faults = h.host.faults
    sent = 0  # event frames this connection has sent whole (the faults count them)
    last_write = time.monotonic()
    while True:
        batch = run.wait_after(after, keepalive)
        frames = [text for doc in batch.events if (text := frame(doc, modes)) is not None]
        if batch.events:
            after = batch.events[-1]["sequence"]
        if frames and not faults.active:
            h.wfile.write("".join(frames).encode())
            last_write = time.monotonic()
        for text in frames if faults.active else ():
            if faults.stall_ms and _stall(h, run, faults.stall_ms / 1000, keepalive):
                return
            if faults.drop_every and sent == faults.drop_every:
                # Half a frame, then the connection ends: a disconnect inside a frame.
                h.wfile.write(text[: len(text) // 2].encode())
                return
            h.wfile.write(text.encode())
            sent += 1
            if faults.garbage_every and sent % faults.garbage_every == 0:
                h.wfile.write(GARBAGE_FRAME.encode())
            last_write = time.monotonic()
        if (
            not frames
            and not batch.done
            and keepalive is not None
            and time.monotonic() - last_write >= keepalive
        ):
            # Silence on the wire (nothing new, or nothing this mode admits): prove we're alive.
            h.wfile.write(b": keepalive\n\n")
            last_write = time.monotonic()
        if batch.done:
            return


def _stall(h: DemoRequestHandler, run: Run, seconds: float, keepalive: float | None) -> bool:
    """Hold the next frame back ``seconds`` (a fault), still sending keep-alives if they are
    on; True when the host shuts down meanwhile."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        with run.cond:
            if run.cond.wait_for(lambda: run.closed, min(left, keepalive or left)):
                return True
        if keepalive is not None and end - time.monotonic() > 0:
            h.wfile.write(b": keepalive\n\n")
    return False


def _number(req: Request, name: str, default: float) -> float:
    values = req.query.get(name)
    if not values or not values[-1].strip():
        return default
    try:
        value = float(values[-1])
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise HttpError(400, "validation_error", f"'{name}' must be a number", {"field": name})
    return value


def poll(h: DemoRequestHandler, req: Request) -> None:
    """``GET /v1/runs/{runId}/events/poll?afterSequence=N&timeout=S``: long-poll for events."""
    run = _run(h, req)
    after = max(-1, int(_number(req, "afterSequence", -1)))
    timeout = min(MAX_POLL_TIMEOUT, max(0.0, _number(req, "timeout", 30)))
    batch = run.wait_after(after, timeout)
    h.send_json(
        200,
        {
            "runId": run.run_id,
            "events": batch.events,
            "lastSequence": batch.last_sequence,
            "status": batch.status,
            "isTerminal": batch.status in TERMINAL_STATUS.values(),
        },
    )


def cancel(h: DemoRequestHandler, req: Request) -> None:
    """``POST /v1/runs/{runId}/cancel {reason?}``: cancel now; 409 once terminal."""
    run = _run(h, req)
    reason = _json_body(req, required=False).get("reason", "cancelled by the client")
    if not isinstance(reason, str):
        raise HttpError(400, "validation_error", "'reason' must be a string", {"field": "reason"})
    if not run.cancel(reason[:500]):
        raise HttpError(
            409, "run_terminal", f"the run is already {run.status}", {"runStatus": run.status}
        )
    h.send_json(200, {"runId": run.run_id, "status": "cancelled"})
