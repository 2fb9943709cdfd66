"""Every event worded (issue 15 item 4): each known event type, as real hosts send it, is drawn
as words, never as a raw JSON line. Walked through the fold and the printer, the ``render``
command, and the demo host's workflows in v1 and v2; plus the sentences the issue names
(``memory.written``, tool outcomes and durations, node durations, a decision's reasoning,
``node.dispatched``)."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from paths import TESTS
from render_helpers import builtins
from rich.console import Console

from openwop_tui.__main__ import main
from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.core.event_catalog import CODEMAP_V1_NAMES, KNOWN_TYPES
from openwop_tui.core.event_lines import SILENT
from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import Notice, ToolCall
from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.workflows import WORKFLOWS
from openwop_tui.present import items as present
from openwop_tui.protocol.events import (
    _V2_TO_V1,
    CHUNK_TYPES,
    RunEvent,
    canonical_type,
    normalize,
)
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.interrupts import REQUEST_TYPES
from openwop_tui.protocol.sse import parse_sse_text
from openwop_tui.renderers.base import RenderContext
from openwop_tui.text.value_words import milliseconds, words

DATA = TESTS / "data"
CAPTURES = DATA / "captures"

#: JSON syntax on a line: an object or array opening on a string, or a quoted key.
JSONISH = re.compile(r'[{\[]\s*"|"\s*:\s*\S')
#: The icons that start a printed event line (notices) and a tool call.
ICONS = ("• ", "⚠ ", "✖ ", "⚙ ")


def raw_json_lines(text: str) -> list[str]:
    """Printed event lines that quote JSON, except the generic line of a type nobody knows
    (``vendor.acme.x · {…}``), which is meant to."""
    bad = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith(ICONS) or not JSONISH.search(stripped):
            continue
        first = stripped[2:].split(" · ", 1)[0]
        unknown_type = re.fullmatch(r"[\w.-]+\.[\w.-]+", first) and first not in KNOWN_TYPES
        if not unknown_type:
            bad.append(line)
    return bad


def events_of(text: str) -> list[RunEvent]:
    events: list[RunEvent] = []
    for frame in parse_sse_text(text):
        events.extend(events_from_frame(frame.event, frame.data, frame.id).events)
    return events


def printed(events: list[RunEvent]) -> str:
    """The events through the fold and the print commands' printer, as printed."""
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False)
    printer = TranscriptPrinter(
        console, RenderContext(images="none"), verbose=True, registry=builtins()
    )
    transcript = Transcript()

    async def feed() -> None:
        for event in events:
            await printer.feed(transcript.apply(event))
        transcript.close_open()
        await printer.flush()

    asyncio.run(feed())
    return out.getvalue()


def ev(type_: str, payload: dict[str, Any], node: str | None = "n1", run: str = "r") -> RunEvent:
    doc: dict[str, Any] = {"type": type_, "payload": payload, "sequence": 1, "runId": run}
    if node:
        doc["nodeId"] = node
    return normalize(doc)


def lines_of(*events: RunEvent) -> list[str]:
    transcript = Transcript()
    for event in events:
        transcript.apply(event)
    return [item.text for item in transcript.items if isinstance(item, Notice)]


# ------------------------------------------------------------------------ the catalog


def test_the_catalog_is_the_v1_enum_and_the_v2_codemap() -> None:
    enum = json.loads((DATA / "catalog" / "run-event.schema.json").read_text())
    v1 = set(enum["$defs"]["RunEventType"]["enum"])
    assert len(v1) == 84  # the 80 of protocol.md §3.6 and four added since (memory, workspace)
    assert v1 <= KNOWN_TYPES, sorted(v1 - KNOWN_TYPES)
    assert len(CODEMAP_V1_NAMES) == len(set(CODEMAP_V1_NAMES)) == 117
    # Every renamed v2 row (36 in codemap v2.0) folds onto a known v1 name.
    assert len(_V2_TO_V1) == 36
    assert all(canonical_type(v2) in KNOWN_TYPES for v2 in _V2_TO_V1)


