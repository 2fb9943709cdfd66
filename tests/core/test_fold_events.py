"""Every event type a deliberate presentation: each event of every capture and each type of
protocol.md §3.6 becomes an item or a line, or is knowingly silent; pauses drive the status;
usage is summed per turn and per session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from paths import TESTS

from openwop_tui.core.event_lines import SILENT
from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import ArtifactNotice, Notice, ToolCall
from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import CHUNK_TYPES, RunEvent, chunk_text, normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.sse import parse_sse_text

CAPTURES = TESTS / "data" / "captures"


def events_of(path: Path) -> list[RunEvent]:
    events: list[RunEvent] = []
    for frame in parse_sse_text(path.read_text(encoding="utf-8")):
        events.extend(events_from_frame(frame.event, frame.data, frame.id).events)
    return events


def ev(type_: str, payload: dict[str, Any], node: str | None = "n1", seq: int = 1) -> RunEvent:
    doc: dict[str, Any] = {"type": type_, "payload": payload, "sequence": seq, "runId": "r"}
    if node:
        doc["nodeId"] = node
    return normalize(doc)


def knowingly_silent(event: RunEvent, seen_envelopes: set[str]) -> str | None:
    """Why an event may draw nothing: its type is SILENT, it is a chunk with no text, or it
    carries only envelopes already drawn (re-emission rule E2)."""
    if event.type in SILENT:
        return SILENT[event.type]
    if event.type in CHUNK_TYPES and not chunk_text(event):
        return "an empty chunk appends nothing"
    keys = {e.key for e in extract_envelopes(event)}
    if keys and keys <= seen_envelopes:
        return "its envelopes were drawn already"
    return None


@pytest.mark.parametrize("path", sorted(CAPTURES.glob("*.sse")), ids=lambda p: p.name)
def test_every_event_of_every_capture_is_presented_or_knowingly_silent(path: Path) -> None:
    transcript = Transcript()
    seen: set[str] = set()
    for event in events_of(path):
        changes = transcript.apply(event)
        if not changes:
            reason = knowingly_silent(event, seen)
            assert reason, f"{path.name}: {event.type} #{event.sequence} drew nothing"
        for change in changes:
            item = change.item
            assert not (isinstance(item, Notice) and "could not read" in item.text), item.text
        seen |= {e.key for e in extract_envelopes(event)}


#: One payload per type of protocol.md §3.6 (required fields, as the catalog lists them).
CATALOG: dict[str, dict[str, Any]] = {
    "run.started": {"workflowId": "w"},
    "run.completed": {"outputs": {}, "durationMs": 5},
    "run.failed": {"error": {"code": "x", "message": "y"}},
    "run.cancelled": {"reason": "stop"},
    "run.paused": {"reason": "operator"},
    "run.resumed": {},
    "run.resuming": {"fromStatus": "paused"},
    "run.restored-from-snapshot": {"snapshotSeq": 4, "engineVersion": "1"},
    "run.dead_lettered": {"runId": "r", "reason": "poison", "attempts": 3},
    "node.started": {"nodeId": "n1", "typeId": "t"},
    "node.completed": {"nodeId": "n1", "outputs": {}},
    "node.failed": {"nodeId": "n1", "error": {"code": "c", "message": "m"}},
    "node.suspended": {"nodeId": "n1", "interruptId": "i", "kind": "approval"},
    "node.suspend-failed": {"nodeId": "n1", "error": {"code": "c", "message": "m"}},
    "node.resumed": {"nodeId": "n1", "interruptId": "i"},
    "node.retried": {"nodeId": "n1", "attempt": 2, "delayMs": 100},
    "node.skipped": {"nodeId": "n1", "reason": "branch"},
    "node.cancelled": {"nodeId": "n1", "reason": "parent"},
    "node.dispatched": {"childRunId": "c1", "childWorkflowId": "w2", "childStatus": "running"},
    "interrupt.requested": {"kind": "custom", "key": "k", "data": {"customKind": "x"}},
    "interrupt.resolved": {"nodeId": "n1", "interruptId": "i"},
    "approval.requested": {
        "nodeId": "n1",
        "artifactId": "a",
        "artifactType": "t",
        "actions": ["accept", "reject"],
    },
    "approval.received": {"nodeId": "n1", "action": "reject", "feedback": "no"},
    "approval.granted": {"gateId": "g", "principal": "p"},
    "approval.rejected": {"gateId": "g", "principal": "p", "reason": "no"},
    "approval.overridden": {"gateId": "g", "principal": "p"},
    "clarification.requested": {"nodeId": "n1", "questions": [{"id": "q", "question": "?"}]},
    "clarification.resolved": {"nodeId": "n1", "answers": {"q": "a"}},
    "conversation.opened": {"conversationId": "c"},
    "conversation.exchanged": {"conversationId": "c", "turnIndex": 1},
    "conversation.closed": {"conversationId": "c", "reason": "done", "turnCount": 3},
    "output.chunk": {"nodeId": "n1", "chunk": "hi"},
    "agent.reasoning.delta": {"agentId": "a", "delta": "th", "sequence": 0},
    "agent.reasoned": {"agentId": "a", "reasoning": "thought"},
    "agent.toolCalled": {"agentId": "a", "toolName": "t", "callId": "c"},
    "agent.toolReturned": {"agentId": "a", "toolName": "t", "callId": "c", "status": "ok"},
    "agent.handoff": {"fromAgentId": "a", "toAgentId": "b"},
    "agent.decided": {"agentId": "a", "decision": "go", "confidence": 0.5},
    "agent.invocation.started": {},
    "agent.invocation.completed": {},
    "provider.usage": {"provider": "p", "model": "m", "inputTokens": 1, "outputTokens": 2},
    "prompt.composed": {"nodeId": "n1", "refs": [], "kind": "system", "hash": "h"},
    "agent.promptResolved": {"nodeId": "n1", "kind": "system", "chain": [], "resolved": "x"},
    "model.capability.substituted": {
        "nodeId": "n1",
        "originalProvider": "a",
        "originalModel": "b",
        "fallbackProvider": "c",
        "fallbackModel": "d",
        "missingCapabilities": ["vision"],
    },
    "model.capability.insufficient": {
        "nodeId": "n1",
        "provider": "a",
        "model": "b",
        "missingCapabilities": ["tools"],
    },
    "envelope.retry.attempted": {"nodeId": "n1", "attempt": 1, "reason": "schema"},
    "envelope.retry.exhausted": {"nodeId": "n1", "totalAttempts": 3, "finalReason": "schema"},
    "envelope.refusal": {"nodeId": "n1", "provider": "p", "model": "m", "refusalText": "no"},
    "envelope.truncated": {"nodeId": "n1", "provider": "p", "model": "m", "stopReason": "len"},
    "envelope.nlToFormat.engaged": {"nodeId": "n1", "originalEnvelopeType": "card"},
    "envelope.recovery.applied": {"nodeId": "n1", "path": "$.a"},
    "cap.breached": {"kind": "loop-iterations", "limit": 10, "observed": 11},
    "runOrchestrator.decided": {
        "agentId": "sup",
        "decision": {"kind": "next-worker", "nextWorkerIds": ["w1"]},
        "iteration": 1,
    },
    "core.workflowChain.event": {"phase": "start"},
    "artifact.created": {"artifactId": "a1", "artifactType": "report", "version": 2},
    "channel.written": {},
    "variable.changed": {"name": "x", "next": 1},
    "log.appended": {"level": "warn", "message": "careful"},
    "version.pinned": {"changeId": "c", "version": 1},
    "workflow.restored": {"fromSnapshotSeq": 3},
    "workflow.loopback-limit": {"nodeId": "n1", "iterations": 5, "limit": 5},
    "workflow.stalled": {"stalledForMs": 3000, "lastNodeId": "n1"},
    "lease.acquired": {"leaseId": "l"},
    "replay.diverged": {"sourceRunId": "r0", "atSequence": 3},
    "memory.written": {"memoryId": "m"},
    "connector.authorized": {"provider": "p"},
    "connector.auth_expired": {"provider": "p", "reason": "expired"},
    "authorization.decided": {
        "principal": "p",
        "action": "read",
        "resource": "x",
        "allowed": False,
    },
    "eval.started": {},
    "voice.transcript": {"text": "hi", "isFinal": True, "atMs": 1, "contentTrust": "untrusted"},
    "budget.exhausted": {},
    "state.snapshot": {"runId": "r", "status": "running"},
    "vendor.acme.anything": {"x": [1, 2, 3]},
}


@pytest.mark.parametrize("event_type", sorted(CATALOG))
def test_every_catalog_type_is_presented(event_type: str) -> None:
    transcript = Transcript()
    changes = transcript.apply(ev(event_type, CATALOG[event_type]))
    assert changes, f"{event_type} drew nothing"
    for change in changes:
        item = change.item
        if isinstance(item, Notice):
            assert "could not read" not in item.text
            assert item.text.strip()


def test_catalog_lines_say_what_happened() -> None:
    def text(event_type: str) -> str:
        transcript = Transcript()
        transcript.apply(ev(event_type, CATALOG[event_type]))
        return " | ".join(getattr(i, "text", "") for i in transcript.items)

    assert text("node.dispatched") == "child run c1 of w2 dispatched by node n1 · child running"
    assert text("runOrchestrator.decided") == "sup decided next-worker: w1 · iteration 1"
    assert text("node.cancelled") == "node n1 cancelled · parent"
    assert text("envelope.retry.exhausted").startswith("the model's answer still did not fit")
    assert "swapped for c/d · lacks vision" in text("model.capability.substituted")
    assert text("approval.received") == "the question at node n1 was answered · reject · no"
    assert text("approval.rejected") == "approval g rejected · by p · no"
    assert text("vendor.acme.anything") == 'vendor.acme.anything · {"x": [1, 2, 3]}'


def test_pause_and_resume_drive_the_status() -> None:
    """The Python host's pause-resume capture: paused through the pause, running after it."""
    statuses: list[str | None] = []
    transcript = Transcript()
    for event in events_of(CAPTURES / "python-host-pause-resume.sse"):
        transcript.apply(event)
        statuses.append(transcript.status)
    assert statuses == ["running", "running", "running", "paused", "running", "completed"]
    texts = [i.text for i in transcript.items if isinstance(i, Notice) and not i.verbose]
    assert "run paused" in texts and "run resumed" in texts


