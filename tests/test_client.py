"""`HostClient`: discovery (root vs wrapper, v1 vs v2), runs, every error as a sentence."""

from __future__ import annotations

import copy
import json
import socket
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from openwop_tui.protocol.client import HostClient, HostError

CAPTURES = Path(__file__).parent / "data" / "captures"
BASE = "http://127.0.0.1:8765"
KEY = "sk-secret-test-key-123"

Handler = Callable[[httpx.Request], httpx.Response]


def wellknown(host: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((CAPTURES / f"{host}-host-wellknown.json").read_text())
    return doc


def make_client(handler: Handler, api_key: str | None = KEY, base: str = BASE) -> HostClient:
    return HostClient(base, api_key, transport=httpx.MockTransport(handler))


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, str | bytes):
            return httpx.Response(status, content=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    return handler


def raising(error: Exception) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    return handler


# -- discovery -------------------------------------------------------------------------------------


async def test_discovery_python_host() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=wellknown("python"))

    async with make_client(handler) as client:
        found = await client.discover()
    assert seen[0].url.path == "/.well-known/openwop"
    assert "authorization" not in seen[0].headers  # discovery is public: no Bearer
    assert seen[0].headers["openwop-version"] == "2"  # asked, per protocol.md §1.4
    assert found.major == 1
    assert found.protocol_version == "1.0"
    assert found.protocol_versions == ()
    assert found.implementation_name == "openwop-host-in-memory-python"
    assert found.implementation_version == "1.0.0"
    assert found.supported_envelopes == ()
    assert found.max_inline_media_bytes == 262144
    assert found.model_capabilities == ()
    assert found.family("runs")["bulkCancel"]["maxRunIds"] == 100
    assert found.raw["protocolVersion"] == "1.0"


async def test_discovery_pg_host_reads_root_families() -> None:
    async with make_client(answer(200, wellknown("pg"))) as client:
        found = await client.discover()
    assert found.implementation_name == "openwop-host-postgres"
    assert "long-context" in found.model_capabilities
    assert found.max_inline_media_bytes == 262144  # aiProviders present, cap absent: default


async def test_discovery_falls_back_to_capabilities_wrapper() -> None:
    doc = wellknown("pg")
    # What an older host serves: families only inside the legacy wrapper.
    del doc["modelCapabilities"], doc["aiProviders"]
    doc["capabilities"]["aiProviders"]["maxInlineMediaBytes"] = 1000
    doc["capabilities"]["modelCapabilities"]["advertised"] = ["vision-input"]
    async with make_client(answer(200, doc)) as client:
        found = await client.discover()
    assert found.model_capabilities == ("vision-input",)
    assert found.max_inline_media_bytes == 1000


async def test_discovery_root_wins_over_wrapper() -> None:
    doc = wellknown("sqlite")
    doc["modelCapabilities"] = {"supported": True, "advertised": ["json-mode"]}
    doc["capabilities"]["modelCapabilities"] = {"supported": True, "advertised": ["stale"]}
    async with make_client(answer(200, doc)) as client:
        found = await client.discover()
    assert found.model_capabilities == ("json-mode",)


@pytest.mark.parametrize("host", ["python", "inmem", "sqlite", "pg"])
async def test_every_captured_discovery_document_is_v1(host: str) -> None:
    async with make_client(answer(200, wellknown(host))) as client:
        found = await client.discover()
        assert found.major == client.major == 1
        assert found.implementation_name is not None
        assert client.events_url("run-1") == f"{BASE}/v1/runs/run-1/events"


def v2_document() -> dict[str, Any]:
    return {
        "protocolVersion": "1.4",
        "protocolVersions": ["1.4", "2.0"],
        "preferredVersion": "1.4",
        "implementation": {"name": "v2-host", "version": "2.1.0"},
        "supportedEnvelopes": {
            "status": "stable",
            "since": "2.0",
            "kinds": ["error", "media.image"],
        },
        "aiProviders": {"status": "stable", "since": "2.0", "maxInlineMediaBytes": 65536},
        "modelCapabilities": {"status": "stable", "since": "2.0", "advertised": ["image-output"]},
    }


