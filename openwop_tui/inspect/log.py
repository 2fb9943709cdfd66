"""A log's raw material turned into what the inspector folds: every event as the host sent it.

The transcript reads a log through the live acceptance rules (duplicates dropped, nothing after
the end: `openwop_tui.protocol.acceptance.Redelivery`); the inspector must see what the host really
sent, so `observed` decodes each `Arrival` on its own, duplicates, out-of-order events and
events after the end included, and says what could not be decoded instead of dropping it.
Each `Observed` carries the time it arrived (`openwop_tui.store.records.Entry.at`, a recording's
``: at`` seconds) for the statistics of hosts whose events lack a ``timestamp``. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize
from openwop_tui.protocol.frames import decode_frame
from openwop_tui.protocol.stream_items import Arrival, synthesize_terminal
from openwop_tui.store.records import Entry


@dataclass(frozen=True, slots=True)
class Observed:
    """One event as it arrived, or the reason an arrival held no readable event."""

    event: RunEvent | None
    problem: str | None = None
    """Why an arrival (or part of a batch) could not be read: already safe to print."""
    at: float | None = None
    """When it arrived (seconds; a recording's offset or the epoch), when known."""


def observed(
    arrival: Arrival, *, run_id: str = "?", secrets: Iterable[str] = (), at: float | None = None
) -> list[Observed]:
    """Every event of one arrival, unfiltered, and a problem for each part that is not one.

    Args:
        arrival: A frame, a document or a snapshot, as it arrived.
        run_id: The run it belongs to, named in a synthesized event.
        secrets: Values (the API key) masked in the events and problems.
        at: When it arrived, in seconds (a stored entry's ``at``); None when unknown.
    """
    secrets = tuple(secrets)
    if arrival.frame is not None:
        result = decode_frame(arrival.frame, secrets=secrets)
        return [
            *(Observed(None, problem, at) for problem in result.problems),
            *(Observed(event, None, at) for event in result.events),
        ]
    if arrival.document is not None:
        try:
            doc = json.loads(arrival.document)
            return [Observed(normalize(doc, secrets=secrets), None, at)]
        except (ValueError, RecursionError):
            return [Observed(None, "a logged event document is not valid JSON", at)]
        except EventShapeError as error:
            return [Observed(None, f"a logged event document is not an event: {error}", at)]
    if arrival.snapshot is not None:
        closing = synthesize_terminal(run_id, arrival.snapshot)
        return [Observed(closing, None, at)] if closing is not None else []
    return []


def observed_entries(entries: Iterable[Entry], secrets: Iterable[str] = ()) -> Iterator[Observed]:
    """`observed` over a log's entries (a recording, a stored session), in order."""
    secrets = tuple(secrets)
    for entry in entries:
        arrival = entry.arrival
        if arrival is None:
            continue
        yield from observed(
            arrival, run_id=entry.run or "?", secrets=secrets, at=entry.at if entry.at else None
        )
