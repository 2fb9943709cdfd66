"""Subscribing to a run's events: SSE with resume, de-duplication, mode fallback and polling.

httpx-sse opens the connection (it sets ``Accept: text/event-stream``) but does not reconnect or
resume (design.md, platform facts): `subscribe` owns that loop. Frames are decoded by our own
`SSEDecoder` rather than ``EventSource.aiter_sse``: httpx-sse carries the previous ``id:`` onto
frames that have none (id-less batches and bare chunks would then look like duplicates) and drops
an unterminated last frame, and captures and live streams should decode the same way.

* Every event's ``sequence`` is tracked (batch arrays included); an event whose sequence is not
  above the highest seen is a duplicate (two modes admitted it, or a resume overlapped) and is
  dropped. Events without a sequence always pass.
* A dropped connection, a network error, 429 or 5xx: reconnect with ``Last-Event-ID: <highest>``
  after a short capped backoff that honours ``retry:`` and ``Retry-After``, with an info notice
  each time (protocol.md §3.3). ``max_reconnects`` failures in a row without a new event and the
  last `HostError` is raised.
* ``400 unsupported_stream_mode``: retry with the supported subset of the requested modes
  (``details.supported``), else ``updates``, else no ``streamMode`` at all, with a warning notice.
* A clean close without a terminal event (the Python host answers ``messages`` on a run without
  chunks with an empty 200, protocol.md §10): ask for the snapshot; a terminal status becomes a
  synthesized terminal event (``raw["synthesized"] is True``) so the UI can end the run; otherwise
  reconnect.
* A JSON answer instead of an event stream (content negotiation, protocol.md §3.1): its
  ``events`` are used, then ``…/events/poll`` is polled until the run is terminal.
* The subscription ends after ``run.completed``, ``run.failed`` or ``run.cancelled``.

Malformed frames never raise: each becomes a warning `StreamNotice` holding the frame's text.
401, 403, 404 and other errors that retrying cannot fix raise `HostError` at once.
No Textual here; the app runs `subscribe` in a worker and cancels the worker to stop it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias
from urllib.parse import quote

import httpx
from httpx_sse import aconnect_sse

from openwop_tui.protocol.client import TERMINAL_STATUSES, HostClient
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize
from openwop_tui.protocol.hostdata import host_value
from openwop_tui.protocol.sse import SSEDecoder, SSEFrame, decode_frame, safe_raw
from openwop_tui.sanitize import clean

__all__ = [
    "KNOWN_MODES",
    "MAX_DELAY",
    "POLL_IDLE_DELAY",
    "StreamItem",
    "StreamNotice",
    "subscribe",
    "synthesize_terminal",
]

#: Stream modes the spec defines (protocol.md §3.4).
KNOWN_MODES = ("values", "updates", "messages", "debug")

#: Longest pause between reconnects, whatever the host asks: the UI is waiting.
MAX_DELAY = 10.0
#: First backoff step when the host gave no ``retry:``.
BASE_DELAY = 0.5
#: Pause between polls that brought nothing new (for hosts that do not hold the request open).
POLL_IDLE_DELAY = 1.0

#: Statuses worth reconnecting on; everything else is final (protocol.md §2.6, §3.3).
_RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
_FATAL_STATUSES = frozenset({401, 403, 404})

_TERMINAL_EVENT = {
    "completed": "run.completed",
    "failed": "run.failed",
    "cancelled": "run.cancelled",
}

Sleep: TypeAlias = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class StreamNotice:
    """Something the user should know about the stream itself (not a run event)."""

    level: Literal["info", "warning", "error"]
    message: str
    raw: str | None = None
    """The frame text a warning is about: cleaned (and, where it is made, the API key masked
    and the text cut), so it is safe to show."""

    def __post_init__(self) -> None:
        # Belt and braces for notices built anywhere: what a notice holds is always printable.
        object.__setattr__(self, "message", clean(self.message))
        if self.raw is not None:
            object.__setattr__(self, "raw", clean(self.raw))


StreamItem: TypeAlias = RunEvent | StreamNotice


def synthesize_terminal(run_id: str, snapshot: Mapping[str, Any]) -> RunEvent | None:
    """A terminal run event built from a terminal run snapshot; ``None`` if it is not terminal.

    ``raw`` is ``{"synthesized": True, "status": …, "snapshot": …}`` so the inspector can say the
    host never sent it. ``run.failed`` carries the snapshot's ``error``; ``run.completed`` its
    ``outputs`` when it has them.
    """
    status = snapshot.get("status")
    if not isinstance(status, str):
        status = snapshot.get("runStatus")  # the poll endpoint's spelling on reference hosts
    if not isinstance(status, str) or status not in _TERMINAL_EVENT:
        return None
    payload: dict[str, Any] = {}
    if status == "completed":
        outputs = snapshot.get("outputs")
        payload["outputs"] = dict(outputs) if isinstance(outputs, Mapping) else {}
    elif status == "failed":
        error = snapshot.get("error")
        if isinstance(error, Mapping):
            payload["error"] = dict(error)
    else:
        reason = snapshot.get("reason")
        if isinstance(reason, str):
            payload["reason"] = reason
    return RunEvent(
        type=_TERMINAL_EVENT[status],
        payload=payload,
        sequence=None,
        run_id=run_id,
        raw={"synthesized": True, "status": status, "snapshot": dict(snapshot)},
    )


@dataclass(slots=True)
class _State:
    """What the subscription knows across connections."""

    run_id: str
    modes: str | None
    highest: int | None
    retry_ms: int | None = None
    terminal: bool = False
    new_events: int = 0
    """Events passed on since the last reset (one connection, or one poll)."""
    secrets: tuple[str, ...] = ()
    """What to mask in host data (the client's API key)."""

    def accept(self, event: RunEvent) -> list[StreamItem]:
        """Drop duplicates, track the highest sequence, spot the end of the run."""
        if self.terminal:
            return []
        if event.sequence is not None:
            if self.highest is not None and event.sequence <= self.highest:
                return []
            self.highest = event.sequence
        self.new_events += 1
        if event.is_terminal:
            self.terminal = True
            return [event]
        if event.type == "state.snapshot":
            # In `values` mode a snapshot with a terminal status is the end (protocol.md §3.5).
            closing = synthesize_terminal(self.run_id, event.payload)
            if closing is not None:
                self.terminal = True
                return [event, closing]
        return [event]

    def accept_frame(self, frame: SSEFrame) -> list[StreamItem]:
        if frame.retry is not None:
            self.retry_ms = frame.retry
        result = decode_frame(frame, secrets=self.secrets)
        items: list[StreamItem] = [
            StreamNotice("warning", f"Skipped a malformed frame: {problem}", result.raw)
            for problem in result.problems
        ]
        for event in result.events:
            items.extend(self.accept(event))
        return items

    def accept_documents(self, documents: Iterable[Any], where: str) -> list[StreamItem]:
        """Events from a JSON ``events`` array (the JSON answer, or a poll)."""
        items: list[StreamItem] = []
        for index, doc in enumerate(documents):
            try:
                event = normalize(doc, secrets=self.secrets)
            except EventShapeError as error:
                text = safe_raw(json.dumps(host_value(doc, self.secrets)), self.secrets)
                items.append(
                    StreamNotice(
                        "warning", f"Skipped event {index + 1} of the {where}: {error}", text
                    )
                )
                continue
            items.extend(self.accept(event))
        return items


@dataclass(slots=True)
class _Outcome:
    """How one connection ended."""

    kind: Literal["terminal", "closed", "retry", "fallback", "json"] = "closed"
    error: HostError | None = None
    body: str = ""


def _query(modes: str | None) -> str:
    return f"?streamMode={quote(modes, safe=',')}" if modes else ""


async def _connect_once(
    client: HostClient, state: _State, outcome: _Outcome, read_timeout: float | None
) -> AsyncIterator[StreamItem]:
    """One SSE connection: yield what it brings and record in ``outcome`` how it ended."""
    url = client.events_url(state.run_id) + _query(state.modes)
    headers = client.request_headers()
    if state.highest is not None:
        headers["Last-Event-ID"] = str(state.highest)
    # No read timeout by default: a run waiting for a human keeps the stream open and silent
    # (the Python host sends no keep-alives), exactly as a browser EventSource would wait.
    timeout = httpx.Timeout(client.timeout, read=read_timeout)
    action = f"stream the events of run {state.run_id!r}"
    try:
        async with aconnect_sse(client.http, "GET", url, headers=headers, timeout=timeout) as sse:
            response = sse.response
            if response.status_code != 200:
                body = await response.aread()
                error = client.error_for_response(
                    response, body, action=action, subject=state.run_id
                )
                if response.status_code == 400 and error.code == "unsupported_stream_mode":
                    outcome.kind, outcome.error = "fallback", error
                elif response.status_code in _RETRYABLE_STATUSES:
                    outcome.kind, outcome.error = "retry", error
                else:
                    raise error
                return
            content_type = response.headers.get("content-type", "").partition(";")[0].strip()
            if content_type.lower() != "text/event-stream":
                body = await response.aread()
                outcome.kind, outcome.body = "json", body.decode("utf-8", errors="replace")
                return
            decoder = SSEDecoder()
            async for text in response.aiter_text():
                for frame in decoder.feed(text):
                    for item in state.accept_frame(frame):
                        yield item
                    if state.terminal:
                        outcome.kind = "terminal"
                        return
            for frame in decoder.close():
                for item in state.accept_frame(frame):
                    yield item
            outcome.kind = "terminal" if state.terminal else "closed"
    except httpx.UnsupportedProtocol as exc:
        raise client.error_for_exception(exc, action=action) from None
    except httpx.TransportError as exc:
        outcome.kind, outcome.error = "retry", client.error_for_exception(exc, action=action)


def _fallback_modes(current: str | None, error: HostError) -> str | None:
    """The modes to ask for after ``unsupported_stream_mode``; raises when nothing is left."""
    details = error.details if isinstance(error.details, Mapping) else {}
    supported = details.get("supported")
    allowed = [m for m in supported if isinstance(m, str)] if isinstance(supported, list) else []
    requested = [m for m in (current or "").split(",") if m]
    subset = [m for m in requested if m in allowed]
    if subset and subset != requested:
        return ",".join(subset)
    if current not in (None, "updates"):
        return "updates"
    if current == "updates":
        return None  # leave the choice to the host: `updates` is its default anyway
    raise error


def _delay(failures: int, state: _State, error: HostError | None) -> float:
    if error is not None and error.retry_after is not None:
        return min(error.retry_after, MAX_DELAY)
    base = state.retry_ms / 1000 if state.retry_ms is not None else BASE_DELAY
    return min(base * 2.0 ** max(failures - 1, 0), MAX_DELAY)


def _gave_up(error: HostError, attempts: int) -> HostError:
    return HostError(
        f"{error.message} Gave up after {attempts} reconnect attempts.",
        status=error.status,
        code=error.code,
        retry_after=error.retry_after,
        details=error.details,
    )


async def subscribe(
    client: HostClient,
    run_id: str,
    *,
    modes: str | None = "updates,messages",
    last_event_id: int | None = None,
    max_reconnects: int = 5,
    sleep: Sleep = asyncio.sleep,
    read_timeout: float | None = None,
    poll_timeout: float = 30.0,
) -> AsyncIterator[StreamItem]:
    """Yield a run's events (and notices about the stream) until the run ends.

    ``last_event_id`` resumes after that sequence. ``sleep`` is how the backoff waits (tests pass
    a recorder). ``read_timeout`` bounds silence on an open stream (``None``: wait as long as the
    host keeps it open). Raises `HostError` when the host cannot be reached after
    ``max_reconnects`` attempts, or answers 401/403/404 or another error retrying cannot fix.
    """
    state = _State(
        run_id=run_id, modes=modes or None, highest=last_event_id, secrets=client.secrets
    )
    failures = 0
    while True:
        outcome = _Outcome()
        state.new_events = 0
        reason = ""
        async for item in _connect_once(client, state, outcome, read_timeout):
            yield item
        if state.new_events:
            failures = 0
        if outcome.kind == "terminal":
            return

        if outcome.kind == "fallback":
            assert outcome.error is not None
            before = state.modes
            state.modes = _fallback_modes(state.modes, outcome.error)
            lost = (
                " Replies will arrive whole, not token by token."
                if ("messages" in (before or "") and "messages" not in (state.modes or ""))
                else ""
            )
            yield StreamNotice(
                "warning",
                f"The host does not support stream mode {before!r} (400 unsupported_stream_mode);"
                f" continuing with {state.modes or 'the host default'!r}.{lost}",
            )
            continue

        if outcome.kind == "json":
            yield StreamNotice(
                "info", "The host answered with JSON, not an event stream; polling for events."
            )
            for item in _events_of_json(state, outcome.body):
                yield item
            if state.terminal:
                return
            async for item in _poll(client, state, sleep, max_reconnects, poll_timeout):
                yield item
            return

        error = outcome.error
        if outcome.kind == "closed":
            try:
                snapshot = await client.get_run(run_id)
            except HostError as snapshot_error:
                if snapshot_error.status in _FATAL_STATUSES:
                    raise
                error = snapshot_error
            else:
                status = snapshot.get("status")
                closing = synthesize_terminal(run_id, snapshot)
                if closing is not None:
                    yield StreamNotice(
                        "info", f"The event stream closed early; run status: {status}."
                    )
                    yield closing
                    return
                error = None
                reason = f"The event stream closed while the run is {status or 'still going'}."

        failures += 1
        if failures > max_reconnects:
            if error is None:
                error = HostError(
                    f"The event stream of run {run_id!r} keeps closing before the run ends.",
                    code="connection_error",
                )
            raise _gave_up(error, max_reconnects)
        delay = _delay(failures, state, error)
        if error is not None:
            reason = error.message
        after = f" after sequence {state.highest}" if state.highest is not None else ""
        yield StreamNotice(
            "info",
            f"{reason} Reconnecting in {delay:g} s{after} "
            f"(attempt {failures} of {max_reconnects}).",
        )
        await sleep(delay)


def _events_of_json(state: _State, body: str) -> list[StreamItem]:
    """Events from a JSON answer to the events URL: ``{events: […]}`` or a bare array."""
    try:
        doc = json.loads(body) if body.strip() else {"events": []}
    except json.JSONDecodeError as error:
        raw = safe_raw(body, state.secrets)
        return [StreamNotice("warning", f"The events answer is not JSON ({error.msg}).", raw)]
    except (ValueError, RecursionError) as error:  # valid JSON that Python will not build
        raw = safe_raw(body, state.secrets)
        return [StreamNotice("warning", f"The events answer cannot be read ({error}).", raw)]
    events = doc.get("events") if isinstance(doc, Mapping) else doc
    if not isinstance(events, list):
        raw = safe_raw(body, state.secrets)
        return [StreamNotice("warning", "The events answer has no 'events' list.", raw)]
    return state.accept_documents(events, "events answer")


async def _poll(
    client: HostClient, state: _State, sleep: Sleep, max_retries: int, poll_timeout: float
) -> AsyncIterator[StreamItem]:
    """Poll ``…/events/poll`` until the run is terminal (protocol.md §3.5)."""
    failures = 0
    while not state.terminal:
        try:
            doc = await client.poll_events(state.run_id, state.highest, timeout=poll_timeout)
        except HostError as error:
            if error.status is not None and error.status not in _RETRYABLE_STATUSES:
                raise
            failures += 1
            if failures > max_retries:
                raise _gave_up(error, max_retries) from None
            delay = _delay(failures, state, error)
            yield StreamNotice(
                "info",
                f"{error.message} Polling again in {delay:g} s "
                f"(attempt {failures} of {max_retries}).",
            )
            await sleep(delay)
            continue
        failures = 0
        state.new_events = 0
        events = doc.get("events")
        if isinstance(events, list):
            for item in state.accept_documents(events, "poll answer"):
                yield item
        else:
            yield StreamNotice("warning", "A poll answer had no 'events' list.", json.dumps(doc))
        if state.terminal:
            return
        status = doc.get("status", doc.get("runStatus"))
        if doc.get("isTerminal") is True or (
            isinstance(status, str) and status in TERMINAL_STATUSES
        ):
            # Terminal, yet no terminal event came (filtered, or already consumed): end from
            # the snapshot, which carries the outputs or the error.
            try:
                snapshot: Mapping[str, Any] = await client.get_run(state.run_id)
            except HostError:
                snapshot = doc
            closing = synthesize_terminal(state.run_id, snapshot) or synthesize_terminal(
                state.run_id, doc
            )
            if closing is None:
                yield StreamNotice(
                    "warning", f"Polling ended; the host says the run is over ({status})."
                )
            else:
                yield StreamNotice("info", f"Polling ended; run status: {closing.raw['status']}.")
                yield closing
            return
        if not state.new_events:
            await sleep(POLL_IDLE_DELAY)
