"""The end of a run whose host closed the stream early: once the host says the run is over and
a resume brings nothing, what was missed is polled for, else the run ends from its snapshot with
a warning saying how many events are missing; a subscription asked to begin past a finished
run's end (``attach --from`` too late) is told so plainly (`recover`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from openwop_tui.protocol.acceptance import StreamState
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.errors import HostError
from openwop_tui.protocol.reconnect import attach_command
from openwop_tui.protocol.stream_items import Arrival, StreamItem, StreamNotice, synthesize_terminal
from openwop_tui.text.sanitize import clean_own

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


def _past_the_end(client: HostClient, state: StreamState, last: int | None, status: object) -> str:
    """The sentence for a subscription asked to begin past a finished run's end (``attach
    --from`` too late): how many events the run has, that the start asked for is past them,
    and the command that shows them.

    Args:
        client: The client of the run's host.
        state: The subscription's state (the run, the sequence it began after).
        last: The run's last sequence (-1: it has none; ``None``: the host will not say).
        status: The run's final status.
    """
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


async def recover(
    client: HostClient, state: StreamState, snapshot: Mapping[str, Any]
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
