"""The demo host's conversation primitive, its chat keywords that ask, and its catalogs
(discovery ``fixtures``, ``/v1/workflows``, ``/v1/agents``), over real loopback HTTP."""

from __future__ import annotations

from typing import Any

import httpx
from hitl_support import SPEC_ANSWERS, Log, assert_error, resolve, start

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.catalog import WORKFLOW_INFO
from openwop_tui.demo_host.chat import HELP_LIST
from openwop_tui.demo_host.workflows import WORKFLOWS


def _turns(log: Log, after: int = -1) -> list[dict[str, Any]]:
    return [
        e["payload"]["turn"]
        for e in log.events
        if e["type"] == "conversation.exchanged" and e["sequence"] > after
    ]


def test_discovery_advertises_the_conversation_primitive(client: httpx.Client) -> None:
    doc = client.get("/.well-known/openwop").json()
    assert doc["conversationPrimitive"] is True
    assert "conversation.exchange" in doc["interrupts"]["kinds"]
    assert {"approval", "clarification", "low-confidence"} <= set(doc["interrupts"]["kinds"])


def test_a_conversation_holds_one_run_open_and_replies_to_each_turn(
    client: httpx.Client,
) -> None:
    run_id = start(client, "demo.conversation")
    log = Log(client, run_id)
    suspended = log.wait_for("node.suspended")
    opened = log.wait_for("conversation.opened")
    assert suspended["payload"]["reason"] == "conversation-input"
    assert opened["causationId"] == suspended["eventId"]  # RFC 0005 §B
    conversation_id = opened["payload"]["conversationId"]
    assert opened["payload"]["initialTurn"]["turnIndex"] == 0
    assert opened["payload"]["initialTurn"]["role"] == "agent"
    first = log.wait_for("interrupt.requested")["payload"]
    assert first["kind"] == "conversation.exchange"
    assert first["data"]["conversationId"] == conversation_id
    assert first["data"]["turnIndex"] == 1 and first["data"]["outcomeSchema"]
    assert client.get(f"/v1/runs/{run_id}").json()["status"] == "waiting-approval"

    turn = {"operation": "exchange", "turn": {"role": "user", "content": "hello there"}}
    assert resolve(client, run_id, "conversation", turn).status_code == 200
    # The reply turn is recorded after the next interrupt is open: answering it at once works.
    user = log.wait_for("conversation.exchanged", log.wait_for("interrupt.resolved")["sequence"])
    reply = log.wait_for("conversation.exchanged", user["sequence"])["payload"]["turn"]
    assert reply["role"] == "agent" and reply["agent"]["agentId"] == "agent:demo"
    assert resolve(client, run_id, "conversation", "how are you?").status_code == 200
    after_second = log.wait_for("interrupt.requested", log.events[-1]["sequence"])

    turns = _turns(log)
    assert [(t["role"], t["turnIndex"]) for t in turns[:2]] == [("user", 1), ("agent", 2)]
    assert turns[0]["content"] == "hello there" and "hello there" in reply["content"]
    assert turns[2]["content"] == "how are you?" and turns[2]["turnIndex"] == 3
    assert "how are you?" in turns[3]["content"]
    assert after_second["payload"]["data"]["turnIndex"] == 5
    assert log.types().count("node.suspended") == 1  # the node stays suspended between turns

    assert resolve(client, run_id, "conversation", {"text": "bye"}).status_code == 200
    events = log.to_end()
    closed = log.wait_for("conversation.closed")["payload"]
    assert closed["conversationId"] == conversation_id
    assert closed["finalTurn"]["role"] == "agent"
    assert events[-1]["type"] == "run.completed"
    assert log.types()[-3:] == ["node.resumed", "node.completed", "run.completed"]


def test_an_empty_turn_is_400_and_close_operation_closes(client: httpx.Client) -> None:
    run_id = start(client, "demo.conversation")
    log = Log(client, run_id)
    log.wait_for("interrupt.requested")
    body = assert_error(resolve(client, run_id, "conversation", ""), 400, "validation_error")
    assert "content" in body["message"]
    bad = {"operation": "shout", "turn": {"content": "x"}}
    assert_error(resolve(client, run_id, "conversation", bad), 400, "validation_error")
    assert resolve(client, run_id, "conversation", {"operation": "close"}).status_code == 200
    assert log.to_end()[-1]["type"] == "run.completed"
    assert "conversation.closed" in log.types()