#: Payloads as the spec gives them (run-event-payloads.schema.json $defs), for the types whose
#: fields a sentence names; every other type gets `OPEN`, a payload with nested values.
SAMPLES: dict[str, dict[str, Any]] = {
    "memory.written": {"memoryRef": "notes", "memoryId": "m1", "tags": ["a", "b"]},
    "memory.compacted": {
        "memoryRef": "notes",
        "outputId": "o1",
        "sourceCount": 4,
        "trigger": "host-managed",
        "byteSize": 2048,
    },
    "agent.memory.consolidated": {"memoryRef": "notes", "inputCount": 9, "outputCount": 5},
    "commitment.fired": {"commitmentId": "c", "memoryRef": "m", "condition": "time"},
    "workspace.updated": {"path": "MEMORY.md", "version": "3"},
    "prompt.composed": {"nodeId": "n1", "refs": ["prompt:a@1.0.0"], "kind": "system+user"},
    "agent.promptResolved": {
        "nodeId": "n1",
        "kind": "system",
        "chain": [{"layer": "node", "applied": True, "source": "prompt:a"}],
        "resolved": "prompt:a",
    },
    "channel.written": {"channelName": "notes", "reducer": "append", "entry": {"x": 1}},
    "lease.handed-off": {"leaseId": "l", "fromHost": "browser", "toHost": "cloud"},
    "replay.divergedAtRefusal": {
        "sourceRunId": "r0",
        "atSequence": 4,
        "originalEnvelopeKind": "valid",
        "replayEnvelopeKind": "refusal",
    },
    "core.workflowChain.event": {"phase": "dispatch.began", "workerId": "w", "parentRunId": "p"},
    "core.workflowChain.confidence-escalated": {
        "confidence": 0.4,
        "floor": 0.5,
        "escalationKind": "clarify",
        "parentRunId": "p",
        "originalDecision": {"kind": "terminate", "reason": "done"},
    },
    "core.dispatch.fanOut": {"fanOutPolicy": "all", "childCount": 3},
    "core.dispatch.join": {"joinOutcome": "all-completed", "completedCount": 3, "failedCount": 0},
    "policy.decision": {
        "provider": "mock",
        "mode": "allow-list",
        "decision": "deny",
        "reason": "x",
    },
    "interrupt.vote": {"votes": [{"principal": "a", "action": "accept"}]},
    "mcp.invoked": {"server": "s", "tool": "t", "resultSha256": "ab", "resultLength": 12},
    "voice.transcript": {"text": "hello", "isFinal": True, "atMs": 1200},
    "voice.synthesis_chunk": {"seq": 2, "mimeType": "audio/mpeg", "durationMs": 400},
    "variable.changed": {"name": "x", "previous": None, "next": {"a": [1, 2]}},
    "log.appended": {"level": "info", "message": "", "fields": {"a": 1}},
    "agent.decided": {"agentId": "a", "decision": {"kind": "route", "to": ["b"]}},
    "context.summarized": {
        "iteration": 2,
        "replacedTurns": 6,
        "tokensBefore": 900,
        "tokensAfter": 200,
    },
}

#: A payload with nested objects and lists, for the types whose payload the spec leaves open.
OPEN: dict[str, Any] = {"nodeId": "n1", "outcome": {"score": 0.8, "labels": ["a", "b"]}, "id": "x"}


@pytest.mark.parametrize("event_type", sorted(KNOWN_TYPES))
@pytest.mark.parametrize("shape", ["sample", "empty"])
def test_every_known_type_is_worded(event_type: str, shape: str) -> None:
    payload = SAMPLES.get(event_type, OPEN) if shape == "sample" else {}
    transcript = Transcript()
    changes = transcript.apply(ev(event_type, payload))
    for change in changes:
        item = change.item
        if isinstance(item, Notice):
            assert "could not read" not in item.text, item.text
            assert not item.text.startswith(f"{event_type} · "), item.text  # the generic line
            assert not JSONISH.search(item.text), item.text
        if isinstance(item, ToolCall):
            assert not JSONISH.search(present.tool_call(item).plain)
    if not changes:
        # Items need their own payloads (test_fold_events walks those): here only lines count.
        drawn_as_items = CHUNK_TYPES | {"agent.reasoning.delta", "media.image", "media.audio"}
        exempt = SILENT.keys() | REQUEST_TYPES | drawn_as_items | {"media.file"}
        assert event_type in exempt or shape == "empty", f"{event_type} drew nothing"


# ---------------------------------------------------------------- captures and hosts


CAPTURE_FILES = sorted(CAPTURES.glob("*.sse"))


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=lambda p: p.name)
def test_every_capture_prints_without_a_raw_json_line(path: Path) -> None:
    out = printed(events_of(path.read_text(encoding="utf-8")))
    assert raw_json_lines(out) == []


