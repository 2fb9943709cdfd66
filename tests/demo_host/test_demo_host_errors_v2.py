"""Every error the demo host answers on the v2 surface is the v2 error envelope
(``tests/data/schemas/error-envelope.v2.schema.json``): closed ``{error, message, details?}``, a
registered code sent with the status the registry gives it, or a vendor code where the
registry has none for the status (405, 411)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import httpx
import pytest
from conformance_schemas import error_problems
from hitl_support import SPEC_ANSWERS

from openwop_tui.demo_host import DemoHost

V2 = {"OpenWOP-Version": "2"}


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=2, max_body_bytes=4096) as demo:
        yield demo


@pytest.fixture(scope="module")
def http(host: DemoHost) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {host.api_key}", **V2}
    with httpx.Client(base_url=host.url, headers=headers, timeout=30) as client:
        yield client


def _run(http: httpx.Client, workflow: str) -> str:
    created = http.post("/runs", json={"workflowId": workflow})
    assert created.status_code == 201, created.text
    segment: str = created.json()["statusUrl"].rsplit("/", 1)[-1]
    return segment


def _answered_clarification(http: httpx.Client) -> str:
    run = _run(http, "demo.clarify")
    path = f"/runs/{run}/events/poll"
    while not any(e["type"] == "interrupt.requested" for e in http.get(path).json()["events"]):
        pass
    answered = http.post(f"/runs/{run}/interrupts/ask", json={"resumeValue": SPEC_ANSWERS})
    assert answered.status_code == 200, answered.text
    return run


def _cancel_twice(http: httpx.Client) -> httpx.Response:
    run = _run(http, "demo.approve")
    assert http.post(f"/runs/{run}/cancel", json={}).status_code == 200
    return http.post(f"/runs/{run}/cancel", json={})


Request = Callable[[httpx.Client, DemoHost], httpx.Response]

CASES: dict[str, Request] = {
    "no key": lambda http, host: httpx.get(f"{host.url}/runs", headers=V2),
    "unknown run": lambda http, host: http.get("/runs/demo~2Frun_00000000000000000000"),
    "other tenant": lambda http, host: http.get("/runs/acme~2Frun_00000000000000000000"),
    "unknown workflow": lambda http, host: http.post("/runs", json={"workflowId": "nope"}),
    "bad body": lambda http, host: http.post("/runs", content=b"{", headers={"X": "1"}),
    "wrong method": lambda http, host: http.delete("/runs"),
    "too large": lambda http, host: http.post("/runs", content=b" " * 4097),
    "bad stream mode": lambda http, host: http.get(
        f"/runs/{_run(http, 'conformance-noop')}/events", params={"streamMode": "values"}
    ),
    "major 3": lambda http, host: http.get("/runs", headers={"OpenWOP-Version": "3"}),
    "bad cursor": lambda http, host: http.get("/runs", params={"cursor": "x"}),
    "cancel twice": lambda http, host: _cancel_twice(http),
    "unknown interrupt": lambda http, host: http.post(
        f"/runs/{_run(http, 'conformance-noop')}/interrupts/nope", json={"resumeValue": 1}
    ),
    "answered twice": lambda http, host: http.post(
        f"/runs/{_answered_clarification(http)}/interrupts/ask",
        json={"resumeValue": SPEC_ANSWERS},
    ),
    "bad answer": lambda http, host: http.post(
        f"/runs/{_run(http, 'demo.clarify')}/interrupts/ask", json={"resumeValue": {}}
    ),
    "forged token": lambda http, host: httpx.get(f"{host.url}/interrupts/a.b", headers=V2),
    "unknown agent": lambda http, host: http.get("/agents/nobody"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_error_is_the_v2_envelope(host: DemoHost, http: httpx.Client, case: str) -> None:
    response = CASES[case](http, host)
    assert response.status_code >= 400, response.text
    if response.status_code != 406:  # a major the host does not serve has no contract to name
        assert response.headers["openwop-version"].startswith("2"), "the v2 contract, named"
    assert error_problems(response.status_code, json.loads(response.content)) == []


def test_the_check_catches_a_code_sent_with_another_status() -> None:
    assert error_problems(405, {"error": "not_found", "message": "GET is not allowed"})
    assert error_problems(400, {"error": "validation_error", "message": "x", "extra": 1})
    assert error_problems(405, {"error": "openwop-tui.method_not_allowed", "message": "x"}) == []
