"""The demo host asks: clarification, approval, low confidence, over real loopback HTTP.

Each test waits on the run's own events (long-poll), never on a clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hitl_support import SPEC_ANSWERS, Log, assert_error, resolve, start

from openwop_tui.demo_host import DemoHost


@pytest.fixture
def anonymous(host: DemoHost) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=host.url, timeout=10) as c:
        yield c


def test_clarification_suspends_like_the_reference_hosts_and_the_spec(
    client: httpx.Client,
) -> None:
    run_id = start(client, "demo.clarify")
    log = Log(client, run_id)
    requested = log.wait_for("clarification.requested")
    assert log.types() == [
        "run.started",
        "node.started",
        "node.suspended",
        "interrupt.requested",
        "clarification.requested",
    ]
    suspended = log.wait_for("node.suspended")["payload"]
    interrupt = log.wait_for("interrupt.requested")["payload"]
    # The SQLite host's node.suspended shape, plus the spec's interruptId.
    assert suspended["kind"] == "clarification" and suspended["nodeId"] == "ask"
    assert suspended["config"]["questions"][0]["schema"]["enum"] == [
        "red",
        "green",
        "blue",
        "purple",
    ]
    assert suspended["interruptId"] == interrupt["interruptId"]
    assert suspended["callbackUrl"] == f"/v1/interrupts/{interrupt['interruptToken']}"
    assert interrupt["kind"] == "clarification"
    assert [q["id"] for q in interrupt["data"]["questions"]] == ["colour", "name"]
    assert interrupt["resumeSchema"]["required"] == ["answers"]
    assert requested["payload"]["interruptId"] == interrupt["interruptId"]
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "waiting-input"

    reply = resolve(client, run_id, "ask", SPEC_ANSWERS)
    assert reply.status_code == 200, reply.text
    assert reply.json()["interruptId"] == interrupt["interruptId"]
    events = log.to_end()
    assert log.types()[5:9] == [
        "interrupt.resolved",
        "clarification.resolved",
        "node.resumed",
        "node.completed",
    ]
    resolved = log.wait_for("clarification.resolved")["payload"]
    assert resolved["answers"] == {"colour": "blue", "name": "Ann"}
    assert events[-1]["type"] == "run.completed"
    assert events[-1]["payload"]["outputs"]["answers"] == {"colour": "blue", "name": "Ann"}
    completions = [
        e["payload"]["outputs"].get("completion", "")
        for e in events
        if e["type"] == "node.completed"
    ]
    assert any("Ann" in c and "blue" in c for c in completions)


def test_the_sqlite_hosts_object_answer_is_accepted_too(client: httpx.Client) -> None:
    run_id = start(client, "conformance-clarification")
    log = Log(client, run_id)
    questions = log.wait_for("interrupt.requested")["payload"]["data"]["questions"]
    assert questions == [{"id": "q1", "question": "What is your favorite color?"}]
    assert resolve(client, run_id, "ask", {"answers": {"q1": "blue"}}).status_code == 200
    assert log.to_end()[-1]["payload"]["outputs"] == {"answers": {"q1": "blue"}}


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ({"answers": {"colour": "pink", "name": "Ann"}}, "must be one of: red, green"),
        ({"answers": {"colour": "blue"}}, "unanswered: 'name'"),
        ({"answers": {"colour": "blue", "name": "Ann", "age": 3}}, "no question with id 'age'"),
        ({"answers": {"colour": "blue", "name": "  "}}, "'name' must be a non-empty string"),
        ({"answers": "blue"}, "must be a list of {id, answer}"),
        ("blue", "must be a JSON object"),
    ],
)
def test_an_invalid_answer_is_400_and_the_question_stays_open(
    client: httpx.Client, value: Any, says: str
) -> None:
    run_id = start(client, "demo.clarify")
    log = Log(client, run_id)
    log.wait_for("interrupt.requested")
    body = assert_error(resolve(client, run_id, "ask", value), 400, "validation_error")
    assert says in body["message"]
    assert resolve(client, run_id, "ask", SPEC_ANSWERS).status_code == 200
    assert log.to_end()[-1]["type"] == "run.completed"


def test_a_body_without_resume_value_is_400(client: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    Log(client, run_id).wait_for("interrupt.requested")
    url = f"/v1/runs/{run_id}/interrupts/gate"
    body = assert_error(client.post(url, json={"action": "accept"}), 400, "validation_error")
    assert "resumeValue" in body["message"]
    assert_error(client.post(url, content=b"{nope"), 400, "validation_error")
    client.post(f"/v1/runs/{run_id}/cancel")


def test_unknown_run_or_node_is_404(client: httpx.Client) -> None:
    assert_error(resolve(client, "run_nope", "ask", {}), 404, "run_not_found")
    run_id = start(client, "conformance-approval")
    Log(client, run_id).wait_for("interrupt.requested")
    assert_error(resolve(client, run_id, "elsewhere", {}), 404, "interrupt_not_found")
    client.post(f"/v1/runs/{run_id}/cancel")


def test_a_second_answer_is_409_and_a_retried_key_replays(client: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    log = Log(client, run_id)
    log.wait_for("interrupt.requested")
    url = f"/v1/runs/{run_id}/interrupts/gate"
    body = {"resumeValue": {"action": "accept"}}
    first = client.post(url, json=body, headers={"Idempotency-Key": "k1"})
    assert first.status_code == 200
    again = client.post(url, json=body, headers={"Idempotency-Key": "k1"})
    assert again.status_code == 200 and again.json() == first.json()
    assert_error(client.post(url, json=body), 409, "interrupt_already_resolved")
    assert log.to_end()[-1]["type"] == "run.completed"
    assert log.types().count("interrupt.resolved") == 1


def test_an_expired_interrupt_is_410_and_fails_the_run(client: httpx.Client) -> None:
    run_id = start(client, "demo.clarify", timeoutMs=1)
    log = Log(client, run_id)
    token = log.wait_for("interrupt.requested")["payload"]["interruptToken"]
    events = log.to_end()  # the run fails once the deadline passes; nobody answered
    assert events[-1]["type"] == "run.failed"
    assert events[-1]["payload"]["error"]["code"] == "interrupt_expired"
    assert_error(resolve(client, run_id, "ask", SPEC_ANSWERS), 410, "interrupt_expired")
    assert_error(
        client.post(f"/v1/interrupts/{token}", json={"resumeValue": SPEC_ANSWERS}),
        410,
        "interrupt_expired",
    )


def test_approval_accept_completes(client: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    log = Log(client, run_id)
    suspended = log.wait_for("node.suspended")["payload"]
    assert suspended["kind"] == "approval"
    assert suspended["config"] == {
        "actions": ["accept", "reject"],
        "title": "Conformance approval",
        "description": "Conformance suite — please accept to complete the run.",
    }
    approval = log.wait_for("approval.requested")["payload"]
    assert approval["actions"] == ["accept", "reject"] and approval["interruptId"]
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "waiting-approval"
    assert resolve(client, run_id, "gate", {"action": "accept"}).status_code == 200
    events = log.to_end()
    assert log.wait_for("approval.received")["payload"]["action"] == "accept"
    assert log.wait_for("node.resumed")["payload"]["action"] == "accept"
    assert events[-1]["type"] == "run.completed"
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "completed"


def test_approval_reject_fails_with_the_reason(client: httpx.Client) -> None:
    run_id = start(client, "demo.approve")
    log = Log(client, run_id)
    log.wait_for("interrupt.requested")
    value = {"action": "reject", "feedback": "the tone is wrong"}
    assert resolve(client, run_id, "review", value).status_code == 200
    failed = log.to_end()[-1]
    assert failed["type"] == "run.failed"
    assert failed["payload"]["error"]["code"] == "interrupt_rejected"
    assert "the tone is wrong" in failed["payload"]["error"]["message"]
    snapshot = client.get(f"/v1/runs/{run_id}").json()
    assert snapshot["status"] == "failed" and "tone" in snapshot["error"]["message"]


def test_approval_refine_continues_with_the_feedback(client: httpx.Client) -> None:
    run_id = start(client, "demo.approve")
    log = Log(client, run_id)
    assert log.wait_for("interrupt.requested")["payload"]["data"]["actions"] == [
        "accept",
        "reject",
        "refine",
    ]
    value = {"action": "refine", "refineFeedback": {"scope": "whole", "text": "shorter please"}}
    assert resolve(client, run_id, "review", value).status_code == 200
    events = log.to_end()
    assert events[-1]["type"] == "run.completed"
    publish = next(
        e for e in events if e["type"] == "node.completed" and e["payload"]["nodeId"] == "publish"
    )
    assert "shorter please" in publish["payload"]["outputs"]["completion"]


@pytest.mark.parametrize(
    ("workflow", "node", "value", "says"),
    [
        ("conformance-approval", "gate", {"action": "refine"}, "one of: accept, reject"),
        ("demo.approve", "review", {"action": "refine"}, "'refine' needs feedback"),
        ("demo.approve", "review", {"action": 7}, "one of: accept, reject, refine"),
    ],
)
def test_an_action_the_gate_does_not_allow_is_400(
    client: httpx.Client, workflow: str, node: str, value: Any, says: str
) -> None:
    run_id = start(client, workflow)
    Log(client, run_id).wait_for("interrupt.requested")
    body = assert_error(resolve(client, run_id, node, value), 400, "validation_error")
    assert says in body["message"]
    client.post(f"/v1/runs/{run_id}/cancel")


def test_the_legacy_decision_vocabulary_is_normalised(client: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    log = Log(client, run_id)
    log.wait_for("interrupt.requested")
    assert resolve(client, run_id, "gate", {"decision": "approved"}).status_code == 200
    assert log.wait_for("approval.received")["payload"]["action"] == "accept"
    assert log.to_end()[-1]["type"] == "run.completed"


def test_low_confidence_pauses_with_reason_confidence_and_threshold(
    client: httpx.Client,
) -> None:
    run_id = start(client, "demo.low-confidence")
    log = Log(client, run_id)
    decided = log.wait_for("agent.decided")["payload"]
    assert decided["confidence"] == 0.4 and decided["agentId"] == "agent:local-unsure"
    suspended = log.wait_for("node.suspended")["payload"]
    # The Postgres host's payload, plus the spec's kind and interruptId.
    assert suspended["reason"] == "low-confidence"
    assert (suspended["threshold"], suspended["observed"]) == (0.7, 0.4)
    data = log.wait_for("interrupt.requested")["payload"]["data"]
    assert data["threshold"] == 0.7 and data["observed"] == 0.4
    assert data["actions"] == ["accept", "reject"]
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "waiting-approval"
    assert resolve(client, run_id, "decider", {"action": "accept"}).status_code == 200
    assert log.to_end()[-1]["type"] == "run.completed"


def test_the_signed_token_route_inspects_and_resolves_without_a_key(
    client: httpx.Client, anonymous: httpx.Client
) -> None:
    run_id = start(client, "conformance-approval")
    log = Log(client, run_id)
    token = log.wait_for("interrupt.requested")["payload"]["interruptToken"]
    inspected = anonymous.get(f"/v1/interrupts/{token}")
    assert inspected.status_code == 200, inspected.text
    body = inspected.json()
    assert body["kind"] == "approval" and body["nodeId"] == "gate"
    assert body["data"]["actions"] == ["accept", "reject"] and "resumeSchema" in body
    assert body["expiresAt"]
    bad = anonymous.post(f"/v1/interrupts/{token}", json={"resumeValue": {"action": "maybe"}})
    assert_error(bad, 400, "validation_error")
    ok = anonymous.post(f"/v1/interrupts/{token}", json={"resumeValue": {"action": "accept"}})
    assert ok.status_code == 200, ok.text
    assert log.to_end()[-1]["type"] == "run.completed"
    resolved = log.wait_for("interrupt.resolved")["payload"]
    assert resolved["resolvedBy"] == "callback-token"
    spent = anonymous.post(f"/v1/interrupts/{token}", json={"resumeValue": {"action": "accept"}})
    assert_error(spent, 409, "interrupt_already_resolved")
    assert_error(anonymous.get(f"/v1/interrupts/{token}"), 409, "interrupt_already_resolved")


def test_a_forged_or_garbled_token_is_404(client: httpx.Client, anonymous: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    token = Log(client, run_id).wait_for("interrupt.requested")["payload"]["interruptToken"]
    payload, _, mac = token.partition(".")
    forged = f"{payload}.{'A' * len(mac)}"
    for bad in (forged, "garbage", f"{payload}.", "x.y"):
        assert_error(anonymous.get(f"/v1/interrupts/{bad}"), 404, "interrupt_not_found")
        assert_error(
            anonymous.post(f"/v1/interrupts/{bad}", json={"resumeValue": {"action": "accept"}}),
            404,
            "interrupt_not_found",
        )
    client.post(f"/v1/runs/{run_id}/cancel")


def test_answering_a_cancelled_run_is_422_or_409_by_token(client: httpx.Client) -> None:
    run_id = start(client, "conformance-approval")
    log = Log(client, run_id)
    token = log.wait_for("interrupt.requested")["payload"]["interruptToken"]
    assert client.post(f"/v1/runs/{run_id}/cancel").status_code == 200
    assert log.to_end()[-1]["type"] == "run.cancelled"
    assert_error(resolve(client, run_id, "gate", {"action": "accept"}), 422, "interrupt_cancelled")
    by_token = client.post(f"/v1/interrupts/{token}", json={"resumeValue": {"action": "accept"}})
    assert_error(by_token, 409, "interrupt_already_resolved")


def test_the_run_scoped_route_needs_the_key(anonymous: httpx.Client) -> None:
    response = anonymous.post("/v1/runs/run_x/interrupts/gate", json={"resumeValue": {}})
    assert_error(response, 401, "unauthorized")
