"""The client speaking v2 over HTTP (protocol.md §1.3-§1.4, spec/v2/core/*.md), on a MockTransport:
the version header on every call, bare paths, tenant-bound run ids projected into one path
segment, the v2 poll cursor, v2 error envelopes, kebab names and batch frames; plus the host URL
with a trailing ``/v1`` and the API key checked at connect."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from client_support import BASE, KEY, make_client

from openwop_tui.protocol.client import HostError
from openwop_tui.protocol.events import _V2_TO_V1, canonical_type
from openwop_tui.protocol.ids import path_segment, project_id
from openwop_tui.protocol.stream import subscribe

RUN = "acme/r-9f3c0000000000000"
PROJECTED = "acme~2Fr-9f3c0000000000000"


def v2_root(**families: Any) -> dict[str, Any]:
    """A closed v2 discovery root of a host in the overlap (1.x preferred, 2.0 served)."""
    return {
        "protocolVersion": "1.4",
        "protocolVersions": ["1.4", "2.0"],
        "preferredVersion": "1.4",
        "implementation": {"name": "v2-host", "version": "2.1.0"},
        **families,
    }


class V2Host:
    """A v2 host on a MockTransport that records every request and answers the run routes."""

    def __init__(self, **families: Any) -> None:
        self.seen: list[httpx.Request] = []
        self.families = families
        self.probe_status = 404

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        path = request.url.raw_path.decode().partition("?")[0]
        headers = {"OpenWOP-Version": "2.0"}
        if path == "/.well-known/openwop":
            return httpx.Response(200, json=v2_root(**self.families), headers=headers)
        if path == "/runs" and request.method == "POST":
            body = {"runId": RUN, "status": "pending", "eventsUrl": f"/runs/{PROJECTED}/events"}
            return httpx.Response(201, json=body, headers=headers)
        if path == f"/runs/{PROJECTED}/events":
            return httpx.Response(200, text=BATCHED, headers={**headers, **SSE})
        if path == f"/runs/{PROJECTED}/events/poll":
            body = {"runId": RUN, "events": [], "lastSequence": 2, "status": "running"}
            return httpx.Response(200, json={**body, "isTerminal": False}, headers=headers)
        if path.startswith(f"/runs/{PROJECTED}"):
            return httpx.Response(200, json={"runId": RUN, "status": "cancelled"}, headers=headers)
        if path.startswith("/runs"):  # the key check
            error = {"error": "not_found", "message": "no such run"}
            return httpx.Response(self.probe_status, json=error, headers=headers)
        return httpx.Response(404, json={"error": "not_found", "message": path}, headers=headers)

    def after_discovery(self) -> list[httpx.Request]:
        return [r for r in self.seen if r.url.path != "/.well-known/openwop"]


SSE = {"Content-Type": "text/event-stream"}


def doc(seq: int, type_: str, **payload: Any) -> dict[str, Any]:
    return {
        "eventId": f"evt-{seq:016d}",
        "runId": RUN,
        "type": type_,
        "payload": payload,
        "timestamp": "2026-01-01T00:00:00Z",
        "sequence": seq,
        "schemaVersion": 1,
    }


#: A v2 stream: one unbatched frame with a kebab name, then a batch with its highest id, then a
#: one-element batch with no id at all (both allowed, spec/v2/core/events.md §SSE frames).
BATCHED = (
    f"id: 0\nevent: run.started\ndata: {json.dumps(doc(0, 'run.started', workflowId='w'))}\n\n"
    "id: 2\nevent: batch\ndata: "
    + json.dumps(
        [
            doc(1, "agent.tool-called", agentId="a", toolName="t", callId="c"),
            doc(2, "agent.reasoning-delta", agentId="a", delta="hm", sequence=0),
        ]
    )
    + "\n\nevent: batch\ndata: "
    + json.dumps([doc(3, "run.completed", outputs={})])
    + "\n\n"
)


def test_projection_follows_rfc_0184() -> None:
    assert project_id("acme/r-9f3c") == "acme~2Fr-9f3c"
    assert project_id("anon:t/x_y.z-1") == "anon~3At~2Fx_y.z-1"
    # `~` is projected too, so the projection happens exactly once and cannot be confused.
    assert project_id("a~2Fb/c") == "a~7E2Fb~2Fc"
    assert project_id("t/é") == "t~2F~C3~A9"
    assert path_segment("t/a~b", major=2, tenant_bound=True) == "t~2Fa~7Eb"
    # v1 ids and other segments are percent-encoded; a `/` there is refused (a host that
    # decodes %2F before routing would split the id: tests/protocol/test_path_ids.py).
    assert path_segment("a b", major=1, tenant_bound=True) == "a%20b"
    assert path_segment("node:1", major=2) == "node%3A1"


async def test_every_call_after_v2_negotiation_has_the_header_and_a_bare_path() -> None:
    host = V2Host()
    async with make_client(host) as client:
        found = await client.discover()
        assert found.major == client.major == 2
        # The version spoken, not the overlap's header-less 1.x default.
        assert found.protocol_version == "2.0"
        run = await client.create_run("chat")
        assert run.run_id == RUN
        await client.get_run(run.run_id)
        await client.poll_events(run.run_id, None, timeout=1)
        await client.resolve_interrupt(run.run_id, "ask:1", {"answers": []})
        events = [item async for item in subscribe(client, run.run_id)]
        await client.cancel_run(run.run_id)
    calls = host.after_discovery()
    assert len(calls) >= 7
    for request in calls:
        assert request.headers["openwop-version"] == "2", request.url
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert not request.url.path.startswith("/v1"), request.url
    paths = [r.url.raw_path.decode().partition("?")[0] for r in calls]
    assert "/runs" in paths
    assert f"/runs/{PROJECTED}" in paths
    assert f"/runs/{PROJECTED}/interrupts/ask%3A1" in paths  # a node id: percent-encoded
    assert f"/runs/{PROJECTED}/cancel" in paths
    # Kebab names and batch frames, decoded into the v1 names the fold uses.
    types = [e.type for e in events if hasattr(e, "type")]
    assert types == ["run.started", "agent.toolCalled", "agent.reasoning.delta", "run.completed"]


async def test_v2_poll_sends_after_sequence_only() -> None:
    host = V2Host()
    async with make_client(host) as client:
        await client.discover()
        await client.poll_events(RUN, None, timeout=1)
        await client.poll_events(RUN, 4, timeout=1)
    first, second = host.after_discovery()[-2:]
    # Omitted means "from the first event"; -1 is not a v2 value, lastSequence not a parameter.
    assert "afterSequence" not in first.url.params
    assert second.url.params["afterSequence"] == "4"
    assert "lastSequence" not in first.url.params and "lastSequence" not in second.url.params


async def test_v1_poll_keeps_both_cursor_names() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"runId": "r", "events": []})

    async with make_client(handler) as client:
        await client.poll_events("r", None, timeout=1)
    assert seen[0].url.params["afterSequence"] == seen[0].url.params["lastSequence"] == "-1"
    assert "openwop-version" not in seen[0].headers


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (404, "not_found", "Not found: the host could not start workflow 'chat'"),
        (403, "id_tenant_mismatch", "belongs to another tenant"),
        (400, "protocol_version_mismatch", "refused the protocol version"),
        (409, "run_terminal", "already finished"),
    ],
)
async def test_v2_error_envelopes_become_sentences(status: int, code: str, expected: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(200, json=v2_root(), headers={"OpenWOP-Version": "2.0"})
        body = {"error": code, "message": "the host's words", "details": {"k": 1}}
        return httpx.Response(status, json=body, headers={"OpenWOP-Version": "2.0"})

    async with make_client(handler) as client:
        await client.discover(verify_key=False)
        with pytest.raises(HostError) as caught:
            await client.create_run("chat")
    assert expected in caught.value.message
    assert "the host's words" in caught.value.message
    assert caught.value.code == code and caught.value.status == status
    assert caught.value.details == {"k": 1}


def test_every_renamed_codemap_row_maps_back() -> None:
    # spec/v2/event-codemap.json v2.0 counts 36 renamed rows; a few of each kind of rename.
    assert len(_V2_TO_V1) == 36
    assert canonical_type("dispatch.fanned-out") == "core.dispatch.fanOut"
    assert canonical_type("orchestrator.decided") == "runOrchestrator.decided"
    assert canonical_type("voice.barge-in") == "voice.barge_in"
    assert canonical_type("trigger.subscription-state-changed") == (
        "trigger.subscription.state.changed"
    )
    assert canonical_type("run.started") == "run.started"
    assert canonical_type("acme.something-new") == "acme.something-new"


# -- the host URL with a trailing /v1 ---------------------------------------------------------


@pytest.mark.parametrize("suffix", ["/v1", "/v1/", "/V1"])
async def test_a_trailing_v1_on_the_host_url_is_dropped(suffix: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(200, json={"protocolVersion": "1.0"})
        return httpx.Response(201, json={"runId": "r1", "status": "running"})

    async with make_client(handler, base=BASE + suffix) as client:
        await client.discover()
        await client.create_run("w")
        assert client.base_url == BASE
    assert seen[0].url.path == "/.well-known/openwop"
    assert seen[-1].url.path == "/v1/runs"


async def test_discovery_errors_name_the_url_fetched() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(404, text="nope")

    async with make_client(handler, base="http://user:pw@127.0.0.1:8765/api/v1") as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    fetched = "http://127.0.0.1:8765/api/.well-known/openwop"
    assert str(seen[0].url).endswith("127.0.0.1:8765/api/.well-known/openwop")
    assert fetched in caught.value.message
    assert "pw" not in caught.value.message


# -- the API key, checked at connect ----------------------------------------------------------


def v1_host(probe: httpx.Response | Exception) -> tuple[list[httpx.Request], Any]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/.well-known/openwop":
            return httpx.Response(200, json={"protocolVersion": "1.0"})
        if isinstance(probe, Exception):
            raise probe
        return probe

    return seen, handler


async def test_a_rejected_key_is_found_at_connect() -> None:
    error = {"error": "unauthorized", "message": "bad key"}
    seen, handler = v1_host(httpx.Response(401, json=error))
    async with make_client(handler) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
        assert client.discovery is not None  # what discovery said is kept
    assert caught.value.status == 401
    assert "rejected the API key" in caught.value.message
    probe = seen[-1]
    assert probe.method == "GET" and probe.url.path.startswith("/v1/runs/")
    assert probe.headers["authorization"] == f"Bearer {KEY}"
    # Discovery itself never carries the key.
    assert "authorization" not in seen[0].headers


async def test_a_missing_key_is_found_at_connect() -> None:
    _, handler = v1_host(httpx.Response(401, json={"error": "unauthorized"}))
    async with make_client(handler, api_key=None) as client:
        with pytest.raises(HostError, match="needs an API key"):
            await client.discover()


@pytest.mark.parametrize(
    "probe",
    [
        httpx.Response(404, json={"error": "run_not_found"}),
        # A 403 for a run id: the host may refuse runs it will not say exist, whatever the key.
        httpx.Response(403, json={"error": "run_forbidden"}),
        httpx.Response(500, text="oops"),
        httpx.Response(200, json={"runId": "x"}),
        httpx.ConnectError("reset"),
    ],
)
async def test_an_accepted_or_unknowable_key_says_nothing(
    probe: httpx.Response | Exception,
) -> None:
    _, handler = v1_host(probe)
    async with make_client(handler) as client:
        found = await client.discover()
    assert found.protocol_version == "1.0"


async def test_v2_with_run_list_checks_the_key_on_the_list() -> None:
    host = V2Host(runList={"status": "stable", "since": "2.0"})
    host.probe_status = 403
    async with make_client(host) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    (probe,) = host.after_discovery()
    assert probe.url.path == "/runs" and probe.headers["openwop-version"] == "2"
    assert caught.value.status == 403 and "scope" in caught.value.message
