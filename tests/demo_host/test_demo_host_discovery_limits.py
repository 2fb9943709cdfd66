"""The demo host says what a real host says about itself, and holds to it: complete v2
capability records (the transcribed v2 capabilities schema), a request size limit advertised
in v1 and v2 and enforced with ``413``, a public ``openapi.json``, and discovery's envelope
list holding the four universals."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conformance_schemas import discovery_v2_problems

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost

V2 = {"OpenWOP-Version": "2"}
UNIVERSALS = {"clarification.request", "schema.request", "schema.response", "error"}


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=2, max_body_bytes=2000) as demo:
        yield demo


def _discovery(host: DemoHost, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = httpx.get(f"{host.url}/.well-known/openwop", headers=headers or {})
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def test_v2_discovery_is_the_closed_root_with_complete_records(host: DemoHost) -> None:
    document = _discovery(host, V2)
    assert discovery_v2_problems(document) == []
    records = {k: v for k, v in document.items() if isinstance(v, dict) and "status" in v}
    assert {"supportedEnvelopes", "limits", "runList", "agents", "aiProviders"} <= set(records)
    for record in records.values():
        assert {"status", "since", "witness"} <= set(record)
        assert record["since"] in document["protocolVersions"]
    # Presence of the record is the claim: no v1 `supported` flag (capabilities.md §2).
    assert all("supported" not in record for record in records.values())
    assert "supportedTransports" not in document  # deleted in v2 (capabilities.md §4)
    assert document["runList"]["filters"] == ["workflowId", "status"]


def test_the_v2_schema_check_catches_an_incomplete_record(host: DemoHost) -> None:
    document = _discovery(host, V2)
    del document["limits"]["witness"]
    assert any("witness" in problem for problem in discovery_v2_problems(document))
    assert discovery_v2_problems({**_discovery(host, V2), "interrupts": {}})  # closed root


def test_v1_discovery_lists_the_universals_and_the_limit(host: DemoHost) -> None:
    document = _discovery(host)
    assert set(document["supportedEnvelopes"]) >= UNIVERSALS
    assert set(document["schemaVersions"]) == set(document["supportedEnvelopes"])
    assert document["limits"]["maxRequestBodyBytes"] == 2000
    assert _discovery(host, V2)["limits"]["maxRequestBodyBytes"] == 2000
    assert document["runList"]["supported"] is True


def _padded(size: int) -> bytes:
    """A valid create body of exactly ``size`` bytes."""
    body = {"workflowId": "conformance-noop", "inputs": {"pad": ""}}
    filler = size - len(json.dumps(body).encode())
    body["inputs"]["pad"] = "x" * filler
    data = json.dumps(body).encode()
    assert len(data) == size
    return data


@pytest.mark.parametrize(("path", "headers"), [("/v1/runs", {}), ("/runs", V2)])
def test_a_body_over_the_limit_is_413_with_the_error_envelope(
    host: DemoHost, path: str, headers: dict[str, str]
) -> None:
    keyed = {"Authorization": f"Bearer {host.api_key}", "Content-Type": "application/json"}
    with httpx.Client(base_url=host.url, headers={**keyed, **headers}) as client:
        assert client.post(path, content=_padded(2000)).status_code == 201
        refused = client.post(path, content=_padded(2001))
    assert refused.status_code == 413
    # The host closes the connection after a refused body, and says so, or a keep-alive
    # client sends its next request into the closing socket (measured: 1 in 40 failed).
    assert refused.headers["connection"] == "close"
    body = refused.json()
    assert set(body) == {"error", "message", "details"}
    assert body["error"] == "payload_too_large"
    assert body["details"] == {"maxRequestBodyBytes": 2000, "receivedBytes": 2001}
    assert "2000" in body["message"] and "maxRequestBodyBytes" in body["message"]


def test_the_default_limit_is_one_mebibyte() -> None:
    with DemoHost(pace=0, keepalive=0) as demo:
        assert _discovery(demo)["limits"]["maxRequestBodyBytes"] == 1024 * 1024
    with pytest.raises(ValueError, match="max_body_bytes"):
        DemoHost(max_body_bytes=0)


def test_demo_host_command_takes_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr("openwop_tui.demo_host.serve_forever", lambda **o: seen.update(o))
    assert main(["demo-host", "--max-body-bytes", "4096"]) == 0
    assert seen["max_body_bytes"] == 4096


@pytest.mark.parametrize("path", ["/openapi.json", "/v1/openapi.json"])
def test_openapi_is_public_and_names_the_routes(host: DemoHost, path: str) -> None:
    response = httpx.get(host.url + path)  # no key, like the reference hosts
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    paths = set(document["paths"])
    assert {"/v1/runs", "/v1/runs/{runId}/events", "/v1/interrupts/{token}"} <= paths
    assert set(document["paths"]["/v1/runs"]) == {"get", "post"}
    assert ("/runs" in document["paths"]) == (path == "/openapi.json")  # v2 on the bare paths
    assert document["paths"]["/v1/interrupts/{token}"]["post"]["security"] == []


async def test_an_async_client_sending_megabytes_reads_the_413(host: DemoHost) -> None:
    """The app's client (async httpx) keeps sending while the host answers: without the host
    reading the refused body, the connection is reset and the client sees a ReadError."""
    headers = {"Authorization": f"Bearer {host.api_key}", "Content-Type": "application/json"}
    async with httpx.AsyncClient(base_url=host.url, headers=headers, timeout=60) as client:
        for _ in range(2):  # on a keep-alive connection, and again on a fresh one
            assert (await client.get("/v1/workflows")).status_code == 200
            refused = await client.post("/v1/runs", content=_padded(3_600_000))
            assert refused.status_code == 413
            assert refused.json()["details"]["maxRequestBodyBytes"] == 2000


@pytest.mark.parametrize("headers", [{}, V2], ids=["v1", "v2"])
def test_discovery_has_an_etag_and_answers_304(host: DemoHost, headers: dict[str, str]) -> None:
    url = f"{host.url}/.well-known/openwop"
    first = httpx.get(url, headers=headers)
    etag = first.headers["etag"]
    assert etag.startswith('"') and first.headers["vary"] == "OpenWOP-Version"
    again = httpx.get(url, headers={**headers, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag
    other = V2 if not headers else {}
    assert httpx.get(url, headers={**other, "If-None-Match": etag}).status_code == 200