async def test_v2_detected_from_document_and_header() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(200, json=v2_document(), headers={"OpenWOP-Version": "2.0"})
        return httpx.Response(201, json={"runId": "acme/r-9f3c", "status": "pending"})

    async with make_client(handler) as client:
        found = await client.discover()
        assert found.major == 2
        assert found.protocol_versions == ("1.4", "2.0")
        assert found.supported_envelopes == ("error", "media.image")
        assert found.max_inline_media_bytes == 65536
        assert found.model_capabilities == ("image-output",)
        run = await client.create_run("chat")
    create = seen[1]
    assert create.url.path == "/runs"
    assert create.headers["openwop-version"] == "2"
    assert create.headers["authorization"] == f"Bearer {KEY}"
    # v2 run ids `<tenant>/<opaque>` become one path segment (protocol.md §1.3).
    assert run.events_url == f"{BASE}/runs/acme~2Fr-9f3c/events"


async def test_v2_listed_but_header_says_1_stays_v1() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(200, json=v2_document())
        return httpx.Response(200, json={"runId": "r", "status": "running"})

    async with make_client(handler) as client:
        assert (await client.discover()).major == 1
        await client.get_run("r")
    assert seen[1].url.path == "/v1/runs/r"
    assert "openwop-version" not in seen[1].headers


async def test_discovery_retries_without_version_header_on_400() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if "openwop-version" in request.headers:
            return httpx.Response(400, json={"error": "protocol_version_mismatch", "message": "no"})
        return httpx.Response(200, json=wellknown("inmem"))

    async with make_client(handler) as client:
        found = await client.discover()
    assert found.implementation_name == "openwop-host-in-memory"
    assert len(seen) == 2


async def test_discovery_404_says_not_an_openwop_host() -> None:
    async with make_client(answer(404, "nope")) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.status == 404
    assert "no OpenWOP discovery document" in caught.value.message


async def test_discovery_html_is_bad_response() -> None:
    html = answer(200, "<html>hello</html>", {"content-type": "text/html"})
    async with make_client(html) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.code == "bad_response"
    assert "text/html" in caught.value.message


# -- runs ------------------------------------------------------------------------------------------


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


# -- errors ----------------------------------------------------------------------------------------


async def test_connection_refused_on_a_real_closed_port() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with HostClient(f"http://127.0.0.1:{port}", KEY) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.message == (
        f"Cannot reach http://127.0.0.1:{port} — connection refused. Is the host running?"
    )
    assert caught.value.code == "connection_refused"
    assert caught.value.status is None


