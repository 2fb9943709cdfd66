"""`keep`: a streamed piece's event kept as its frame's text gives back the very event it was."""

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
def test_a_kept_piece_decodes_to_the_event_it_was(capture: str) -> None:
    events = _events((CAPTURES / capture).read_text(encoding="utf-8"))
    kept = [keep(event) for event in events]
    pieces = [k for k in kept if isinstance(k, KeptEvent)]
    assert pieces, "the capture has streamed pieces"
    for event, small in zip(events, kept, strict=True):
        if isinstance(small, KeptEvent):
            _same(small.event(), event)
        else:
            assert small is event
            assert event.piece is None  # only pieces are kept as text


def test_a_kept_piece_is_masked_again_with_its_secrets() -> None:
    doc = {"type": "output.chunk", "runId": "r", "sequence": 3, "payload": {"chunk": f"{KEY}!"}}
    (event,) = _events(f"id: 3\nevent: messages\ndata: {json.dumps(doc)}\n\n", (KEY,))
    small = keep(event, (KEY,))
    assert isinstance(small, KeptEvent)
    again = small.event()
    _same(again, event)
    assert again.payload["chunk"] == f"{MASK}!"
    assert KEY not in repr(small.event().raw)


def test_events_that_are_not_pieces_or_share_a_frame_stay_whole() -> None:
    chunk = {"type": "output.chunk", "runId": "r", "payload": {"chunk": "a"}}
    batch = json.dumps([{**chunk, "sequence": 1}, {**chunk, "sequence": 2}])
    events = _events(f"event: batch\ndata: {batch}\n\n")
    assert [keep(e) for e in events] == events  # a batch frame's text holds other events too
    started = {"type": "run.started", "runId": "r", "sequence": 0, "payload": {}}
    (event,) = _events(f"data: {json.dumps(started)}\n\n")
    assert keep(event) is event
    long = {**chunk, "sequence": 1, "payload": {"chunk": "x" * 10_000}}
    (event,) = _events(f"data: {json.dumps(long)}\n\n")
    assert keep(event) is event  # a big frame is kept decoded
