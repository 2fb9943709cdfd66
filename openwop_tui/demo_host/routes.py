"""The protocol endpoints: discovery, create, snapshot, events (SSE and JSON), poll, cancel
(pause and resume: `openwop_tui.demo_host.pausing`).

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

from openwop_tui.demo_host.admission import refusal
from openwop_tui.demo_host.catalog import for_people
from openwop_tui.demo_host.faults import GARBAGE_FRAME
from openwop_tui.demo_host.runs import TERMINAL_STATUS, IdempotencyMismatch, Run
from openwop_tui.demo_host.sse import (
    FLUSH_TYPES,
    SUPPORTED_MODES,
    StreamModeError,
    admitted,
    batch_frame,
    frame,
    parse_modes,
)
from openwop_tui.demo_host.wire import OWNER, Wire, WrongTenant, protocol_versions, wire_for

if TYPE_CHECKING:
    from openwop_tui.demo_host.server import DemoRequestHandler

#: Long-poll ceiling, seconds (the spec's range is 1..60; 0 is accepted here for "don't wait").
MAX_POLL_TIMEOUT = 60.0
#: Longest ``bufferMs`` a client may ask for (stream-modes.md §bufferMs: 0..5000).
MAX_BUFFER_MS = 5000.0


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
        """An error answer, in the protocol's error shape.

        Args:
            status: The HTTP status.
            code: The body's ``error`` code.
            message: The body's ``message``.
            details: The body's ``details``; None for none.
            headers: Extra response headers (``Retry-After``…); None for none.
        """
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


def negotiated(version: str | None) -> Wire:
    """The wire of a dual-stack host for a request's ``OpenWOP-Version``; 406 for a major it
    does not serve, with the ones it does (versioning.md §1.3)."""
    wire = wire_for(version)
    if wire is None:
        raise HttpError(
            406,
            "protocol_version_unsupported",
            f"this host does not serve OpenWOP-Version {version!r}",
            {"protocolVersions": list(protocol_versions(2))},
        )
    return wire


def json_body(req: Request, *, required: bool) -> dict[str, Any]:
    """The request's JSON object body (``{}`` when empty and not ``required``); 400 else."""
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
    """``POST …/runs``: start a run; honours ``Idempotency-Key``."""
    doc = json_body(req, required=True)
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
        shown, benchmarks = for_people(store.workflows)
        others = f" (and {benchmarks} benchmark workflows, bench.*)" if benchmarks else ""
        raise HttpError(
            404,
            "workflow_not_found",
            f"no workflow '{workflow_id[:100]}' on this host; "
            f"available: {', '.join(shown)}{others}",
        )
    # What the messages carry is checked before a run exists: a refused run leaves no trace.
    refused = refusal(
        doc.get("inputs") or {}, base_url=store.base_url, assets=h.host.assets, tenant=h.tenant
    )
    if refused is not None:
        raise HttpError(400, "validation_error", refused.message, refused.details)
    key = h.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 255:
        raise HttpError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters")
    try:
        run, replay = store.create(
            workflow_id, doc.get("inputs") or {}, doc.get("metadata") or {}, doc, key, h.tenant
        )
    except IdempotencyMismatch:
        raise HttpError(
            409,
            "idempotency_key_mismatch",
            "this Idempotency-Key was already used with a different body",
        ) from None
    wire = h.wire
    headers = {"Location": wire.run_path(run.run_id)}
    if replay:
        headers["OpenWOP-Idempotent-Replay"] = "true"
    body = run.create_response
    if wire.major == 2:
        # v2's response is closed; its links name the run as one projected segment.
        body = {
            "runId": wire.run_id(run.run_id),
            "status": body["status"],
            "eventsUrl": f"{wire.run_path(run.run_id)}/events",
            "statusUrl": wire.run_path(run.run_id),
        }
    h.send_json(201, body, headers)


def _run(h: DemoRequestHandler, req: Request) -> Run:
    return run_named(h, req.run_id or "")


def run_named(h: DemoRequestHandler, given: str) -> Run:
    """The run a path segment names, in the major the request speaks (v2 projects tenant-bound
    ids); 403 for another tenant's id, 404 for no such run. Every route with a run id in its
    path finds its run here, so each takes the same spellings of an id (`Wire.internal_run_id`)."""
    try:
        internal = h.wire.internal_run_id(given)
    except WrongTenant:
        # identity.md §5: refused without saying whether such a run exists.
        raise HttpError(
            403, "id_tenant_mismatch", "that run id belongs to another tenant than this key"
        ) from None
    run = h.host.store.get(internal)
    if run is None:
        raise HttpError(404, "run_not_found", f"no run '{given[:200]}' on this host")
    return run


def snapshot_body(h: DemoRequestHandler, run: Run) -> dict[str, Any]:
    """A run's snapshot as the request's major has it (v2: bound id, ``owner``, era 3)."""
    body = run.snapshot()
    if h.wire.major == 2:
        body["runId"] = h.wire.run_id(body["runId"])
        body.update(owner=OWNER, eventLogSchemaVersion=3)
    return body


def snapshot(h: DemoRequestHandler, req: Request) -> None:
    """``GET …/runs/{runId}``."""
    h.send_json(200, snapshot_body(h, _run(h, req)))


def _last_event_id(value: str | None) -> int:
    # Lenient: an id that is not a sequence number means "from the start", not an error.
    try:
        return max(-1, int(value.strip())) if value is not None else -1
    except ValueError:
        return -1


