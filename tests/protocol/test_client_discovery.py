"""`HostClient.discover`: the captured documents of every reference host, root families vs the
legacy ``capabilities`` wrapper, v1 vs v2 (from the document and the response header), the retry
without a version header, and what is not a discovery document.
"""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
from client_support import BASE, KEY, answer, make_client, wellknown

from openwop_tui.protocol.client import HostError


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
    create = seen[-1]
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
    assert seen[-1].url.path == "/v1/runs/r"
    assert "openwop-version" not in seen[-1].headers


async def test_discovery_retries_without_version_header_on_400() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if "openwop-version" in request.headers:
            return httpx.Response(400, json={"error": "protocol_version_mismatch", "message": "no"})
        return httpx.Response(200, json=wellknown("inmem"))

    async with make_client(handler) as client:
        found = await client.discover(verify_key=False)
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


async def test_discovery_document_is_not_mutated() -> None:
    doc = wellknown("sqlite")
    before = copy.deepcopy(doc)
    async with make_client(answer(200, doc)) as client:
        await client.discover()
    assert doc == before
