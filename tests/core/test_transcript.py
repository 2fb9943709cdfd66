"""The transcript fold on recorded streams from real hosts and on constructed envelope streams."""

from __future__ import annotations

import pytest
from paths import TESTS

from openwop_tui.core.fold import (
    Added,
    AssistantTurn,
    EnvelopeItem,
    Notice,
    Reasoning,
    ToolCall,
    Transcript,
    Updated,
    UserTurn,
)
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.sse import parse_sse_text

CAPTURES = TESTS / "data" / "captures"


def events_of(name: str) -> list[RunEvent]:
    events: list[RunEvent] = []
    for frame in parse_sse_text((CAPTURES / name).read_text(encoding="utf-8")):
        result = events_from_frame(frame.event, frame.data, frame.id)
        assert not result.problems, result.problems
        events.extend(result.events)
    return events


def fold(events: list[RunEvent]) -> Transcript:
    transcript = Transcript()
    for event in events:
        transcript.apply(event)
    return transcript


def of_type(transcript: Transcript, kind: type) -> list:
    return [item for item in transcript.items if isinstance(item, kind)]


def test_streamed_markdown_is_assembled_then_finalised_by_the_completion() -> None:
    transcript = Transcript()
    deltas: list[str] = []
    for event in events_of("example-chat-markdown-debug.sse"):
        for change in transcript.apply(event):
            if isinstance(change, Updated) and change.delta is not None:
                deltas.append(change.delta)
    [turn] = of_type(transcript, AssistantTurn)
    assert turn.final
    assert turn.model == "claude-opus-4-7"
    assert turn.finish_reason == "stop"
    assert turn.text.startswith("## A haiku")
    assert "".join(deltas) == turn.text  # every delta arrived as an append, in order
    assert len(deltas) == 7
    assert transcript.status == "completed"


def test_completion_replaces_streamed_text_when_they_differ() -> None:
    transcript = Transcript()
    chunk = normalize(
        {
            "type": "output.chunk",
            "sequence": 1,
            "nodeId": "n",
            "payload": {"nodeId": "n", "chunk": "draft tex"},
        }
    )
    done = normalize(
        {
            "type": "node.completed",
            "sequence": 2,
            "nodeId": "n",
            "payload": {"nodeId": "n", "outputs": {"completion": "final text"}},
        }
    )
    transcript.apply(chunk)
    changes = transcript.apply(done)
    [turn] = of_type(transcript, AssistantTurn)
    assert turn.text == "final text" and turn.final
    assert any(isinstance(c, Updated) and c.item is turn and c.delta is None for c in changes)


def test_mixed_mode_and_bare_chunks_fold_to_one_reply_each() -> None:
    mixed = fold(events_of("example-mixed-updates-messages.sse"))
    [turn] = of_type(mixed, AssistantTurn)
    assert turn.text == "Sure — here is the answer." and turn.final

    bare = fold(events_of("example-messages-only-bare-chunks.sse"))
    [turn] = of_type(bare, AssistantTurn)
    assert turn.text.startswith("```python\ndef fib(n):")
    assert not turn.final  # messages-only: no node.completed ever arrives


def test_reasoning_tools_handoff_and_decision_from_the_postgres_mock_agent() -> None:
    transcript = fold(events_of("pg-host-mock-agent-stream.sse"))
    [reasoning] = of_type(transcript, Reasoning)
    assert reasoning.done
    assert reasoning.text == "Let me think about the question. The answer is 42."
    [call] = of_type(transcript, ToolCall)
    assert call.tool_name == "search.web" and call.done and call.status == "ok"
    texts = [n.text for n in of_type(transcript, Notice)]
    assert any("handed off to agent:local-reviewer" in t for t in texts)
    assert any("decided" in t and "0.93" in t for t in texts)
    assert transcript.status == "completed"


def test_every_envelope_in_order_with_its_source_event() -> None:
    transcript = fold(events_of("example-rich-envelopes.sse"))
    items = of_type(transcript, EnvelopeItem)
    assert [i.envelope.kind for i in items] == [
        "vendor.acme.snippet",
        "media.image",
        "media.image",
        "media.audio",
        "vendor.acme.summary.card",
        "media.file",
        "vendor.acme.hologram",
    ]
    assert [i.envelope.display for i in items] == [
        "code",
        "image",
        "image",
        "audio",
        "card",
        "file",
        "hologram",
    ]
    assert all(i.envelope.source.type == "node.completed" for i in items)
    # Envelope text is the envelope's, not a second assistant turn.
    assert of_type(transcript, AssistantTurn) == []


def test_reemitted_envelope_is_not_drawn_twice() -> None:
    events = events_of("example-rich-envelopes.sse")
    code_event = next(e for e in events if e.node_id == "code" and e.type == "node.completed")
    transcript = Transcript()
    first = transcript.apply(code_event)
    second = transcript.apply(code_event)
    assert sum(isinstance(c, Added) and isinstance(c.item, EnvelopeItem) for c in first) == 1
    assert not any(isinstance(c, Added) and isinstance(c.item, EnvelopeItem) for c in second)


