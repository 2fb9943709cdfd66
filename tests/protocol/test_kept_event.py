"""`keep`: an event kept as its frame's text gives back the very event it was."""

from __future__ import annotations

import json

import pytest
from paths import TESTS

from openwop_tui.protocol.events import KeptEvent, RunEvent, keep
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.hostdata import MASK
from openwop_tui.protocol.sse import parse_sse_text

CAPTURES = TESTS / "data" / "captures"
KEY = "sk-test-0123456789abcdefghij"


def _events(text: str, secrets: tuple[str, ...] = ()) -> list[RunEvent]:
    return [
        event
        for frame in parse_sse_text(text)
        for event in events_from_frame(frame.event, frame.data, frame.id, secrets=secrets).events
    ]


def _same(a: RunEvent, b: RunEvent) -> None:
    assert a == b  # type, payload, sequence, ids, timestamp, frame event
    assert (a.raw, a.wire, a.piece) == (b.raw, b.wire, b.piece)


@pytest.mark.parametrize(
    "capture",
    [
        "pg-host-mock-agent-stream.sse",  # chunks and reasoning deltas, both spellings of fields
        "example-messages-only-bare-chunks.sse",  # bare `messages` chunks: no type, frame ids
        "example-chat-markdown-debug.sse",
    ],
)
def test_a_kept_event_decodes_to_the_event_it_was(capture: str) -> None:
    events = _events((CAPTURES / capture).read_text(encoding="utf-8"))
    kept = [keep(event) for event in events]
    assert any(e.piece is not None for e in events), "the capture has streamed pieces"
    for event, small in zip(events, kept, strict=True):
        # Every event of a one-event frame, pieces or not (a run's start echoing a whole chat
        # history was kept decoded, for every turn of the chat: issue 26).
        assert isinstance(small, KeptEvent)
        _same(small.event(), event)


def test_a_kept_piece_is_masked_again_with_its_secrets() -> None:
    doc = {"type": "output.chunk", "runId": "r", "sequence": 3, "payload": {"chunk": f"{KEY}!"}}
    (event,) = _events(f"id: 3\nevent: messages\ndata: {json.dumps(doc)}\n\n", (KEY,))
    small = keep(event, (KEY,))
    assert isinstance(small, KeptEvent)
    again = small.event()
    _same(again, event)
    assert again.payload["chunk"] == f"{MASK}!"
    assert KEY not in repr(small.event().raw)


def test_events_that_share_a_frame_or_are_bare_snapshots_stay_whole() -> None:
    chunk = {"type": "output.chunk", "runId": "r", "payload": {"chunk": "a"}}
    batch = json.dumps([{**chunk, "sequence": 1}, {**chunk, "sequence": 2}])
    events = _events(f"event: batch\ndata: {batch}\n\n")
    assert [keep(e) for e in events] == events  # a batch frame's text holds other events too
    snapshot = {"runId": "r", "status": "running"}
    (event,) = _events(f"id: 4\nevent: state.snapshot\ndata: {json.dumps(snapshot)}\n\n")
    assert keep(event) is event  # not a document `normalize` decodes


def test_a_run_start_and_a_big_frame_are_kept_as_their_text() -> None:
    history = [{"role": "user", "content": f"message {n}"} for n in range(200)]
    started = {"type": "run.started", "runId": "r", "sequence": 0, "payload": {"inputs": history}}
    long = {"type": "output.chunk", "runId": "r", "sequence": 1, "payload": {"chunk": "x" * 10_000}}
    for doc in (started, long):
        (event,) = _events(f"data: {json.dumps(doc)}\n\n")
        small = keep(event)
        assert isinstance(small, KeptEvent)
        _same(small.event(), event)
