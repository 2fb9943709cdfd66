"""From frames to `RunEvent`s: the three host shapes, v2 names, chunks, batches, bad frames."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from paths import TESTS

from openwop_tui.protocol.events import RunEvent, canonical_type, normalize, parse_int
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.sse import parse_sse_text
from openwop_tui.text.sanitize import HostText

CAPTURES = TESTS / "data" / "captures"


def decode_file(name: str) -> tuple[list[RunEvent], list[str]]:
    events: list[RunEvent] = []
    problems: list[str] = []
    for frame in parse_sse_text((CAPTURES / name).read_text(encoding="utf-8")):
        result = events_from_frame(frame.event, frame.data, frame.id)
        events.extend(result.events)
        problems.extend(result.problems)
    return events, problems


def test_python_host_shape() -> None:
    events, problems = decode_file("python-host-multi-node.sse")
    assert problems == []
    assert [e.type for e in events][:3] == ["run.started", "node.started", "node.completed"]
    started = events[1]
    assert started.sequence == 1
    assert started.node_id == "a"
    assert started.event_id == "570df2c9-c7b4-40eb-97c0-5ea11ebd7f8a"
    assert started.run_id == "run-0b956692-1dec-4480-8d3c-08e03b85cfcf"
    assert events[-1].is_terminal


def test_python_host_run_failed_keeps_top_level_code() -> None:
    events, _ = decode_file("python-host-approval-unsupported.sse")
    failed = events[-1]
    assert failed.type == "run.failed"
    assert failed.payload["code"] == "unsupported_node_type"
    assert failed.payload["error"]["code"] == "unsupported_node_type"


def test_inmem_host_shape_seq_and_data() -> None:
    events, problems = decode_file("inmem-host-multi-node.sse")
    assert problems == []
    assert [e.sequence for e in events] == list(range(8))
    assert events[1].node_id == "a"
    assert events[1].event_id is None
    assert events[1].payload == {}


def test_sqlite_host_shape_both_spellings_and_nulls() -> None:
    events, problems = decode_file("sqlite-host-approval-accept.sse")
    assert problems == []
    first = events[0]
    assert first.payload == {}  # `payload: null, data: null`
    assert first.node_id is None  # `nodeId: null`
    suspended = next(e for e in events if e.type == "node.suspended")
    assert suspended.payload["kind"] == "approval"
    assert suspended.node_id == "gate"
    assert suspended.sequence == 2


def test_pg_host_agent_events() -> None:
    events, problems = decode_file("pg-host-mock-agent-stream.sse")
    assert problems == []
    deltas = [e for e in events if e.type == "agent.reasoning.delta"]
    assert (
        "".join(e.payload["delta"] for e in deltas)
        == "Let me think about the question. The answer is 42."
    )


def test_v2_kebab_names_become_v1() -> None:
    result = events_from_frame(
        "agent.tool-called",
        json.dumps(
            {
                "eventId": "e1",
                "runId": "acme/r-1",
                "type": "agent.tool-called",
                "payload": {"agentId": "a", "toolName": "search", "callId": "c1"},
                "sequence": 4,
                "schemaVersion": 1,
            }
        ),
        "4",
    )
    assert [e.type for e in result.events] == ["agent.toolCalled"]
    assert canonical_type("agent.reasoning-delta") == "agent.reasoning.delta"
    assert canonical_type("run.dead-lettered") == "run.dead_lettered"
    assert canonical_type("openwop-app.ai.message-chunk") == "ai.message.chunk"
    assert canonical_type("vendor.unknown-thing") == "vendor.unknown-thing"


def test_bare_chunks_in_messages_mode() -> None:
    events, problems = decode_file("example-messages-only-bare-chunks.sse")
    assert problems == []
    assert {e.type for e in events} == {"output.chunk"}
    assert [e.sequence for e in events] == [2, 3, 4, 5]  # from the frames' `id:` lines
    assert all(e.frame_event == "ai.message.chunk" for e in events)
    assert "".join(e.payload["chunk"] for e in events).startswith("```python\n")


def test_bare_chunk_without_id_has_no_sequence() -> None:
    result = events_from_frame("ai.message.chunk", '{"nodeId":"n","chunk":"hi","isLast":false}')
    assert result.events[0].type == "output.chunk"
    assert result.events[0].sequence is None


def test_mixed_mode_dispatches_on_data_type_not_event_label() -> None:
    events, _ = decode_file("example-mixed-updates-messages.sse")
    assert [e.type for e in events] == [
        "run.started",
        "output.chunk",
        "output.chunk",
        "output.chunk",
        "output.chunk",
        "node.completed",
        "run.completed",
    ]
    assert events[1].frame_event == "messages"


def test_batch_array_without_id_takes_sequences_from_elements() -> None:
    batch = [
        {
            "seq": 3,
            "sequence": 3,
            "runId": "r",
            "type": "node.started",
            "nodeId": "a",
            "data": None,
            "payload": None,
        },
        {
            "seq": 4,
            "sequence": 4,
            "runId": "r",
            "type": "node.completed",
            "nodeId": "a",
            "data": {"outputs": {}},
            "payload": {"outputs": {}},
        },
    ]
    result = events_from_frame("batch", json.dumps(batch), None)
    assert result.problems == []
    assert [(e.type, e.sequence) for e in result.events] == [
        ("node.started", 3),
        ("node.completed", 4),
    ]
    assert all(e.frame_event == "batch" for e in result.events)


def test_batch_frame_id_is_not_copied_onto_elements() -> None:
    result = events_from_frame("batch", json.dumps([{"type": "log.appended", "payload": {}}]), "9")
    assert result.events[0].sequence is None


def test_one_element_batch_and_bad_element() -> None:
    result = events_from_frame("batch", json.dumps([{"type": "run.completed", "seq": 5}, 42]), "5")
    assert [e.type for e in result.events] == ["run.completed"]
    assert len(result.problems) == 1
    assert "batch element 2 of 2" in result.problems[0]
    assert "42" in result.problems[0]
    assert result.raw is not None


def test_malformed_json_problem_names_frame_and_keeps_text() -> None:
    data = '{"type": "node.completed", "sequence": 7 "payload": {}}'
    result = events_from_frame("node.completed", data, "7")
    assert result.events == []
    [problem] = result.problems
    assert problem.startswith('frame id 7 (event "node.completed"): data is not valid JSON: ')
    assert "Expecting ',' delimiter at char 41" in problem
    assert repr(data) in problem  # short enough to be quoted whole
    assert result.raw == data


def test_long_malformed_data_is_excerpted_but_kept_whole_in_raw() -> None:
    data = '{"type": "x", "payload": "' + "y" * 500
    result = events_from_frame("x", data, None)
    [problem] = result.problems
    assert problem.startswith('frame without id (event "x"): data is not valid JSON')
    assert "first 80 chars" in problem
    assert f"({len(data)} chars in all)" in problem
    assert result.raw == data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("42", "data is a number, not an event object"),
        ('"text"', "data is a string, not an event object"),
        ("null", "data is null, not an event object"),
        ('{"foo": 1}', "event has no 'type' and is not a bare chunk"),
    ],
)
def test_json_that_is_not_an_event(data: str, expected: str) -> None:
    result = events_from_frame("updates", data, "3")
    assert result.events == []
    assert expected in result.problems[0]
    assert result.raw == data


def test_empty_data_is_ignored() -> None:
    assert events_from_frame("ping", "", None).events == []
    assert events_from_frame("ping", "", None).problems == []
    assert events_from_frame("message", "  \n", "1").problems == []


def test_values_mode_snapshot_frame() -> None:
    result = events_from_frame(
        "state.snapshot", json.dumps({"runId": "r", "status": "running"}), "6"
    )
    [event] = result.events
    assert (event.type, event.sequence, event.payload["status"]) == ("state.snapshot", 6, "running")


def test_unknown_event_types_pass_through() -> None:
    event = normalize({"type": "vendor.acme.thing", "payload": {"x": 1}, "sequence": 1})
    assert event.type == "vendor.acme.thing"


@pytest.mark.parametrize("path", sorted(CAPTURES.glob("*.sse")), ids=lambda p: p.name)
def test_every_capture_decodes_cleanly_with_increasing_sequences(path: Path) -> None:
    events, problems = decode_file(path.name)
    assert problems == []
    sequences = [e.sequence for e in events]
    assert all(s is not None for s in sequences)
    assert all(a < b for a, b in pairwise(sequences))  # type: ignore[operator]
    if events and not path.name.startswith("example-messages-only"):
        assert events[-1].is_terminal


# -- sequences that are not ASCII integers --------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["--3", "-", "+3", "²", "٣", "\uff13", "1_000", "3.0", "", " ", "1" * 5000]
)
def test_malformed_sequences_are_no_sequence_never_an_error(text: str) -> None:
    # Regression: `"--3".lstrip("-")` and `"²".isdigit()` passed the check, then `int()` raised.
    doc = {"type": "node.started", "sequence": text, "seq": text}
    assert normalize(doc).sequence is None
    assert normalize({"type": "node.started"}, frame_id=text).sequence is None
    assert parse_int(text) is None


@pytest.mark.parametrize(("text", "value"), [("7", 7), ("-3", -3), (" 42 ", 42), ("007", 7)])
def test_ascii_integer_sequences_still_parse(text: str, value: int) -> None:
    assert normalize({"type": "node.started", "sequence": text}).sequence == value
    assert normalize({"type": "node.started"}, frame_id=text).sequence == value


@pytest.mark.parametrize("frame_id", ["²", "--3", "1" * 5000])
def test_frames_with_malformed_ids_decode_without_a_sequence(frame_id: str) -> None:
    chunk = events_from_frame("messages", '{"chunk": "hi"}', frame_id)
    snapshot = events_from_frame("state.snapshot", '{"runId": "r", "status": "running"}', frame_id)
    assert chunk.problems == [] and chunk.events[0].sequence is None
    assert snapshot.problems == [] and snapshot.events[0].sequence is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ('{"type": "x", "sequence": ' + "1" * 5000 + "}", "a number in it has too many digits"),
        ("[" * 100_000 + "]" * 100_000, "it is nested too deeply"),
    ],
)
def test_json_python_cannot_build_is_a_problem_not_an_exception(data: str, reason: str) -> None:
    result = events_from_frame("message", data, "5")
    assert result.events == []
    assert len(result.problems) == 1 and reason in result.problems[0]
    # The frame's text is kept for the notice, cut (it is shown): its start, and its length.
    assert result.raw is not None and result.raw.startswith(data[:100])
    assert f"({len(data)} chars in all)" in result.raw and len(result.raw) < 4100


def test_an_event_read_back_from_a_pickle_has_every_field_and_stays_frozen() -> None:
    # Kept folds hold their notices' events; they are read back through their slots.
    import dataclasses
    import pickle

    event = RunEvent(
        type=HostText("node.completed"),
        payload={"nodeId": "n", "outputs": {"x": [1, 2]}},
        sequence=7,
        run_id=HostText("run_1"),
        node_id=HostText("n"),
        event_id=HostText("evt_1"),
        timestamp=HostText("2026-12-02T10:00:00Z"),
        causation_id=HostText("evt_0"),
        frame_event=HostText("updates"),
        raw={"type": "node.completed"},
        wire='{"type": "node.completed"}',
        piece=HostText("p"),
    )
    back = pickle.loads(pickle.dumps(event, protocol=pickle.HIGHEST_PROTOCOL))
    for field in dataclasses.fields(RunEvent):
        assert getattr(back, field.name) == getattr(event, field.name), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.sequence = 8  # type: ignore[misc]