def test_a_resume_after_an_interrupt_is_quiet_and_never_revives_a_finished_run() -> None:
    transcript = Transcript()
    transcript.apply(ev("run.resumed", {"resumedBy": "host"}, None))
    [notice] = transcript.items
    assert isinstance(notice, Notice) and notice.verbose  # not a pause: node.resumed said it
    transcript.apply(ev("run.completed", {}, None, 2))
    transcript.apply(ev("run.resumed", {}, None, 3))
    assert transcript.status == "completed"


def test_usage_is_summed_per_turn_and_per_session() -> None:
    transcript = Transcript()

    def usage(inputs: int, outputs: int, cost: float | None = None) -> RunEvent:
        payload: dict[str, Any] = {
            "provider": "p",
            "model": "m",
            "inputTokens": inputs,
            "outputTokens": outputs,
        }
        if cost is not None:
            payload["costEstimateUsd"] = cost
        return ev("provider.usage", payload)

    transcript.add_user("one")
    transcript.apply(usage(100, 20, 0.01))
    transcript.apply(usage(50, 5))
    transcript.apply(ev("run.completed", {}, None))
    assert (transcript.usage_turn.input_tokens, transcript.usage_turn.output_tokens) == (150, 25)
    summary = [i for i in transcript.items if isinstance(i, Notice) and "usage this turn" in i.text]
    assert summary[-1].text == "usage this turn · 150 in, 25 out · $0.0100"
    transcript.add_user("two")
    transcript.apply(usage(10, 1))
    transcript.apply(ev("run.completed", {}, None))
    assert transcript.usage_turn.input_tokens == 10
    assert transcript.usage_session.input_tokens == 160 and transcript.usage_session.events == 3
    last = [i for i in transcript.items if isinstance(i, Notice)][-2]
    assert last.text.endswith("session 160 in, 26 out · $0.0100")
    # Hostile counts count nothing.
    transcript.apply(ev("provider.usage", {"inputTokens": -5, "outputTokens": "9"}))
    assert transcript.usage_session.input_tokens == 160


