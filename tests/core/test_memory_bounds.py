"""Memory stays bounded at any event count: what the conversation keeps per event is the text
the event brought, not the event (the event log lives in SQLite)."""

from __future__ import annotations

import json
import pickle
import tracemalloc

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import AssistantTurn, EnvelopeItem, Notice, TextBuffer
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.records import Entry

RUN = "run_memory"


def _frame(seq: int, kind: str, payload: dict[str, object]) -> Entry:
    doc = {"type": kind, "runId": RUN, "sequence": seq, "payload": payload}
    return Entry.of_arrival(Arrival(frame=SSEFrame("messages", json.dumps(doc), str(seq))), RUN)


def _chunk(seq: int) -> Entry:
    return _frame(seq, "output.chunk", {"nodeId": "reply", "chunk": f"w{seq % 100} "})


def _growth_per_event(chat: Conversation, start: int, count: int) -> float:
    """Traced bytes the conversation grew by per chunk event, over ``count`` more events."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for seq in range(start, start + count):
            chat.replay(_chunk(seq))
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / count


def test_a_flood_of_chunks_costs_its_text_not_its_events() -> None:
    chat = Conversation()
    chat.replay(Entry("run", run=RUN, meta={"workflow": "bench"}))
    chat.replay(_frame(1, "run.started", {"workflowId": "bench"}))
    for seq in range(2, 5_002):  # warm up: the reply exists, caches are filled
        chat.replay(_chunk(seq))
    per_event = _growth_per_event(chat, 5_002, 10_000)
    # Each chunk adds about four characters of text; a kept event, a string object per delta
    # or a per-event record would be tens to hundreds of bytes each.
    assert per_event < 12, f"{per_event:.1f} bytes kept per chunk event"
    [turn] = [i for i in chat.transcript.items if isinstance(i, AssistantTurn)]
    assert turn.full_text.startswith("w2 w3 ") and len(turn.full_text) > 50_000


def test_a_text_buffer_joins_its_parts_and_reads_the_same() -> None:
    buffer = TextBuffer(limit=1_000)
    parts = [f"{n} " for n in range(5_000)]
    for part in parts:
        buffer.append(part)
    assert buffer.full == "".join(parts)
    assert buffer.shown == "".join(parts).encode()[:1_000].decode()
    assert buffer.tail(5) == buffer.shown[-5:]


def test_items_keep_their_text_not_their_events_payloads() -> None:
    chat = Conversation()
    chat.replay(Entry("run", run=RUN, meta={"workflow": "bench"}))
    chat.replay(_frame(1, "run.started", {"workflowId": "bench", "inputs": {"x": "y" * 5_000}}))
    envelope = {
        "type": "vendor.x.card",
        "envelopeId": "e1",
        "payload": {"title": "t"},
        "meta": {"rendering": {"display": "card"}},
    }
    chat.replay(_frame(2, "node.completed", {"nodeId": "n", "outputs": {"envelope": envelope}}))
    notices = [i for i in chat.transcript.items if isinstance(i, Notice)]
    envelopes = [i for i in chat.transcript.items if isinstance(i, EnvelopeItem)]
    assert notices and envelopes
    # A run.started carries the whole chat history: kept per turn, memory grew with its square.
    # No item holds it, in any field (what a kept fold pickles is what the items hold).
    assert len(pickle.dumps(chat.transcript.items)) < 5_000
    # The inspector shows an envelope's source event: kept, but not its wire copy.
    assert all(e.envelope.source.wire is None for e in envelopes)
    assert all(e.envelope.source.raw is not None for e in envelopes)