@pytest.mark.parametrize(
    ("error", "code", "fragment"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), "connection_refused", "refused"),
        (
            httpx.ConnectError("[Errno -2] Name or service not known"),
            "dns_failure",
            "the name '127.0.0.1' does not resolve",
        ),
        (httpx.ConnectTimeout("timed out"), "timeout", "no answer within 10 s"),
        (httpx.ReadTimeout("timed out"), "timeout", "did not answer within 10 s"),
        (
            httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"),
            "tls_error",
            "TLS handshake failed",
        ),
        (httpx.RemoteProtocolError("peer closed"), "connection_error", "RemoteProtocolError"),
    ],
)
async def test_network_errors(error: Exception, code: str, fragment: str) -> None:
    async with make_client(raising(error)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.code == code
    assert fragment in caught.value.message
    assert "Traceback" not in caught.value.message


async def test_dns_failure_names_the_host() -> None:
    async with make_client(
        raising(httpx.ConnectError("[Errno -3] Temporary failure in name resolution")),
        base="https://no-such-host.invalid",
    ) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.message == (
        "Cannot reach https://no-such-host.invalid — the name 'no-such-host.invalid' does not "
        "resolve (DNS lookup failed). Check the host URL."
    )


async def test_401_with_key() -> None:
    async with make_client(answer(401, {"error": "unauthorized", "message": "bad key"})) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert caught.value.message == (
        "The host rejected the API key (401 unauthorized). Set --api-key or OPENWOP_API_KEY."
    )
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")


async def test_401_without_key() -> None:
    async with make_client(answer(401, ""), api_key=None) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.message == (
        "The host needs an API key (401 unauthorized). Set --api-key or OPENWOP_API_KEY."
    )


async def test_403() -> None:
    async with make_client(answer(403, {"error": "forbidden", "message": "scope"})) as client:
        with pytest.raises(HostError) as caught:
            await client.cancel_run("r")
    assert "403 forbidden" in caught.value.message
    assert "Set --api-key or OPENWOP_API_KEY" in caught.value.message


async def test_404_workflow_not_found_with_host_message() -> None:
    body = {
        "error": "workflow_not_found",
        "message": "Unknown workflow 'chatt'. Available: chat, echo.",
    }
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("chatt")
    assert caught.value.message == (
        "The host has no workflow 'chatt' (404 workflow_not_found). "
        "Host says: Unknown workflow 'chatt'. Available: chat, echo."
    )
    assert caught.value.code == "workflow_not_found"


async def test_404_workflow_not_found_without_message() -> None:
    async with make_client(answer(404, {"error": "workflow_not_found"})) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("nope")
    assert caught.value.message == "The host has no workflow 'nope' (404 workflow_not_found)."


async def test_404_run_not_found() -> None:
    body = {"error": "run_not_found", "message": "Unknown runId: r9"}
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r9")
    assert caught.value.message.startswith("The host does not know run 'r9' (404 run_not_found).")


@pytest.mark.parametrize(
    ("status", "body", "headers", "fragment"),
    [
        (
            409,
            {"error": "run_already_active", "message": "dedup"},
            {"Retry-After": "3"},
            "already active on the host (409 run_already_active; retry after 3 s)",
        ),
        (
            409,
            {"error": "idempotency_key_mismatch", "message": "different body"},
            None,
            "Idempotency-Key with a different body (409 idempotency_key_mismatch)",
        ),
        (
            409,
            {"error": "idempotency_in_flight", "message": "busy"},
            None,
            "still processing an identical request (409 idempotency_in_flight)",
        ),
        (
            422,
            {"error": "capability_required", "message": "needs conversationPrimitive"},
            None,
            "needs a capability this host does not have (422 capability_required). "
            "Host says: needs conversationPrimitive.",
        ),
        (
            429,
            {"error": "rate_limited", "message": "slow down", "details": {"retryAfterMs": 7000}},
            {"Retry-After": "7"},
            "rate limiting requests (429 rate_limited; retry after 7 s)",
        ),
        (500, "Internal Server Error", None, "body is not JSON: 'Internal Server Error'"),
        (503, {"error": "runner_unavailable"}, None, "unavailable (503 runner_unavailable)"),
        (
            400,
            {"error": "validation_error", "message": "inputs MUST be an object"},
            None,
            "rejected the request to start workflow 'w' (400 validation_error)",
        ),
        (302, "", {"Location": "https://elsewhere.example/v1/runs"}, "redirects are not followed"),
    ],
)
async def test_http_errors(
    status: int, body: Any, headers: dict[str, str] | None, fragment: str
) -> None:
    async with make_client(answer(status, body, headers)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert fragment in caught.value.message
    assert caught.value.status == status


async def test_retry_after_and_details_kept() -> None:
    body = {"error": "rate_limited", "message": "m", "details": {"retryAfterMs": 7000}}
    async with make_client(answer(429, body, {"Retry-After": "7"})) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.retry_after == 7.0
    assert caught.value.details == {"retryAfterMs": 7000}


async def test_nested_error_object_is_read() -> None:
    body = {"error": {"code": "not_found", "message": "Unknown runId: r"}}
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.code == "not_found"
    assert "Unknown runId: r" in caught.value.message


@pytest.mark.parametrize(
    ("status", "body", "fragment"),
    [
        (201, "not json at all", "body is not JSON: 'not json at all'"),
        (201, {"status": "pending"}, "has no runId"),
        (201, [1, 2], "sent a JSON list instead of a JSON object"),
        (201, "", "sent an empty body instead of a JSON object"),
    ],
)
async def test_unexpected_success_bodies(status: int, body: Any, fragment: str) -> None:
    async with make_client(answer(status, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert caught.value.code == "bad_response"
    assert fragment in caught.value.message


async def test_api_key_never_in_messages_even_when_echoed() -> None:
    body = {"error": "unauthorized", "message": f"key {KEY} is revoked"}
    for status in (400, 401, 403, 500):
        async with make_client(answer(status, body)) as client:
            with pytest.raises(HostError) as caught:
                await client.get_run("r")
        assert KEY not in caught.value.message
        assert KEY not in repr(caught.value)
    async with make_client(answer(500, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "[api key]" in caught.value.message
    assert KEY not in repr(client)


async def test_control_characters_from_host_are_made_visible() -> None:
    body = {"error": "bad", "message": "evil \x1b]52;c;AAAA\x07 text"}
    async with make_client(answer(400, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "\x1b" not in caught.value.message
    assert "\\u001b" in caught.value.message


@pytest.mark.parametrize("url", ["ftp://example.com", "example.com", "http://h:99999", "http://"])
def test_invalid_base_url(url: str) -> None:
    with pytest.raises(HostError) as caught:
        HostClient(url)
    assert caught.value.code == "invalid_url"


async def test_discovery_document_is_not_mutated() -> None:
    doc = wellknown("sqlite")
    before = copy.deepcopy(doc)
    async with make_client(answer(200, doc)) as client:
        await client.discover()
    assert doc == before