@pytest.mark.parametrize(
    ("capture", "status", "needle"),
    [
        ("python-host-approval-unsupported.sse", "failed", "unsupported_node_type"),
        ("inmem-host-cancel.sse", "cancelled", "run cancelled"),
        ("python-host-noop.sse", "completed", "run completed"),
    ],
)
def test_run_endings_from_real_hosts(capture: str, status: str, needle: str) -> None:
    transcript = fold(events_of(capture))
    assert transcript.status == status
    assert any(needle in n.text for n in of_type(transcript, Notice))


def test_python_host_run_failed_reads_top_level_code() -> None:
    event = normalize(
        {"type": "run.failed", "sequence": 3, "payload": {"code": "boom", "message": "it broke"}}
    )
    transcript = Transcript()
    transcript.apply(event)
    [notice] = of_type(transcript, Notice)
    assert notice.level == "error" and "boom: it broke" in notice.text


def test_interrupt_is_shown_then_closed_when_the_host_resumes_it() -> None:
    transcript = Transcript()
    texts: list[str] = []
    for event in events_of("sqlite-host-approval-accept.sse"):
        for change in transcript.apply(event):
            if isinstance(change.item, Notice):
                texts.append(change.item.text)
    assert any("approval at node gate" in t and "Conformance approval" in t for t in texts)
    assert transcript.status == "completed"


def test_unknown_events_get_a_compact_generic_line() -> None:
    transcript = Transcript()
    [change] = transcript.apply(normalize({"type": "vendor.acme.mystery", "payload": {"x": 1}}))
    assert isinstance(change.item, Notice) and change.item.verbose
    assert change.item.text == 'vendor.acme.mystery · {"x": 1}'


def test_every_capture_folds_without_error() -> None:
    for path in sorted(CAPTURES.glob("*.sse")):
        fold(events_of(path.name))


def test_user_turns_keep_their_text() -> None:
    transcript = Transcript()
    added = transcript.add_user("hello *there*")
    assert isinstance(added.item, UserTurn) and added.item.text == "hello *there*"


def test_the_end_of_a_run_settles_tool_calls_and_reasoning_left_open() -> None:
    transcript = Transcript()
    transcript.apply(
        normalize(
            {
                "type": "agent.toolCalled",
                "sequence": 1,
                "payload": {"agentId": "a", "toolName": "t", "callId": "c"},
            }
        )
    )
    transcript.apply(
        normalize(
            {
                "type": "agent.reasoning.delta",
                "sequence": 2,
                "payload": {"agentId": "a", "delta": "hmm", "sequence": 0},
            }
        )
    )
    transcript.apply(normalize({"type": "run.completed", "sequence": 3, "payload": {}}))
    [call] = of_type(transcript, ToolCall)
    [reasoning] = of_type(transcript, Reasoning)
    assert call.done and reasoning.done


def test_fragments_of_a_streamed_envelope_replace_each_other() -> None:
    def fragment(seq: int, text: str, partial: bool) -> RunEvent:
        envelope = {
            "type": "vendor.x.note",
            "envelopeId": f"e{seq}",
            "correlationId": "emission-1",
            "payload": text,
            "meta": {"rendering": {"display": "card", "title": "Note"}},
            "partial": {"isPartial": partial, "index": seq, "total": -1},
        }
        return normalize(
            {
                "type": "node.completed",
                "sequence": seq,
                "nodeId": "n",
                "payload": {"nodeId": "n", "outputs": {"envelope": envelope}},
            }
        )

    transcript = Transcript()
    first = transcript.apply(fragment(1, "Hel", True))
    second = transcript.apply(fragment(2, "Hello", True))
    last = transcript.apply(fragment(3, "Hello, world", False))
    [item] = of_type(transcript, EnvelopeItem)
    assert item.envelope.payload == "Hello, world" and item.envelope.partial is False
    assert any(isinstance(c, Added) and c.item is item for c in first)
    assert any(isinstance(c, Updated) and c.item is item for c in second)
    assert any(isinstance(c, Updated) and c.item is item for c in last)
    # A new emission with the same correlation id after completion is a new item.
    transcript.apply(fragment(4, "Again", True))
    assert len(of_type(transcript, EnvelopeItem)) == 2


def test_a_chunks_meta_is_read_when_it_is_an_object_and_ignored_when_it_is_not() -> None:
    transcript = Transcript()
    for sequence, meta in enumerate(["not an object", None, {"model": "m-1"}], start=1):
        payload = {"nodeId": "n", "chunk": f"part {sequence} ", "meta": meta}
        transcript.apply(
            normalize({"type": "output.chunk", "sequence": sequence, "payload": payload})
        )
    transcript.apply(
        normalize(
            {
                "type": "output.chunk",
                "sequence": 4,
                "payload": {"nodeId": "n", "chunk": "end", "meta": {"finishReason": "stop"}},
            }
        )
    )
    [turn] = of_type(transcript, AssistantTurn)
    assert turn.text == "part 1 part 2 part 3 end"
    assert turn.model == "m-1"
    assert turn.finish_reason == "stop"
