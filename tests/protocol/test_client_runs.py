"""`HostClient` runs: creating one (request body, headers, a fresh idempotency key per call, where
its events are), and the get, cancel, interrupt and poll requests.
"""

from __future__ import annotations

import json
import uuid

import httpx
from client_support import BASE, CAPTURES, KEY, answer, make_client

from openwop_tui.protocol.client import HostClient


async def test_create_run_python_host_without_events_url() -> None:
    capture = json.loads((CAPTURES / "python-host-multi-node.create.json").read_text())
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json=capture["response"])

    async with make_client(handler) as client:
        run = await client.create_run(
            "conformance-multi-node", {"x": 1}, idempotency_key="k-1", metadata={"m": "v"}
        )
    assert run.run_id == "run-0b956692-1dec-4480-8d3c-08e03b85cfcf"
    assert run.status == "completed"
    assert run.events_url == f"{BASE}/v1/runs/{run.run_id}/events"
    assert run.raw["workflowId"] == "conformance-multi-node"
    request = seen[0]
    assert (request.method, request.url.path) == ("POST", "/v1/runs")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["idempotency-key"] == "k-1"
    assert json.loads(request.content) == {
        "workflowId": "conformance-multi-node",
        "inputs": {"x": 1},
        "metadata": {"m": "v"},
    }


async def test_create_run_makes_an_idempotency_key_per_call() -> None:
    keys: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["idempotency-key"])
        return httpx.Response(201, json={"runId": "r", "status": "pending"})

    async with make_client(handler) as client:
        await client.create_run("w")
        await client.create_run("w")
    assert len(set(keys)) == 2
    assert all(uuid.UUID(k).version == 4 for k in keys)


async def test_create_run_relative_events_url_made_absolute() -> None:
    capture = json.loads((CAPTURES / "inmem-host-multi-node.create.json").read_text())
    async with make_client(answer(201, capture["response"]), base=BASE + "/") as client:
        run = await client.create_run("conformance-multi-node")
    assert run.events_url == f"{BASE}/v1/runs/{run.run_id}/events"


async def test_create_run_ignores_events_url_on_another_origin() -> None:
    body = {"runId": "r1", "status": "pending", "eventsUrl": "https://evil.example/steal"}
    async with make_client(answer(201, body)) as client:
        run = await client.create_run("w")
    assert run.events_url == f"{BASE}/v1/runs/r1/events"


async def test_get_cancel_resolve_and_poll_paths() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/poll"):
            return httpx.Response(200, json={"events": [], "isTerminal": False})
        if request.url.path.endswith("/gate"):
            return httpx.Response(200, content=b"")
        return httpx.Response(200, json={"runId": "r 1", "status": "running"})

    async with make_client(handler) as client:
        assert (await client.get_run("r 1"))["status"] == "running"
        assert (await client.cancel_run("r 1", "user pressed stop"))["runId"] == "r 1"
        assert await client.resolve_interrupt("r 1", "gate", {"action": "accept"}) == {}
        await client.poll_events("r 1", 4, timeout=5)
    get, cancel, resolve, poll = seen
    assert get.url.raw_path == b"/v1/runs/r%201"
    assert (cancel.method, cancel.url.path) == ("POST", "/v1/runs/r 1/cancel")
    assert json.loads(cancel.content) == {"reason": "user pressed stop"}
    assert "idempotency-key" in cancel.headers
    assert resolve.url.path == "/v1/runs/r 1/interrupts/gate"
    assert json.loads(resolve.content) == {"resumeValue": {"action": "accept"}}
    assert "idempotency-key" in resolve.headers
    # The spec's `afterSequence` and the reference hosts' `lastSequence`, same value.
    assert poll.url.params["afterSequence"] == poll.url.params["lastSequence"] == "4"
    assert poll.url.params["timeout"] == "5"
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in seen)


async def test_url_credentials_never_replace_the_bearer_key() -> None:
    """httpx makes a Basic header from ``user:password@`` in a URL, which would silently replace
    the key (a 401 with the right key): with a key, the URL's credentials are dropped."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"runId": "r1", "status": "running"})

    transport = httpx.MockTransport(handler)
    async with HostClient("http://bob:hunter2@host.test:3737/", KEY, transport=transport) as client:
        await client.create_run("wf")
    (request,) = seen
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "hunter2" not in str(request.url)


async def test_url_credentials_stay_without_a_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"runId": "r1", "status": "running"})

    transport = httpx.MockTransport(handler)
    async with HostClient("http://bob:hunter2@host.test/", None, transport=transport) as client:
        await client.create_run("wf")
    assert seen[0].headers["authorization"].startswith("Basic ")
