"""The acceptance rules every way a run's events come goes through (a stream and its
reconnects, a catch-up, a poll, a log read back): `StreamState` drops duplicates, refuses events
of other runs, says jumps in the sequence and spots the run's end; `Redelivery` feeds a logged
run's `Arrival`\\ s back through them, so a reopened log folds exactly as the live stream did.
No I/O here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize
from openwop_tui.protocol.frames import decode_frame, safe_raw
from openwop_tui.protocol.hostdata import host_text, host_value
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream_checks import every_event, foreign_sentence, gap_sentence
from openwop_tui.protocol.stream_items import (
    Arrival,
    ArrivalSink,
    StreamItem,
    StreamNotice,
    synthesize_terminal,
)


@dataclass(slots=True)
class StreamState:
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
        that late (``attach --from`` past its end), which `recover` then says plainly."""
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
        self._state = StreamState(
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