def _chat(client: httpx.Client, text: str) -> tuple[str, Log]:
    run_id = start(client, "demo.chat", messages=[{"role": "user", "content": text}])
    return run_id, Log(client, run_id)


def test_chat_ask_asks_inside_the_turn_and_answers_with_it(client: httpx.Client) -> None:
    run_id, log = _chat(client, "please ask me something")
    assert log.wait_for("interrupt.requested")["payload"]["kind"] == "clarification"
    assert resolve(client, run_id, "ask", SPEC_ANSWERS).status_code == 200
    events = log.to_end()
    assert events[-1]["type"] == "run.completed"
    assert events[-1]["payload"]["outputs"]["answers"] == {"colour": "blue", "name": "Ann"}


def test_chat_approve_rejected_fails_the_turn_with_the_reason(client: httpx.Client) -> None:
    run_id, log = _chat(client, "approve this")
    assert log.wait_for("interrupt.requested")["payload"]["kind"] == "approval"
    value = {"action": "reject", "feedback": "not today"}
    assert resolve(client, run_id, "review", value).status_code == 200
    failed = log.to_end()[-1]
    assert failed["type"] == "run.failed" and "not today" in failed["payload"]["error"]["message"]


def test_chat_unsure_waits_for_ratification(client: httpx.Client) -> None:
    run_id, log = _chat(client, "be unsure")
    assert log.wait_for("node.suspended")["payload"]["reason"] == "low-confidence"
    assert resolve(client, run_id, "decider", {"action": "accept"}).status_code == 200
    assert log.to_end()[-1]["type"] == "run.completed"


def test_chat_help_names_the_asking_keywords() -> None:
    for word in ("`ask`", "`approve`", "`unsure`"):
        assert word in HELP_LIST


def test_a_plain_chat_turn_does_not_ask(client: httpx.Client) -> None:
    _, log = _chat(client, "hello")
    log.to_end()
    assert "interrupt.requested" not in log.types()


def test_discovery_fixtures_list_every_workflow(client: httpx.Client) -> None:
    doc = client.get("/.well-known/openwop").json()
    assert doc["fixtures"] == list(WORKFLOWS)
    assert set(WORKFLOWS) <= set(WORKFLOW_INFO)  # every workflow has a label
    assert {"conformance-clarification", "conformance-approval"} <= set(doc["fixtures"])
    assert doc["agents"]["manifestRuntime"] is True


def test_workflows_list_and_definitions(client: httpx.Client) -> None:
    listed = client.get("/v1/workflows")
    assert listed.status_code == 200
    entries = listed.json()["workflows"]
    assert [e["id"] for e in entries] == list(WORKFLOWS)
    for entry in entries:
        assert entry["name"] and entry["description"], entry
    clarify = next(e for e in entries if e["id"] == "conformance-clarification")
    assert clarify["name"] == "Conformance: Clarification"
    definition = client.get("/v1/workflows/demo.approve").json()
    assert definition["id"] == "demo.approve"
    assert [n["typeId"] for n in definition["nodes"]][1] == "core.approvalGate"
    assert_error(client.get("/v1/workflows/nope"), 404, "workflow_not_found")
    assert_error(client.post("/v1/workflows"), 405, "method_not_allowed")


def test_agents_list_in_the_sdk_shape(client: httpx.Client, host: DemoHost) -> None:
    agents = client.get("/v1/agents").json()["agents"]
    assert agents
    for agent in agents:
        assert {"agentId", "persona", "label", "modelClass", "packName", "packVersion"} <= set(
            agent
        )
        assert isinstance(agent["toolAllowlist"], list)
    demo = next(a for a in agents if a["agentId"] == "agent:demo")
    assert demo["modelClass"] == "chat" and "degraded" not in demo  # demo.chat reads media
    assert client.get("/v1/agents/agent:demo").json()["label"] == "Demo assistant"
    assert_error(client.get("/v1/agents/agent:nobody"), 404, "agent_not_found")
    with httpx.Client(base_url=host.url, timeout=10) as anonymous:
        assert_error(anonymous.get("/v1/agents"), 401, "unauthorized")
        assert_error(anonymous.get("/v1/workflows"), 401, "unauthorized")