def events(h: DemoRequestHandler, req: Request) -> None:
    """``GET …/runs/{runId}/events``: SSE when asked for (batched with ``?bufferMs=``), else
    JSON ``{events}`` so far."""
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
        times = h.host.faults.status_times
        first = "the first request" if times == 1 else f"the first {times} requests"
        raise HttpError(
            status, code, f"fault injection: --status {status} on {first}", None, headers
        )
    buffer_ms: float | None = None
    if req.query.get("bufferMs"):
        buffer_ms = _number(req, "bufferMs", 0)
        if not 0 <= buffer_ms <= MAX_BUFFER_MS:
            raise HttpError(
                400, "validation_error", "'bufferMs' must be 0 to 5000", {"field": "bufferMs"}
            )
    after = _last_event_id(h.headers.get("Last-Event-ID"))
    if "text/event-stream" not in h.headers.get("Accept", ""):
        batch = run.wait_after(after, 0)
        docs = [h.wire.event(doc) for doc in batch.events if admitted(doc, modes)]
        h.send_json(200, {"events": docs})
        return
    if buffer_ms is not None:
        _stream_batches(h, run, modes, after, buffer_ms / 1000)
        return
    _stream(h, run, modes, after)


def _open_stream(h: DemoRequestHandler) -> None:
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


def _stream_batches(
    h: DemoRequestHandler, run: Run, modes: tuple[str, ...], after: int, buffer: float
) -> None:
    """``?bufferMs=``: the admitted events as ``event: batch`` frames.

    A batch is cut after a terminal event or ``node.suspended`` (spec/v2/core/events.md §SSE
    frames). No faults are injected here.

    Args:
        h: The request's handler, whose connection is written to.
        run: The run streamed.
        modes: The stream modes asked for; events none of them admits are left out.
        after: The sequence after which events are sent.
        buffer: Seconds events are gathered for after the first of a batch.
    """
    _open_stream(h)
    keepalive = h.host.keepalive
    last_write = time.monotonic()
    while True:
        batch = run.wait_after(after, keepalive)
        docs = list(batch.events)
        deadline = time.monotonic() + buffer
        while (
            docs
            and not batch.done
            and docs[-1]["type"] not in FLUSH_TYPES
            and (left := deadline - time.monotonic()) > 0
        ):
            batch = run.wait_after(docs[-1]["sequence"], left)
            docs.extend(batch.events)
        if docs:
            after = docs[-1]["sequence"]
        group: list[dict[str, Any]] = []
        for doc in docs:
            if admitted(doc, modes):
                group.append(h.wire.event(doc))
            if group and (doc["type"] in FLUSH_TYPES or doc is docs[-1]):
                h.wfile.write(batch_frame(group).encode())
                last_write, group = time.monotonic(), []
        if (
            not docs
            and not batch.done
            and keepalive is not None
            and time.monotonic() - last_write >= keepalive
        ):
            h.wfile.write(b": keepalive\n\n")
            last_write = time.monotonic()
        if batch.done:
            return


def _stream(h: DemoRequestHandler, run: Run, modes: tuple[str, ...], after: int) -> None:
    """The run's events as SSE frames to its end, with the host's faults injected.

    Args:
        h: The request's handler, whose connection is written to.
        run: The run streamed.
        modes: The stream modes asked for; events none of them admits are left out.
        after: The sequence after which events are sent.
    """
    _open_stream(h)
    keepalive = h.host.keepalive
    faults = h.host.faults
    sent = 0  # event frames this connection has sent whole (the faults count them)
    last_write = time.monotonic()
    while True:
        batch = run.wait_after(after, keepalive)
        frames = [
            text
            for doc in batch.events
            if (text := frame(doc, modes, h.wire.event(doc))) is not None
        ]
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
    """Hold the next frame back ``seconds`` (a fault), still sending keep-alives if they are on;
    True when the host shuts down meanwhile.

    Args:
        h: The request's handler, whose connection is written to.
        run: The run streamed; its closing ends the wait.
        seconds: How long to hold the frame.
        keepalive: Seconds between keep-alive comments; None sends none.
    """
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
    """``GET …/runs/{runId}/events/poll?afterSequence=N&timeout=S``: long-poll for events.

    The v1 SDK (``openwop-client`` 1.x) names the cursor ``lastSequence`` and reads
    ``isComplete``; on the v1 wire both are honoured too, so a 1.x poller ends."""
    run = _run(h, req)
    cursor = "afterSequence"
    if h.wire.major == 1 and cursor not in req.query and "lastSequence" in req.query:
        cursor = "lastSequence"
    after = max(-1, int(_number(req, cursor, -1)))
    timeout = min(MAX_POLL_TIMEOUT, max(0.0, _number(req, "timeout", 30)))
    batch = run.wait_after(after, timeout)
    terminal = batch.status in TERMINAL_STATUS.values()
    body: dict[str, Any] = {
        "runId": h.wire.run_id(run.run_id),
        "events": [h.wire.event(doc) for doc in batch.events],
        "lastSequence": batch.last_sequence,
        "status": batch.status,
        "isTerminal": terminal,
    }
    if h.wire.major == 1:
        body["isComplete"] = terminal
    h.send_json(200, body)


def cancel(h: DemoRequestHandler, req: Request) -> None:
    """``POST …/runs/{runId}/cancel {reason?}``: cancel now; 409 once terminal."""
    run = _run(h, req)
    reason = json_body(req, required=False).get("reason", "cancelled by the client")
    if not isinstance(reason, str):
        raise HttpError(400, "validation_error", "'reason' must be a string", {"field": "reason"})
    if not run.cancel(reason[:500]):
        raise HttpError(
            409, "run_terminal", f"the run is already {run.status}", {"runStatus": run.status}
        )
    h.send_json(200, {"runId": h.wire.run_id(run.run_id), "status": "cancelled"})
