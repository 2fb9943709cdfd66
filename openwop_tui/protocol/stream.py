"""Subscribing to a run's events: SSE with resume, de-duplication, mode fallback and polling.

httpx-sse opens the connection (it sets ``Accept: text/event-stream``) but does not reconnect or
resume (design.md, platform facts): `subscribe` owns that loop. Frames are decoded by our own
`SSEDecoder` rather than ``EventSource.aiter_sse``: httpx-sse carries the previous ``id:`` onto
frames that have none (id-less batches and bare chunks would then look like duplicates) and drops
an unterminated last frame, and captures and live streams should decode the same way.

* Every event's ``sequence`` is tracked (batch arrays included); an event whose sequence is not
  above the highest seen is a duplicate (two modes admitted it, or a resume overlapped, or a
  host ignored ``Last-Event-ID``) and is dropped, as is an event without a sequence whose
  ``eventId`` came before; a frame none of whose events is taken is not logged either. An event
  naming another run is refused (neither shown nor logged), said in one line; a jump in the
  sequence is said (`openwop_tui.protocol.stream_checks`).
* A dropped connection, a network error, 429 or 5xx: reconnect with ``Last-Event-ID: <highest>``
  after the host's ``Retry-After`` (clamped), or else a jittered backoff growing from ``retry:``,
  with an info notice each time (protocol.md §3.3). Failures in a row without a new event spend
  a budget of time (``reconnect_budget``, five minutes by default; see
  `openwop_tui.protocol.reconnect`); once it is spent the last `HostError` is raised, naming
  the run and the ``attach`` command that follows it again.
* A frame cut short by a disconnect (the connection ends, cleanly or not, before the frame's
  blank line) is not malformed: it is discarded silently, as the SSE spec discards an
  unterminated event at EOF, and read again after the resume. An unterminated last frame that
  decodes whole is kept (a host that forgot the last blank line still ends its run).
* ``400 unsupported_stream_mode``: retry with the supported subset of the requested modes
  (``details.supported``), else ``updates``, else no ``streamMode`` at all, with a warning notice.
* A close without a terminal event: ask for the snapshot. While the run goes on, reconnect. Once
  the host says the run is over, the events sent while the client was away are still owed: it
  resumes with ``Last-Event-ID`` at once, and keeps resuming while that brings new events. When a
  resume brings nothing, ``…/events/poll`` after the highest sequence is asked (the Python host
  answers ``messages`` on a run without chunks with an empty 200, protocol.md §10, and sends no
  terminal event in that mode). Only when the host cannot give the events back does the run end
  from the snapshot: a synthesized terminal event (``raw["synthesized"] is True``) after a warning
  that says so, and how many events are missing when the host tells its last sequence.
* ``idle_timeout``: a stream that brings no bytes at all (keep-alive comments count as life) for
  that long gets a notice, then the run is checked. A run waiting for a human is left to wait (the
  Python host sends no keep-alives while a run is suspended); any other run is resumed with
  ``Last-Event-ID``, counted as a reconnect attempt.
* A JSON answer instead of an event stream (content negotiation, protocol.md §3.1): its
  ``events`` are used, then ``…/events/poll`` is polled until the run is terminal.
* The subscription ends after ``run.completed``, ``run.failed`` or ``run.cancelled``.
* ``on_arrival`` (for an event log or a recording) is told the raw material of everything that
  brings events, as it arrives: each SSE frame exactly as received (duplicates and malformed
  frames too, not a frame cut by a disconnect), each event document of a JSON answer or a poll,
  and the snapshot a terminal event was synthesized from. `Redelivery` feeds such a log back
  through the same acceptance rules, so a reopened log folds exactly as the live stream did.

Malformed frames never raise: each becomes a warning `StreamNotice` holding the frame's text.
401, 403, 404 and other errors that retrying cannot fix raise `HostError` at once.
No Textual here; the app runs `subscribe` in a worker and cancels the worker to stop it.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias
from urllib.parse import quote

import httpx
from httpx_sse import aconnect_sse

from openwop_tui.protocol.client import TERMINAL_STATUSES, HostClient
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize
from openwop_tui.protocol.frames import decode_frame, safe_raw
from openwop_tui.protocol.hostdata import host_text, host_value
from openwop_tui.protocol.reconnect import (
    BASE_DELAY,
    DEFAULT_BUDGET,
    MAX_DELAY,
    Clock,
    Random,
    Reconnects,
    attach_command,
)
from openwop_tui.protocol.sse import SSEDecoder, SSEFrame
from openwop_tui.protocol.stream_checks import every_event, foreign_sentence, gap_sentence
from openwop_tui.protocol.waits import span
from openwop_tui.text.sanitize import HostText, clean, clean_own

__all__ = [
    "BASE_DELAY",
    "DEFAULT_BUDGET",
    "KNOWN_MODES",
    "MAX_DELAY",
    "POLL_IDLE_DELAY",
    "Arrival",
    "Redelivery",
    "StreamItem",
    "StreamNotice",
    "subscribe",
    "synthesize_terminal",
]

#: Stream modes the spec defines (protocol.md §3.4).
KNOWN_MODES = ("values", "updates", "messages", "debug")

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
    kind: Literal["note", "reconnecting"] = "note"
    """What the notice means for the connection, so a front end never reads it from the
    sentence: ``reconnecting`` while the client waits to open the stream again."""

    def __post_init__(self) -> None:
        # A boundary: notices are built all over the stream code from f-strings around host
        # values, exception messages and frame text; what a notice holds is always printable.
        object.__setattr__(self, "message", clean(self.message))
        if self.raw is not None:
            object.__setattr__(self, "raw", clean(self.raw))

    @property
    def shown(self) -> HostText:
        """The message, typed as the clean text `__post_init__` made it."""
        return HostText(self.message)


StreamItem: TypeAlias = RunEvent | StreamNotice


@dataclass(frozen=True, slots=True)
class Arrival:
    """The raw material of a run's events, as it arrived: what an event log keeps.

    Exactly one of the three is set. ``frame``: an SSE frame exactly as received (its ``event:``,
    ``id:`` and data text, never cleaned). ``document``: one event document of a JSON answer or
    a poll, as JSON text. ``snapshot``: the run snapshot a terminal event was synthesized from
    (the host sent no terminal event). Raw host text: stored, never shown.
    """

    frame: SSEFrame | None = None
    document: str | None = None
    snapshot: Mapping[str, Any] | None = None


ArrivalSink: TypeAlias = Callable[[Arrival], None]


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
        type=HostText(_TERMINAL_EVENT[status]),  # the client's own ASCII event names
        payload=payload,
        sequence=None,
        # A boundary: the run id is the caller's (the user's command line or a host answer).
        run_id=host_text(run_id),
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
    received: int = 0
    """Events passed on in this whole subscription."""
    began_after: int | None = None
    """The sequence this subscription was asked to begin after (``last_event_id``)."""
    secrets: tuple[str, ...] = ()
    """What to mask in host data (the client's API key)."""
    on_arrival: ArrivalSink | None = None
    own_run: bool = True
    """Whether ``run_id`` is the run's real id, so an event naming another run is refused
    (a log's frames before any run marker are given ``?``: nothing to check them against)."""
    foreign: dict[str, int] = field(default_factory=dict)
    """Events of other runs refused and not yet said, by run id (`said`)."""
    unsequenced: set[str] = field(default_factory=set)
    """Event ids of the events without a sequence passed on (their duplicates are known by
    them; an event with a sequence is known by that, and its id is not kept)."""
    own_id: str = ""
    """``run_id`` as an event's ``runId`` is read (cleaned host text): like with like."""

    def __post_init__(self) -> None:
        self.own_id = host_text(self.run_id)

    @property
    def past_the_end_maybe(self) -> bool:
        """Asked to begin after a sequence and given nothing since: the run may have no events
        that late (``attach --from`` past its end), which `_recover` then says plainly."""
        return self.began_after is not None and not self.received

    def accept(self, event: RunEvent) -> list[StreamItem]:
        """The acceptance rules, one place for every way events come (a stream, its
        reconnects, a catch-up, a poll, a log read back): an event of another run is refused
        (counted, said by `said`), a duplicate dropped (its sequence not above the highest, or
        the id of an event without one seen before), a jump in the sequence said; then the
        highest sequence is tracked and the end of the run spotted. What to pass on: the
        event (and a closing event it implies) after any notices; nothing when refused."""
        if self.terminal:
            return []
        if self.own_run and event.run_id is not None and event.run_id != self.own_id:
            self.foreign[event.run_id] = self.foreign.get(event.run_id, 0) + 1
            return []
        items = self.said() if self.foreign else []
        if event.sequence is not None:
            if self.highest is not None and event.sequence <= self.highest:
                return items
            if event.sequence > (self.highest if self.highest is not None else -1) + 1:
                gap = gap_sentence(self.highest, event.sequence, every=every_event(self.modes))
                if gap is not None:
                    items.append(StreamNotice("warning", gap))
            self.highest = event.sequence
        elif event.event_id is not None:
            if event.event_id in self.unsequenced:
                return items
            self.unsequenced.add(event.event_id)
        self.new_events += 1
        self.received += 1
        items.append(event)
        if event.is_terminal:
            self.terminal = True
        elif event.type == "state.snapshot":
            # In `values` mode a snapshot with a terminal status is the end (protocol.md §3.5).
            closing = synthesize_terminal(self.run_id, event.payload)
            if closing is not None:
                self.terminal = True
                items.append(closing)
        return items

    def said(self) -> list[StreamItem]:
        """The line about the events of other runs refused since it was last said (none when
        there were none): said before the next event passed on and when a connection ends."""
        if not self.foreign:
            return []
        counts, self.foreign = self.foreign, {}
        sentence = foreign_sentence(counts, self.run_id, catching_up=self.began_after is not None)
        return [StreamNotice("warning", sentence)]

    def accept_frame(self, frame: SSEFrame, *, cut: bool = False) -> list[StreamItem]:
        """Events and warnings of one frame. ``cut``: the connection ended inside this frame,
        so what cannot be read is the cut, not the host's fault: it is dropped without a word
        (the resume sends the frame again). The frame is logged (``on_arrival``) unless each
        of its events was refused or dropped: a frame of another run is not kept as this
        run's, and one already given is not kept twice."""
        result = decode_frame(frame, secrets=self.secrets)
        if cut and result.problems:
            return []
        if frame.retry is not None:
            self.retry_ms = frame.retry
        items: list[StreamItem] = [
            StreamNotice("warning", f"Skipped a malformed frame: {problem}", result.raw)
            for problem in result.problems
        ]
        before = self.received
        for event in result.events:
            items.extend(self.accept(event))
        kept = not result.events or self.received != before
        if self.on_arrival is not None and (frame.data or frame.problem) and kept:
            self.on_arrival(Arrival(frame=frame))
        return items

    def accept_documents(self, documents: Iterable[Any], where: str) -> list[StreamItem]:
        """Events from a JSON ``events`` array (the JSON answer, or a poll); each document
        logged as `accept_frame` logs a frame."""
        items: list[StreamItem] = []
        for index, doc in enumerate(documents):
            try:
                event = normalize(doc, secrets=self.secrets)
            except EventShapeError as error:
                if self.on_arrival is not None:
                    self.on_arrival(Arrival(document=_document_text(doc)))
                text = safe_raw(json.dumps(host_value(doc, self.secrets)), self.secrets)
                items.append(
                    StreamNotice(
                        "warning", f"Skipped event {index + 1} of the {where}: {error}", text
                    )
                )
                continue
            before = self.received
            taken = self.accept(event)
            if self.on_arrival is not None and self.received != before:
                self.on_arrival(Arrival(document=_document_text(doc)))
            items.extend(taken)
        return items + self.said()


def _document_text(doc: Any) -> str:
    """An event document as JSON text for the log (ASCII: a lone surrogate stays escaped)."""
    try:
        return json.dumps(doc, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return json.dumps(repr(doc))


class Redelivery:
    """A logged run's `Arrival`\\ s fed back through the live acceptance rules (pure).

    Duplicates are dropped by sequence, nothing passes after the terminal event, a terminal
    ``state.snapshot`` ends the run, malformed frames become the same warnings: what comes out
    is what `subscribe` yielded when the arrivals were live (its own notices about reconnects
    aside, which a log keeps separately).

    ``filtered=False`` passes every event of every frame through as decoded (a capture made by
    something else: it shows what the host sent, duplicates and events after the end too).
    """

    def __init__(self, run_id: str, secrets: Iterable[str] = (), *, filtered: bool = True) -> None:
        # (A log's frames before any run marker are given the run ``?``: not a run to check
        # their events against.)
        self._state = _State(
            run_id=run_id,
            modes=None,
            highest=None,
            secrets=tuple(secrets),
            own_run=run_id != "?",
        )
        self._filtered = filtered

    @property
    def ended(self) -> bool:
        """Whether the run's terminal event has come through."""
        return self._state.terminal

    @property
    def highest(self) -> int | None:
        """The highest sequence come through (``None``: none yet): what a stream picking the
        run up again resumes after."""
        return self._state.highest

    def take(self, arrival: Arrival) -> list[StreamItem]:
        """The events (and warnings) one arrival gives."""
        state = self._state
        if arrival.frame is not None and not self._filtered:
            result = decode_frame(arrival.frame, secrets=state.secrets)
            warnings: list[StreamItem] = [
                StreamNotice("warning", problem, result.raw) for problem in result.problems
            ]
            return [*warnings, *result.events]
        if arrival.frame is not None:
            return state.accept_frame(arrival.frame)
        if arrival.document is not None:
            try:
                doc = json.loads(arrival.document)
            except (ValueError, RecursionError):
                return [StreamNotice("warning", "A logged event document cannot be read.")]
            return state.accept_documents([doc], "log")
        if arrival.snapshot is not None and not state.terminal:
            # A boundary: a snapshot read back from a recorded log (a file) was never cleaned here.
            snapshot = host_value(arrival.snapshot, state.secrets)
            closing = synthesize_terminal(state.run_id, snapshot)
            if closing is not None:
                state.terminal = True
                return [closing]
        return []


@dataclass(slots=True)
class _Outcome:
    """How one connection ended."""

    kind: Literal["terminal", "closed", "retry", "fallback", "json", "idle"] = "closed"
    error: HostError | None = None
    body: str = ""
    snapshot: Mapping[str, Any] | None = None
    """``idle``: the run's snapshot read when the stream fell silent."""


def _query(modes: str | None) -> str:
    return f"?streamMode={quote(modes, safe=',')}" if modes else ""


def _status_of(snapshot: Mapping[str, Any]) -> str | None:
    status = snapshot.get("status", snapshot.get("runStatus"))
    return status if isinstance(status, str) else None


def waiting_for_human(status: str | None) -> bool:
    """Whether a run status means the run waits for a person (approval, input, a pause).

    Hosts spell these differently (``waiting-approval``, ``waiting-input``, ``suspended``,
    ``paused``…; protocol.md §2.3), so any status naming a wait, a suspension or a pause counts.
    """
    lowered = (status or "").lower()
    return any(word in lowered for word in _WAITING_WORDS)


#: Words of a run status that mean "waiting for a human" (see `waiting_for_human`).
_WAITING_WORDS = ("wait", "suspend", "pause", "interrupt", "approval", "input")


async def _next_chunk(chunks: AsyncIterator[bytes]) -> bytes | None:
    return await anext(chunks, None)


class _Silence:
    """What to do when an open stream brings no bytes for ``idle_timeout`` seconds."""

    def __init__(self, client: HostClient, state: _State, idle_timeout: float) -> None:
        self.client, self.state, self.idle_timeout = client, state, idle_timeout
        self.told = False
        """Whether this silent stretch was already reported (any byte starts a new one)."""

    async def check(self, outcome: _Outcome) -> tuple[list[StreamItem], bool]:
        """Notices to give, and whether to keep waiting on this connection."""
        items: list[StreamItem] = []
        seconds = f"{self.idle_timeout:g}"
        if not self.told:
            items.append(
                StreamNotice(
                    "info",
                    f"The event stream of run {self.state.run_id!r} has been silent for "
                    f"{seconds} s; checking the run.",
                )
            )
        try:
            snapshot = await self.client.get_run(self.state.run_id)
        except HostError as error:
            if error.status in _FATAL_STATUSES:
                raise
            outcome.kind, outcome.error = "retry", error
            return items, False
        status = _status_of(snapshot)
        if waiting_for_human(status):
            if not self.told:
                items.append(
                    StreamNotice(
                        "info",
                        f"The run is waiting for a human (status: {status}); still listening.",
                    )
                )
            self.told = True
            return items, True
        outcome.kind, outcome.snapshot = "idle", snapshot
        return items, False


async def _connect_once(
    client: HostClient,
    state: _State,
    outcome: _Outcome,
    read_timeout: float | None,
    idle_timeout: float | None,
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
    reading: asyncio.Task[bytes | None] | None = None
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
            # Bytes, not text: silence is measured in bytes (a keep-alive comment is life), and
            # SSE is UTF-8 whatever the headers say (WHATWG), decoded across chunk boundaries.
            text = codecs.getincrementaldecoder("utf-8")(errors="replace")
            chunks = response.aiter_bytes()
            silence = _Silence(client, state, idle_timeout) if idle_timeout else None
            while True:
                # The read runs as a task so a silent spell can be looked into without
                # cancelling it: httpcore closes a response whose read was cancelled.
                reading = reading or asyncio.ensure_future(_next_chunk(chunks))
                done, _ = await asyncio.wait({reading}, timeout=idle_timeout or None)
                if not done:
                    assert silence is not None
                    notices, keep_waiting = await silence.check(outcome)
                    for item in notices:
                        yield item
                    if keep_waiting:
                        continue
                    return
                chunk, reading = reading.result(), None
                if chunk is None:
                    break
                if silence is not None:
                    silence.told = False
                for frame in decoder.feed(text.decode(chunk)):
                    for item in state.accept_frame(frame):
                        yield item
                    if state.terminal:
                        outcome.kind = "terminal"
                        return
            # The host closed the stream before the run's end: a last frame without its blank
            # line may have been cut in two by the disconnect.
            for frame in decoder.feed(text.decode(b"", final=True)) + decoder.close():
                for item in state.accept_frame(frame, cut=True):
                    yield item
            outcome.kind = "terminal" if state.terminal else "closed"
    except httpx.UnsupportedProtocol as exc:
        raise client.error_for_exception(exc, action=action) from None
    except httpx.TransportError as exc:
        # What the decoder holds of an unfinished frame is dropped with it: no notice.
        outcome.kind, outcome.error = "retry", client.error_for_exception(exc, action=action)
    finally:
        if reading is not None and not reading.done():
            reading.cancel()


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


def _gave_up(client: HostClient, budget: Reconnects, error: HostError, state: _State) -> HostError:
    # The run id is the user's (attach RUN) or the host's answer; the URL is the user's.
    shown = clean_own(state.run_id)
    command: str = clean_own(
        attach_command(client.shown_url, state.run_id, keyed=bool(client.api_key))
    )
    if state.received and state.highest is not None:
        command += f" (add --from {state.highest + 1} to skip the events already shown)"
    return budget.gave_up(error, shown, command)


async def subscribe(
    client: HostClient,
    run_id: str,
    *,
    modes: str | None = "updates,messages",
    last_event_id: int | None = None,
    reconnect_budget: float = DEFAULT_BUDGET,
    max_reconnects: int | None = None,
    sleep: Sleep = asyncio.sleep,
    clock: Clock = time.monotonic,
    jitter: Random = random.random,
    read_timeout: float | None = None,
    poll_timeout: float = 30.0,
    idle_timeout: float | None = None,
    on_arrival: ArrivalSink | None = None,
) -> AsyncIterator[StreamItem]:
    """Yield a run's events (and notices about the stream) until the run ends.

    ``last_event_id`` resumes after that sequence. ``reconnect_budget``: seconds a streak of
    failed reconnects may last (0: none), ``max_reconnects`` an extra cap on their number.
    ``sleep`` is how the backoff waits and ``clock`` how the budget is measured (tests pass a
    recorder and a clock the recorder moves), ``jitter`` where the backoff's random share comes
    from (tests pass a constant). ``read_timeout`` bounds silence on an open stream
    at the transport (``None``: wait as long as the host keeps it open). ``idle_timeout``
    (seconds; ``None`` or 0: never) is how long a stream may bring no bytes before the run is
    checked: a run waiting for a human is left to wait, any other is resumed. Raises
    `HostError` when the host cannot be reached within the budget, or answers 401/403/404 or
    another error retrying cannot fix. ``on_arrival`` is told each `Arrival` before the events
    it brings are yielded.
    """
    state = _State(
        run_id=run_id,
        modes=modes or None,
        highest=last_event_id,
        secrets=client.secrets,
        on_arrival=on_arrival,
        began_after=last_event_id,
    )
    budget = Reconnects(reconnect_budget, clock, max_reconnects, jitter)
    ended: Mapping[str, Any] | None = None
    """The run's snapshot once the host said the run is over (it cannot change after that)."""
    while True:
        outcome = _Outcome()
        state.new_events = 0
        reason = ""
        async for item in _connect_once(client, state, outcome, read_timeout, idle_timeout):
            yield item
        for item in state.said():  # events of another run at the end of the connection
            yield item
        if state.new_events:
            budget.reset()
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
            async for item in _poll(client, state, sleep, budget, poll_timeout):
                yield item
            return

        error = outcome.error
        if outcome.kind in ("closed", "idle"):
            snapshot = ended or outcome.snapshot
            if snapshot is None:
                try:
                    snapshot = await client.get_run(run_id)
                except HostError as snapshot_error:
                    if snapshot_error.status in _FATAL_STATUSES:
                        raise
                    error = snapshot_error
            if snapshot is not None:
                status = _status_of(snapshot)
                if synthesize_terminal(run_id, snapshot) is not None:
                    if ended is None or state.new_events:
                        # The run ended while this client was away, or the last resume still
                        # brought events: what the host sent meanwhile is owed before the end.
                        first = ended is None
                        ended = snapshot
                        if first and not state.past_the_end_maybe:
                            after = state.highest if state.highest is not None else "the start"
                            yield StreamNotice(
                                "info",
                                f"The event stream closed before the run's end; the host says "
                                f"the run is {status}. Reading the events missed after "
                                f"sequence {after}.",
                            )
                        continue
                    async for item in _recover(client, state, snapshot):
                        yield item
                    return
                error = None
                silent = f"was silent for {idle_timeout:g} s" if outcome.kind == "idle" else ""
                reason = (
                    f"The event stream {silent or 'closed'} while the run is "
                    f"{status or 'still going'}."
                )

        delay = budget.next_delay(state.retry_ms, error.retry_after if error else None)
        if delay is None:
            if error is None:
                error = HostError(
                    f"The event stream of run {run_id!r} keeps closing before the run ends.",
                    code="connection_error",
                )
            raise _gave_up(client, budget, error, state)
        if error is not None:
            reason = error.message
        after = f" after sequence {state.highest}" if state.highest is not None else ""
        yield StreamNotice(
            "info",
            f"{reason} Reconnecting in {span(delay)}{after} ({budget.describe()}).",
            kind="reconnecting",
        )
        await sleep(delay)


#: Keys under which hosts tell the highest sequence in a run's log (the spec's poll answer says
#: ``lastSequence``, the Python host's ``lastEventSeq``).
_LAST_SEQUENCE_KEYS = ("lastSequence", "lastEventSeq", "lastEventSequence")


def _host_last_sequence(*docs: Mapping[str, Any] | None) -> int | None:
    """The highest sequence in the run's log, as the first document that tells it says."""
    for doc in docs:
        if doc is None:
            continue
        for key in _LAST_SEQUENCE_KEYS:
            value = doc.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        count = doc.get("eventCount")
        if isinstance(count, int) and not isinstance(count, bool):
            return count - 1
    return None


def _missing(highest: int | None, last: int | None) -> str:
    """How many events the client lacks, as far as the host's last sequence tells."""
    if last is None:
        return "How many events are missing is unknown (the host does not say)."
    have = highest if highest is not None else -1
    if last <= have:
        return "No events are missing but the run's end event."
    count = last - have
    span = f"sequence {last}" if count == 1 else f"sequences {have + 1} to {last}"
    # Some of them may be events the chosen stream modes would have left out anyway.
    if count == 1:
        return f"Up to 1 event ({span}) is missing."
    return f"Up to {count} events ({span}) are missing."


#: Most polls spent finding where a finished run's log ends (a cursor halves each time, so 64
#: reach the start from any 64-bit sequence).
_LOG_END_PROBES = 64


async def _log_end(client: HostClient, run_id: str, after: int) -> int | None:
    """The last sequence of a finished run with no events after ``after`` (-1: none at all),
    read from the events themselves, or ``None`` when the host will not say.

    Polls from a cursor halved each time until an answer holds events; that answer holds at
    most half the log, and its highest sequence is the run's last."""
    cursor: int | None = after
    for _ in range(_LOG_END_PROBES):
        cursor = None if cursor is None or cursor <= 0 else cursor // 2
        try:
            doc = await client.poll_events(run_id, cursor, timeout=RECOVERY_POLL_TIMEOUT)
        except HostError:
            return None
        events = doc.get("events")
        if not isinstance(events, list):
            return None
        sequences = [
            sequence
            for event in events
            if isinstance(event, Mapping)
            and isinstance(sequence := event.get("sequence", event.get("seq")), int)
            and not isinstance(sequence, bool)
        ]
        if sequences:
            return max(sequences)
        if cursor is None:
            return -1 if not events else None
    return None


def _past_the_end(client: HostClient, state: _State, last: int | None, status: object) -> str:
    """The sentence for a subscription asked to begin past a finished run's end (``attach
    --from`` too late): how many events the run has, that the start asked for is past them,
    and the command that shows them."""
    assert state.highest is not None
    run = clean_own(state.run_id)
    start = state.highest + 1
    command = clean_own(attach_command(client.shown_url, state.run_id, keyed=bool(client.api_key)))
    if last is None:
        has = f"Run {run} has no events from sequence {start} on (its host does not say how many)"
    elif last < 0:
        has = f"Run {run} has no events at all, so sequence {start} is past its end"
    else:
        count = f"{last + 1} event" + ("" if last == 0 else "s")
        numbers = "sequence 0" if last == 0 else f"sequences 0 to {last}"
        has = f"Run {run} has {count} ({numbers}), so sequence {start} is past its end"
    later = (
        f" (with --from N, N up to {last}, to begin part way)"
        if last is not None and last > 0
        else ""
    )
    see = f" See its events with: {command}{later}" if last is None or last >= 0 else ""
    return f"{has}. The run is {status}.{see}"


#: How long the recovery poll may wait on the host; the run is over, so it should not wait.
RECOVERY_POLL_TIMEOUT = 1.0


async def _recover(
    client: HostClient, state: _State, snapshot: Mapping[str, Any]
) -> AsyncIterator[StreamItem]:
    """The run is over and a resume brought nothing: poll for what was missed, else end from
    the snapshot and say what could not be got back."""
    why = ""
    doc: Mapping[str, Any] | None = None
    try:
        doc = await client.poll_events(state.run_id, state.highest, timeout=RECOVERY_POLL_TIMEOUT)
    except HostError as error:
        if error.status in (401, 403):
            raise
        why = error.message
    if doc is not None:
        events = doc.get("events")
        if isinstance(events, list):
            for item in state.accept_documents(events, "poll answer"):
                yield item
            if state.terminal:
                return
            why = "its poll answer has no end event"
        else:
            why = "its poll answer has no 'events' list"
    closing = synthesize_terminal(state.run_id, snapshot)
    assert closing is not None  # only called with a terminal snapshot
    if state.on_arrival is not None:
        state.on_arrival(Arrival(snapshot=snapshot))
    last = _host_last_sequence(doc, snapshot)
    highest = state.highest
    if state.past_the_end_maybe and highest is not None and (last is None or last <= highest):
        # Asked for events after the run's last one: nothing is missing, there is no more.
        if last is None or last == highest:
            # Not a count: the Python and SQLite reference hosts answer an empty poll with the
            # cursor they were given as their "last sequence" (a run of 8 "had 99 events").
            last = await _log_end(client, state.run_id, highest)
        yield StreamNotice("info", _past_the_end(client, state, last, closing.raw["status"]))
        yield closing
        return
    after = state.highest if state.highest is not None else "the start"
    missing = _missing(state.highest, last)
    yield StreamNotice(
        "warning",
        f"The host did not give back the events after sequence {after} ({why.rstrip('.')}); "
        f"ending the run from its snapshot (status: {closing.raw['status']}). {missing}",
    )
    yield closing


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
    client: HostClient, state: _State, sleep: Sleep, budget: Reconnects, poll_timeout: float
) -> AsyncIterator[StreamItem]:
    """Poll ``…/events/poll`` until the run is terminal (protocol.md §3.5)."""
    budget.reset()
    while not state.terminal:
        try:
            doc = await client.poll_events(state.run_id, state.highest, timeout=poll_timeout)
        except HostError as error:
            if error.status is not None and error.status not in _RETRYABLE_STATUSES:
                raise
            delay = budget.next_delay(state.retry_ms, error.retry_after)
            if delay is None:
                raise _gave_up(client, budget, error, state) from None
            yield StreamNotice(
                "info",
                f"{error.message} Polling again in {span(delay)} ({budget.describe()}).",
            )
            await sleep(delay)
            continue
        budget.reset()
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
                if state.on_arrival is not None:
                    state.on_arrival(Arrival(snapshot=closing.raw["snapshot"]))
                yield closing
            return
        if not state.new_events:
            await sleep(POLL_IDLE_DELAY)
