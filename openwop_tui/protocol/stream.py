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

Where it is: `subscribe` (here) owns the loop of connections, the mode fallback, the JSON answer
and polling; one SSE connection is `openwop_tui.protocol.sse_connection`, the acceptance rules
(and `Redelivery`) `openwop_tui.protocol.acceptance`, what is yielded and logged
`openwop_tui.protocol.stream_items`, and the end of a run the stream did not bring
`openwop_tui.protocol.recovery`.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from openwop_tui.protocol.acceptance import StreamState
from openwop_tui.protocol.client import TERMINAL_STATUSES, HostClient
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.frames import safe_raw
from openwop_tui.protocol.reconnect import (
    BASE_DELAY,
    DEFAULT_BUDGET,
    MAX_DELAY,
    Clock,
    Random,
    Reconnects,
    attach_command,
)
from openwop_tui.protocol.recovery import recover
from openwop_tui.protocol.sse_connection import (
    FATAL_STATUSES,
    RETRYABLE_STATUSES,
    Outcome,
    connect_once,
    status_of,
)
from openwop_tui.protocol.stream_items import (
    Arrival,
    ArrivalSink,
    StreamItem,
    StreamNotice,
    synthesize_terminal,
)
from openwop_tui.protocol.waits import span
from openwop_tui.text.sanitize import clean_own

__all__ = [
    "BASE_DELAY",
    "DEFAULT_BUDGET",
    "KNOWN_MODES",
    "MAX_DELAY",
    "POLL_IDLE_DELAY",
    "subscribe",
]

#: Stream modes the spec defines (protocol.md §3.4).
KNOWN_MODES = ("values", "updates", "messages", "debug")

#: Pause between polls that brought nothing new (for hosts that do not hold the request open).
POLL_IDLE_DELAY = 1.0

Sleep: TypeAlias = Callable[[float], Awaitable[None]]


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


def _gave_up(
    client: HostClient, budget: Reconnects, error: HostError, state: StreamState
) -> HostError:
    """The `HostError` a spent reconnect budget raises: ``error`` naming the run and the
    ``attach`` command that follows it again.

    Args:
        client: The client of the run's host.
        budget: The spent reconnect budget.
        error: The last failure.
        state: The subscription's state (its run, and how far it got).
    """
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

    A silent stream (``idle_timeout``) has its run checked: a run waiting for a human is left
    to wait, any other is resumed. Raises `HostError` when the host cannot be reached within
    the budget, or answers 401/403/404 or another error retrying cannot fix.

    Args:
        client: The client of the run's host.
        run_id: The run whose events are read.
        modes: The ``streamMode`` asked for (comma-separated; ``None``: the host's default).
        last_event_id: The sequence to resume after (``None``: from the start).
        reconnect_budget: Seconds a streak of failed reconnects may last (0: none).
        max_reconnects: An extra cap on the number of reconnects in a streak.
        sleep: How the backoff waits (tests pass a recorder).
        clock: How the budget is measured (tests pass a clock the recorder moves).
        jitter: Where the backoff's random share comes from (tests pass a constant).
        read_timeout: Seconds of silence the transport allows on an open stream (``None``:
            wait as long as the host keeps it open).
        poll_timeout: Seconds the host may hold one poll open.
        idle_timeout: Seconds without a byte before the run is checked (``None`` or 0: never).
        on_arrival: Told each `Arrival` before the events it brings are yielded.
    """
    state = StreamState(
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
        outcome = Outcome()
        state.new_events = 0
        reason = ""
        async for item in connect_once(client, state, outcome, read_timeout, idle_timeout):
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
                    if snapshot_error.status in FATAL_STATUSES:
                        raise
                    error = snapshot_error
            if snapshot is not None:
                status = status_of(snapshot)
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
                    async for item in recover(client, state, snapshot):
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
def _events_of_json(state: StreamState, body: str) -> list[StreamItem]:
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
    client: HostClient, state: StreamState, sleep: Sleep, budget: Reconnects, poll_timeout: float
) -> AsyncIterator[StreamItem]:
    """Poll ``…/events/poll`` until the run is terminal (protocol.md §3.5).

    Args:
        client: The client of the run's host.
        state: The subscription's state.
        sleep: How a pause between polls waits.
        budget: The reconnect budget failed polls spend.
        poll_timeout: Seconds the host may hold one poll open.
    """
    budget.reset()
    while not state.terminal:
        try:
            doc = await client.poll_events(state.run_id, state.highest, timeout=poll_timeout)
        except HostError as error:
            if error.status is not None and error.status not in RETRYABLE_STATUSES:
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