@pytest.mark.parametrize("path", CAPTURE_FILES, ids=lambda p: p.name)
def test_render_prints_no_raw_json_line(
    path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.setenv("COLUMNS", "100")
    # An empty capture (a host that sent nothing) is exit 2 with the reason: nothing to word.
    expected = 0 if path.read_text(encoding="utf-8").strip() else 2
    assert main(["render", "--images", "none", str(path)]) == expected
    out = capsys.readouterr().out
    assert raw_json_lines(out) == []


def test_the_detector_sees_the_lines_it_must() -> None:
    """The walk above is only worth its detector: a known type's generic line, JSON in a
    sentence and a tool outcome in JSON are caught; an unknown vendor type's generic line and
    an envelope body's JSON are not."""
    assert raw_json_lines('• memory.written · {"memoryId": "m"}')
    assert raw_json_lines('⚙ search.web → ok {"durationMs": 15}')
    assert raw_json_lines('• variable x = {"a": 1}')
    assert not raw_json_lines('• vendor.acme.thing · {"x": 1}')
    assert not raw_json_lines('    {"payload": {"x": 1}}')


def _drive(host: DemoHost, workflow: str, message: str | None) -> list[RunEvent]:
    """One run of ``workflow`` read in debug mode; a run that stops to ask a person is
    cancelled at the question (everything up to it, and the cancel, is read)."""
    headers = {"Authorization": f"Bearer {host.api_key}"}
    if host.protocol == 2:
        headers["OpenWOP-Version"] = "2"
    base = host.url + ("/v1" if host.protocol == 1 else "")
    inputs = {"messages": [{"role": "user", "content": message}]} if message else {}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        created = client.post("/runs", json={"workflowId": workflow, "inputs": inputs})
        assert created.status_code == 201, created.text
        run = created.json()["runId"].replace("/", "~2F")
        text: list[str] = []
        asked = False
        stream_headers = {"Accept": "text/event-stream"}
        params = {"streamMode": "debug"}
        with client.stream(
            "GET", f"/runs/{run}/events", params=params, headers=stream_headers
        ) as r:
            for line in r.iter_lines():
                text.append(line)
                if not asked and line.startswith("data:"):
                    kind = canonical_type(json.loads(line[5:]).get("type", ""))
                    if kind in REQUEST_TYPES or kind == "node.suspended":
                        asked = True
                        client.post(f"/runs/{run}/cancel", json={"reason": "test"})
    return events_of("\n".join(text) + "\n")


DEMO_RUNS = [
    (workflow, message)
    for workflow in WORKFLOWS
    if not workflow.startswith("bench.")  # load generators: their events are the chat's, many times
    for message in (
        ["hello", "file please", "card please", "fail"] if workflow == "demo.chat" else [None]
    )
]


@pytest.mark.parametrize("protocol", [1, 2], ids=["v1", "v2"])
def test_the_demo_hosts_workflows_print_without_a_raw_json_line(protocol: int) -> None:
    seen: set[str] = set()
    with DemoHost(pace=0, protocol=protocol) as host:
        for workflow, message in DEMO_RUNS:
            events = _drive(host, workflow, message)
            assert events, workflow
            seen |= {e.type for e in events}
            assert raw_json_lines(printed(events)) == [], (workflow, message)
    assert {"run.started", "node.completed", "agent.toolReturned"} <= seen


# -------------------------------------------------------------- the named sentences


def test_memory_written_says_what_was_remembered() -> None:
    """As the SQLite and Postgres hosts send it at the end of every completed run."""
    capture = (CAPTURES / "pg-host-mock-agent-stream.sse").read_text(encoding="utf-8")
    memory = [e for e in events_of(capture) if e.type == "memory.written"]
    assert len(memory) == 1
    run = memory[0].run_id
    assert lines_of(memory[0]) == [
        f"remembered mem-{run}-summary in run-summaries · tagged run-summary, "
        "workflow:conformance-local-mock-agent-stream"
    ]
    attributed = ev("memory.written", {"memoryRef": "notes", "memoryId": "m1", "agentId": "a"})
    assert lines_of(attributed) == ["remembered m1 in notes · at node n1 · by a"]


def test_a_tool_outcome_reads_like_its_inputs_with_its_duration() -> None:
    called = ev(
        "agent.tool-called",
        {
            "agentId": "a",
            "toolName": "search.web",
            "callId": "c1",
            "inputs": {"query": "cats", "limit": 3},
        },
    )
    returned = ev(
        "agent.tool-returned",
        {
            "agentId": "a",
            "toolName": "search.web",
            "callId": "c1",
            "outcome": {
                "results": [{"title": "Cats", "url": "https://x.example/c"}],
                "more": False,
            },
            "durationMs": 830,
        },
    )
    transcript = Transcript()
    transcript.apply(called)
    transcript.apply(returned)
    (call,) = [i for i in transcript.items if isinstance(i, ToolCall)]
    assert present.tool_call(call).plain == (
        "⚙ search.web(query: cats, limit: 3) → ok in 830 ms · "
        "results: ((title: Cats, url: https://x.example/c)), more: no"
    )


def test_a_duration_inside_the_outcome_is_the_calls_duration() -> None:
    """The Postgres host puts ``durationMs`` in the outcome: shown as the call's duration, not
    again as what the tool returned."""
    capture = (CAPTURES / "pg-host-mock-agent-stream.sse").read_text(encoding="utf-8")
    transcript = Transcript()
    for event in events_of(capture):
        transcript.apply(event)
    (call,) = [i for i in transcript.items if isinstance(i, ToolCall)]
    assert present.tool_call(call).plain == "⚙ search.web → ok in 15 ms"


def test_a_failed_tool_call_says_why_in_words() -> None:
    transcript = Transcript()
    transcript.apply(ev("agent.toolCalled", {"agentId": "a", "toolName": "t", "callId": "c"}))
    transcript.apply(
        ev(
            "agent.toolReturned",
            {
                "agentId": "a",
                "toolName": "t",
                "callId": "c",
                "status": "rate_limited",
                "error": {"code": "rate_limited", "message": "slow down"},
            },
        )
    )
    (call,) = [i for i in transcript.items if isinstance(i, ToolCall)]
    assert (
        present.tool_call(call).plain
        == "⚙ t ✖ rate_limited · code: rate_limited, message: slow down"
    )


def test_node_and_run_durations_are_shown() -> None:
    assert lines_of(ev("node.completed", {"nodeId": "n1", "durationMs": 1900})) == [
        "node n1 completed in 1.9 s"
    ]
    assert lines_of(ev("run.completed", {"durationMs": 1234}, node=None)) == [
        "run completed in 1.23 s"
    ]


def test_a_decision_shows_its_reasoning() -> None:
    capture = (CAPTURES / "pg-host-mock-agent-stream.sse").read_text(encoding="utf-8")
    decided = [e for e in events_of(capture) if e.type == "agent.decided"]
    assert lines_of(*decided) == [
        "agent:local-mock decided answer · 42 · confidence 0.93 · because deterministic mock"
    ]
    long = ev(
        "runOrchestrator.decided",
        {"agentId": "sup", "decision": {"kind": "terminate", "rationale": "x" * 1000}},
    )
    (line,) = lines_of(long)
    assert line.startswith("sup decided terminate · because xxx") and line.endswith("…")
    assert len(line) < 500


def test_node_dispatched_names_the_child_run_first() -> None:
    """The SQLite host names its dispatching node ``dispatch``: the line must not read "node
    dispatch started"."""
    event = ev("node.dispatched", {"childRunId": "c1", "childWorkflowId": "w2"}, node="dispatch")
    assert lines_of(event) == ["child run c1 of w2 dispatched by node dispatch"]
    capture = (CAPTURES / "sqlite-host-orchestrator-dispatch.sse").read_text(encoding="utf-8")
    lines = lines_of(*events_of(capture))
    assert any(
        re.fullmatch(
            r"child run run-[0-9a-f-]+ of conformance-noop dispatched by node dispatch", line
        )
        for line in lines
    ), lines
    assert "core.reference-supervisor decided terminate · goal-reached" in lines


def test_values_in_words_are_bounded_and_never_json() -> None:
    assert words({"a": "", "b": "3", "c": "x, y", "d": None, "e": True}) == (
        'a: "", b: "3", c: "x, y", d: none, e: yes'
    )
    assert words(list(range(20))) == "0, 1, 2, 3, 4, 5, 6, 7, … 12 more"
    assert words({"a": {"b": {"c": {"d": {"e": 1}}}}}) == "a: (b: (c: (d: …)))"
    huge = {"rows": [{"id": i, "text": "t" * 50} for i in range(100_000)]}
    shown = words(huge, 120)
    assert len(shown) == 120 and shown.endswith("…")
    assert "{" not in shown and "[" not in shown
    assert milliseconds(830) == "830 ms" and milliseconds(float("nan")) is None
    assert milliseconds(-1) is None and milliseconds(True) is None