def test_tool_calls_keep_duration_status_and_error() -> None:
    transcript = Transcript()
    for event in events_of(CAPTURES / "pg-host-mock-agent-stream.sse"):
        transcript.apply(event)
    [call] = [i for i in transcript.items if isinstance(i, ToolCall)]
    assert call.duration_ms == 15 and call.status == "ok"  # the Postgres host: outcome.durationMs
    transcript.apply(ev("agent.toolCalled", {"callId": "c2", "toolName": "t", "agentId": "a"}))
    transcript.apply(
        ev("agent.toolReturned", {"callId": "c2", "error": {"code": "boom"}, "durationMs": 7})
    )
    failed = [i for i in transcript.items if isinstance(i, ToolCall)][-1]
    assert (failed.duration_ms, failed.status, failed.error) == (7, "error", {"code": "boom"})


def test_an_artifact_keeps_what_fetching_it_needs() -> None:
    transcript = Transcript()
    transcript.apply(
        ev(
            "artifact.created",
            {"artifactId": "a1", "artifactType": "report", "version": 2, "summary": "Q3"},
        )
    )
    [item] = transcript.items
    assert isinstance(item, ArtifactNotice)
    assert (item.artifact_id, item.run_id, item.version) == ("a1", "r", 2)
    assert item.text == "artifact a1 (report) · Q3"


def test_a_values_mode_snapshot_sets_the_status_and_opens_its_interrupt() -> None:
    transcript = Transcript()
    snapshot = {
        "runId": "r",
        "status": "waiting-approval",
        "interrupt": {"kind": "approval", "nodeId": "gate", "payload": {"config": {}}},
    }
    transcript.apply(ev("state.snapshot", snapshot, None))
    assert transcript.status == "waiting"
    [pending] = transcript.pending_interrupts()
    assert pending.request is not None and pending.request.node_id == "gate"
