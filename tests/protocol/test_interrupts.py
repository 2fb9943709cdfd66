"""The interrupt model: one form per waiting node from whatever events a host sends, its state
through the host's answers, and the answers built for the shapes hosts take."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from paths import TESTS

from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import Interrupt, Updated
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.protocol.frames import events_from_frame
from openwop_tui.protocol.interrupt_answers import (
    AnswerError,
    answer_approval,
    answer_clarification,
    answer_conversation,
    answer_input,
    build_answer,
)
from openwop_tui.protocol.interrupts import Route, read_request, request_from_snapshot
from openwop_tui.protocol.resume_schema import schema_problem
from openwop_tui.protocol.sse import parse_sse_text

CAPTURES = TESTS / "data" / "captures"
NOW = datetime(2026, 11, 29, 22, 7, 21, tzinfo=UTC)


def events_of(name: str) -> list[RunEvent]:
    events: list[RunEvent] = []
    for frame in parse_sse_text((CAPTURES / name).read_text(encoding="utf-8")):
        events.extend(events_from_frame(frame.event, frame.data, frame.id).events)
    return events


def interrupts(transcript: Transcript) -> list[Interrupt]:
    return [item for item in transcript.items if isinstance(item, Interrupt)]


def until(name: str, event_type: str) -> tuple[Transcript, list[RunEvent]]:
    """Fold a capture up to and including the first ``event_type``; return the rest too."""
    events = events_of(name)
    transcript = Transcript()
    for index, event in enumerate(events):
        transcript.apply(event)
        if event.type == event_type:
            return transcript, events[index + 1 :]
    raise AssertionError(f"no {event_type} in {name}")


def ev(type_: str, payload: dict[str, Any], node: str | None = "n1", seq: int = 1) -> RunEvent:
    doc: dict[str, Any] = {"type": type_, "payload": payload, "sequence": seq, "runId": "run-1"}
    if node:
        doc["nodeId"] = node
    return normalize(doc)


# ------------------------------------------------------------------ the reference hosts


def test_sqlite_clarification_becomes_a_question_form_answered_in_the_hosts_shape() -> None:
    transcript, rest = until("sqlite-host-clarification-answer.sse", "node.suspended")
    [item] = interrupts(transcript)
    request = item.request
    assert request is not None and item.state == "pending" and transcript.status == "waiting"
    assert request.kind == "clarification" and request.node_id == "ask"
    assert [(q.id, q.text) for q in request.questions] == [("q1", "What is your favorite color?")]
    assert request.routes() == (Route("run", run_id=request.run_id, node_id="ask"),)
    assert request.run_id == "run-ea2cec8e-db3a-48a4-a715-1aec8536d683"
    assert "q1: What is your favorite color?" in item.text
    # The SQLite host takes answers keyed by question id (its own resume schema).
    assert answer_clarification(request, {"q1": "blue"}) == {"answers": {"q1": "blue"}}
    assert build_answer(request, text="blue") == {"answers": {"q1": "blue"}}
    for event in rest:
        transcript.apply(event)
    assert item.state == "answered" and item.answered_by == "elsewhere"
    assert transcript.status == "completed"


def test_sqlite_approval_offers_the_hosts_actions_and_closes_when_resumed() -> None:
    transcript, rest = until("sqlite-host-approval-accept.sse", "node.suspended")
    [item] = interrupts(transcript)
    request = item.request
    assert request is not None and request.kind == "approval"
    assert request.title == "Conformance approval"
    assert request.description == "Conformance suite — please accept to complete the run."
    assert request.offered_actions == ("accept", "reject")
    assert answer_approval(request, "accept", now=NOW) == {
        "action": "accept",
        "decidedAt": "2026-11-29T22:07:21Z",
    }
    with pytest.raises(AnswerError, match="does not offer 'refine'; it offers: accept, reject"):
        answer_approval(request, "refine", feedback="shorter")
    changes = transcript.apply(rest[0])  # node.resumed {action: accept}
    assert any(isinstance(c, Updated) and c.item is item for c in changes)
    assert item.state == "answered" and item.outcome == "accept"
    assert transcript.status == "running"
    assert transcript.pending_interrupts() == []


def test_a_rejected_gate_closes_its_form_and_says_so() -> None:
    """The SQLite and Postgres hosts reject with node.completed {outcome: rejected}, then
    run.failed interrupt_rejected: no node.resumed."""
    transcript = Transcript()
    transcript.apply(
        ev("node.suspended", {"kind": "approval", "config": {"title": "Ship?"}}, "gate")
    )
    transcript.apply(ev("node.completed", {"outcome": "rejected"}, "gate", 2))
    transcript.apply(
        ev("run.failed", {"code": "interrupt_rejected", "message": "Rejected."}, None, 3)
    )
    [item] = interrupts(transcript)
    assert item.state == "answered" and item.outcome == "rejected"
    texts = [i.text for i in transcript.items]
    assert any("node gate rejected" in t for t in texts)
    assert any("interrupt_rejected: Rejected." in t for t in texts)


def test_postgres_low_confidence_pause_shows_reason_confidence_threshold_and_no_resolve() -> None:
    """conformance-local-mock-agent-lowconf: agent.decided 0.4, then node.suspended with
    {reason, agentId, threshold, observed} and no interrupt behind it."""
    transcript = Transcript()
    transcript.apply(
        ev("agent.decided", {"agentId": "agent:local-unsure", "decision": {"kind": "stub"},
                             "confidence": 0.4}, "decider")
    )  # fmt: skip
    transcript.apply(
        ev("node.suspended", {"reason": "low-confidence", "agentId": "agent:local-unsure",
                              "threshold": 0.7, "observed": 0.4}, "decider", 2)
    )  # fmt: skip
    [item] = interrupts(transcript)
    request = item.request
    assert request is not None and request.kind == "low-confidence"
    assert (request.confidence, request.threshold) == (0.4, 0.7)
    assert request.agent_id == "agent:local-unsure" and request.reason == "low-confidence"
    assert not request.answerable and request.offered_actions == ()
    assert "confidence 0.4 below 0.7" in item.text and "cancel the run" in item.text
    with pytest.raises(AnswerError, match="offers no interrupt to resolve"):
        build_answer(request, action="accept")


def test_a_low_confidence_interrupt_the_host_does_name_can_be_ratified() -> None:
    transcript = Transcript()
    transcript.apply(
        ev("interrupt.requested", {"kind": "low-confidence", "interruptId": "i9", "key": "k",
                                   "data": {"agentId": "sup", "threshold": 0.7, "observed": 0.5,
                                            "decision": {"kind": "terminate"}}})
    )  # fmt: skip
    [item] = interrupts(transcript)
    request = item.request
    assert request is not None and request.answerable
    assert request.offered_actions == ("accept", "reject")
    assert build_answer(request, action="accept", now=NOW) == {
        "action": "accept",
        "decidedAt": "2026-11-29T22:07:21Z",
        "decision": {"kind": "terminate"},
    }


# ------------------------------------------------------------------------ de-duplication


def test_the_spec_events_and_node_suspended_make_one_form_with_everything_each_said() -> None:
    transcript = Transcript()
    transcript.apply(ev("node.suspended", {"interruptId": "i1", "kind": "clarification"}))
    transcript.apply(
        ev("interrupt.requested", {"interruptId": "i1", "kind": "clarification", "key": "k1",
                                   "timeoutMs": 60000, "requestedAt": "2026-11-29T22:00:00Z",
                                   "data": {"questions": [{"id": "color", "question": "Colour?",
                                            "schema": {"enum": ["red", "blue"]}}]}}, seq=2)
    )  # fmt: skip
    transcript.apply(
        ev("clarification.requested", {"interruptId": "i1",
                                       "questions": [{"id": "color", "question": "Colour?"}]},
           seq=3)
    )  # fmt: skip
    [item] = interrupts(transcript)
    request = item.request
    assert request is not None
    assert request.sources == ["node.suspended", "interrupt.requested", "clarification.requested"]
    assert request.key == "k1" and request.expires_at == "2026-11-29T22:01:00+00:00"
    [question] = request.questions
    assert [c.value for c in question.choices] == ["red", "blue"]
    # A spec host: the spec's list shape.
    assert answer_clarification(request, {"color": "Blue"}) == {
        "answers": [{"id": "color", "answer": "blue"}]
    }
    assert request.expired(datetime(2026, 11, 29, 22, 2, tzinfo=UTC))
    assert not request.expired(datetime(2026, 11, 29, 22, 0, 30, tzinfo=UTC))
    transcript.apply(
        ev("interrupt.resolved", {"interruptId": "i1", "resumeValue": {"answers": []}}, seq=4)
    )
    assert item.state == "answered"


def test_a_new_interrupt_at_the_same_node_replaces_the_old_one() -> None:
    transcript = Transcript()
    for seq, (interrupt_id, prompt) in enumerate((("t1", "Hi?"), ("t2", "And?")), 1):
        data = {"conversationId": "c", "prompt": prompt}
        payload = {"interruptId": interrupt_id, "kind": "conversation.exchange", "data": data}
        transcript.apply(ev("interrupt.requested", payload, seq=seq))
    first, second = interrupts(transcript)
    assert first.state == "answered" and second.state == "pending"
    assert transcript.pending_interrupts() == [second]


def test_the_run_ending_closes_a_form_still_open() -> None:
    transcript = Transcript()
    transcript.apply(ev("node.suspended", {"kind": "approval", "config": {}}))
    transcript.apply(ev("run.cancelled", {"reason": "stop"}, None, 2))
    [item] = interrupts(transcript)
    assert item.state == "closed" and "the run ended first" in item.text


def test_approval_received_timeout_expires_the_form() -> None:
    transcript = Transcript()
    payload = {"artifactId": "a", "artifactType": "doc", "actions": ["accept"], "title": "Doc"}
    transcript.apply(ev("approval.requested", payload))
    transcript.apply(ev("approval.received", {"action": "timeout"}, seq=2))
    [item] = interrupts(transcript)
    assert item.state == "expired"


def test_answered_here_then_the_event_keeps_it_ours() -> None:
    transcript = Transcript()
    transcript.apply(ev("node.suspended", {"kind": "approval", "config": {}}))
    [item] = interrupts(transcript)
    transcript.interrupt_answered(item, {"action": "reject", "feedback": "no"})
    transcript.apply(ev("node.resumed", {"action": "reject"}, seq=2))
    assert item.answered_by == "you" and item.outcome == "reject · no"
    assert "answered here" in item.text


def test_a_run_and_a_signed_token_route_from_a_callback_url() -> None:
    request = read_request(
        "node.suspended",
        {"kind": "external-event", "nodeId": "wait", "config": {"eventType": "paid"},
         "interruptToken": None, "callbackUrl": "https://elsewhere.example/v1/interrupts/tok.abc"},
        run_id="r1",
    )  # fmt: skip
    assert request.kind == "input" and request.host_kind == "external-event"
    assert request.routes() == (
        Route("run", run_id="r1", node_id="wait"),
        Route("token", token="tok.abc"),
    )
    assert answer_input(request, '{"paid": true}') == {"eventPayload": {"paid": True}}


def test_a_snapshots_open_interrupt_is_read_for_attaching() -> None:
    snapshot = {
        "runId": "r1",
        "status": "waiting-approval",
        "interrupt": {"kind": "approval", "nodeId": "gate",
                      "payload": {"config": {"title": "Ship?", "actions": ["accept"]}}},
    }  # fmt: skip
    request = request_from_snapshot(snapshot)
    assert request is not None and request.kind == "approval" and request.title == "Ship?"
    assert request.offered_actions == ("accept",) and request.run_id == "r1"
    assert request_from_snapshot({"status": "running", "interrupt": None}) is None


# ------------------------------------------------------------------------------ answers


def clarification(**question: Any) -> Any:
    return read_request(
        "interrupt.requested",
        {"kind": "clarification", "nodeId": "n", "data": {"questions": [{"id": "q1", **question}]}},
    )


def test_answers_are_checked_against_the_questions_schema_with_a_clear_message() -> None:
    number = clarification(question="How many?", schema={"type": "integer", "minimum": 1})
    assert answer_clarification(number, {"q1": "3"})["answers"] == [{"id": "q1", "answer": 3}]
    with pytest.raises(AnswerError, match=r"q1 \(How many\?\) takes a whole number"):
        answer_clarification(number, {"q1": "three"})
    with pytest.raises(AnswerError, match="must be at least 1"):
        answer_clarification(number, {"q1": "0"})
    choice = clarification(question="Colour?", schema={"type": "string", "enum": ["red", "blue"]})
    with pytest.raises(AnswerError, match="takes one of: red, blue"):
        answer_clarification(choice, {"q1": "green"})
    with pytest.raises(AnswerError, match="needs an answer"):
        answer_clarification(choice, {})
    with pytest.raises(AnswerError, match="no question 'q2' here; the questions are: q1"):
        answer_clarification(choice, {"q1": "red", "q2": "x"})
    flag = clarification(question="Sure?", schema={"type": "boolean"})
    assert answer_clarification(flag, {"q1": "yes"})["answers"][0]["answer"] is True


def test_the_resume_schema_decides_the_clarification_shape() -> None:
    request = read_request(
        "node.suspended",
        {"kind": "clarification", "config": {"questions": [{"id": "q1", "question": "?"}]},
         "resumeSchema": {"type": "object", "properties": {"answers": {"type": "array"}}}},
    )  # fmt: skip
    assert request.clarification_shape == "object"  # a reference-host event…
    # …but the schema says a list, and the schema wins.
    assert answer_clarification(request, {"q1": "x"}) == {"answers": [{"id": "q1", "answer": "x"}]}


def test_an_approval_follows_a_closed_resume_schema_and_refine_needs_feedback() -> None:
    request = read_request(
        "interrupt.requested",
        {"kind": "approval", "nodeId": "g", "data": {"title": "T", "actions": ["accept", "refine"]},
         "resumeSchema": {"type": "object", "additionalProperties": False,
                          "properties": {"action": {"enum": ["accept", "refine"]},
                                         "refineFeedback": {"type": "object"}}}},
    )  # fmt: skip
    assert answer_approval(request, "accept", now=NOW) == {"action": "accept"}
    with pytest.raises(AnswerError, match="refining needs feedback text"):
        answer_approval(request, "refine")
    assert build_answer(request, feedback="make it shorter") == {
        "action": "refine",
        "refineFeedback": {"scope": "whole", "text": "make it shorter"},
    }
    with pytest.raises(AnswerError, match="asks for a decision: use --approve"):
        build_answer(request, answers={"q1": "x"})


def test_conversation_turns_follow_the_outcome_schema_or_rfc_0005() -> None:
    request = read_request(
        "interrupt.requested",
        {"kind": "conversation.exchange", "nodeId": "chat",
         "data": {"conversationId": "c1", "prompt": "Your turn", "turnIndex": 2}},
    )  # fmt: skip
    assert request.kind == "conversation" and request.conversation_op == "exchange"
    assert answer_conversation(request, "hello", now=NOW, message_id="m1") == {
        "operation": "exchange",
        "turn": {
            "messageId": "m1",
            "from": "user",
            "role": "user",
            "content": "hello",
            "ts": int(NOW.timestamp() * 1000),
            "turnIndex": 2,
            "conversationId": "c1",
        },
    }
    schema = {"type": "object", "properties": {"reply": {"type": "string"}}}
    shaped = read_request(
        "interrupt.requested",
        {"kind": "conversation.exchange", "data": {"conversationId": "c", "prompt": "?",
                                                   "outcomeSchema": schema}},
    )  # fmt: skip
    assert answer_conversation(shaped, "yes") == {"reply": "yes"}
    with pytest.raises(AnswerError, match="type a message"):
        answer_conversation(shaped, "  ")


def test_schema_problems_name_where_the_answer_breaks() -> None:
    schema = {"type": "object", "required": ["answers"],
              "properties": {"answers": {"type": "array", "items": {"type": "object",
                             "required": ["id"]}}}}  # fmt: skip
    assert schema_problem(schema, {}, "the answer") == "the answer needs 'answers'"
    assert schema_problem(schema, {"answers": [{}]}, "v") == "v.answers[0] needs 'id'"
    assert schema_problem(schema, {"answers": [{"id": "q"}]}, "v") is None
    assert schema_problem({"type": "string", "pattern": "("}, "x", "v") is None  # bad pattern
