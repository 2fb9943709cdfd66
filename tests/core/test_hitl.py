"""Sending answers: the routes, the shapes hosts take, and what each refusal means for the form."""

from __future__ import annotations

import json
from typing import Any

import httpx
from client_support import KEY, make_client

from openwop_tui.core.hitl import other_clarification_shape, submit
from openwop_tui.protocol.interrupt_answers import answer_clarification
from openwop_tui.protocol.interrupts import read_request

CLARIFY = {"kind": "clarification", "config": {"questions": [{"id": "q1", "question": "Colour?"}]}}


def request_of(payload: dict[str, Any], event_type: str = "node.suspended") -> Any:
    return read_request(event_type, payload, node_id="ask", run_id="run-1")


def error(status: int, code: str, message: str = "no") -> httpx.Response:
    return httpx.Response(status, json={"error": code, "message": message})


async def test_a_clarification_goes_to_the_run_scoped_route_in_the_hosts_shape() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"runId": "run-1", "status": "running"})

    request = request_of(CLARIFY)
    async with make_client(handler) as client:
        result = await submit(client, request, answer_clarification(request, {"q1": "blue"}))
    assert result.outcome == "answered" and result.closes_form
    [sent] = seen
    assert sent.url.path == "/v1/runs/run-1/interrupts/ask"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(sent.content) == {"resumeValue": {"answers": {"q1": "blue"}}}


async def test_a_refused_shape_is_retried_once_in_the_other() -> None:
    """A host that takes the object form refuses the spec's list (the SQLite host answers 422
    to a list: `answers['q1']` is missing)."""
    bodies: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)["resumeValue"]
        bodies.append(body)
        if isinstance(body["answers"], list):
            return error(422, "validation_error", "answers.q1 MUST be a string")
        return httpx.Response(200, json={"status": "running"})

    request = request_of(CLARIFY, "clarification.requested")  # a spec event: the list first
    value = answer_clarification(request, {"q1": "blue"})
    async with make_client(handler) as client:
        result = await submit(client, request, value)
    assert result.outcome == "answered" and result.value == {"answers": {"q1": "blue"}}
    assert bodies == [{"answers": [{"id": "q1", "answer": "blue"}]}, {"answers": {"q1": "blue"}}]


async def test_each_refusal_gets_its_own_sentence_and_state() -> None:
    cases = [
        (error(400, "validation_error", "action MUST be one of [accept]"), "invalid", True),
        (error(404, "interrupt_not_found"), "closed", False),
        (error(409, "interrupt_already_resolved"), "elsewhere", False),
        (error(409, "run_no_longer_resumable"), "closed", False),
        (error(410, "interrupt_expired"), "expired", False),
        (error(422, "interrupt_cancelled"), "closed", False),
        (error(503, "runner_unavailable"), "failed", True),
    ]
    request = request_of({"kind": "approval", "config": {"actions": ["accept"]}})
    for response, outcome, retry in cases:
        async with make_client(lambda _r, response=response: response) as client:
            result = await submit(client, request, {"action": "accept"})
        assert (result.outcome, result.retry) == (outcome, retry), response.content
        assert result.message and "Traceback" not in result.message
    async with make_client(lambda _r: error(409, "interrupt_already_resolved")) as client:
        result = await submit(client, request, {"action": "accept"})
    assert result.message == "This was answered elsewhere first at node ask."


async def test_the_signed_token_route_sends_no_key_and_stays_on_this_host() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.startswith("/v1/runs/"):
            return error(403, "forbidden", "missing scope approvals:respond")
        return httpx.Response(200, json={"outcome": "resumed"})

    request = request_of(
        {"kind": "external-event", "config": {"eventType": "paid"},
         "callbackUrl": "https://attacker.example/v1/interrupts/tok.123"}
    )  # fmt: skip
    async with make_client(handler) as client:
        result = await submit(client, request, {"eventPayload": {}})
    assert result.outcome == "answered" and result.route is not None
    assert result.route.kind == "token"
    run_scoped, by_token = seen
    assert "authorization" in run_scoped.headers
    assert by_token.url.host == "127.0.0.1" and by_token.url.path == "/v1/interrupts/tok.123"
    assert "authorization" not in by_token.headers
    assert json.loads(by_token.content) == {"resumeValue": {"eventPayload": {}}}


def test_the_other_shape_of_clarification_answers() -> None:
    assert other_clarification_shape({"answers": {"q1": "a"}}) == {
        "answers": [{"id": "q1", "answer": "a"}]
    }
    assert other_clarification_shape({"answers": [{"id": "q1", "answer": "a"}]}) == {
        "answers": {"q1": "a"}
    }
    assert other_clarification_shape({"action": "accept"}) is None
