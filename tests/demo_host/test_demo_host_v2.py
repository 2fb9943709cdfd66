"""v2 over real loopback HTTP: the demo host with ``protocol=2`` (a dual-stack host of the overlap)
and the client against both majors.

* the host: one discovery resource in two representations, the version header on every response,
  406 / 400 for majors it does not serve on a path, tenant-bound run ids projected into paths,
  kebab event names, ``event: batch`` frames with ``bufferMs``, registered v2 error codes;
* the client, through ``openwop_tui.__main__.main``: ``run demo.tour`` completes against the host
  at protocol 1 and at protocol 2 and prints the same transcript; resume with ``Last-Event-ID``
  and cancel work on v2; ``--host URL/v1`` works; a wrong key is found at connect.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.wire import V1_TO_V2
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.events import _V2_TO_V1, RunEvent
from openwop_tui.protocol.frames import decode_frame
from openwop_tui.protocol.sse import SSEDecoder, SSEFrame
from openwop_tui.protocol.stream import subscribe

SSE = {"Accept": "text/event-stream"}


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # As in test_cli: no user config, no host from the environment, no sound card.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("OPENWOP_BASE_URL", raising=False)
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.setenv("COLUMNS", "100")


@pytest.fixture(scope="module")
def dual() -> Iterator[DemoHost]:
    with DemoHost(pace=0, protocol=2) as host:
        yield host


def http(host: DemoHost, version: str | None = "2") -> httpx.Client:
    headers = {"Authorization": f"Bearer {host.api_key}"}
    if version is not None:
        headers["OpenWOP-Version"] = version
    return httpx.Client(base_url=host.url, headers=headers, timeout=10)


def create(client: httpx.Client, workflow: str = "conformance-noop", path: str = "/runs") -> Any:
    response = client.post(path, json={"workflowId": workflow, "inputs": {}})
    assert response.status_code == 201, response.text
    return response


# -- the host ----------------------------------------------------------------------------------


def test_the_codemaps_of_host_and_client_agree() -> None:
    # Two copies of spec/v2/event-codemap.json's renamed rows, kept apart on purpose.
    assert {v2: v1 for v1, v2 in V1_TO_V2.items()} == _V2_TO_V1


def test_discovery_is_one_resource_in_two_representations(dual: DemoHost) -> None:
    with httpx.Client(base_url=dual.url, timeout=10) as client:
        plain = client.get("/.well-known/openwop")
        v2 = client.get("/.well-known/openwop", headers={"OpenWOP-Version": "2.0"})
        three = client.get("/.well-known/openwop", headers={"OpenWOP-Version": "3"})
    assert plain.headers["openwop-version"] == "1.0"
    assert plain.json()["protocolVersion"] == "1.0"
    assert plain.json()["protocolVersions"] == ["1.0", "2.0"]
    assert plain.json()["preferredVersion"] == "1.0"  # a 1.x through the overlap
    assert "OpenWOP-Version" in plain.headers["vary"]

    assert v2.headers["openwop-version"] == "2.0"
    root = v2.json()
    assert root["protocolVersions"] == ["1.0", "2.0"]
    # Families are records: presence is the claim, no `supported` flag.
    assert root["supportedEnvelopes"]["kinds"][:4] == [
        "clarification.request",
        "schema.request",
        "schema.response",
        "error",
    ]
    assert root["aiProviders"]["providers"] == ["demo"] and "supported" not in root["aiProviders"]
    assert root["modelCapabilities"]["status"] == "stable"
    assert "supported" not in root["modelCapabilities"]
    assert not [k for k in root if k.startswith("x-")]  # vendor keys live under `extensions`

    assert three.status_code == 406
    assert three.json()["error"] == "protocol_version_unsupported"
    assert three.json()["details"]["protocolVersions"] == ["1.0", "2.0"]


def test_v1_host_is_unchanged() -> None:
    with DemoHost(pace=0) as host, http(host, None) as client:
        found = client.get("/.well-known/openwop")
        assert "openwop-version" not in found.headers
        assert "protocolVersions" not in found.json()
        run = create(client, path="/v1/runs")
        assert "openwop-version" not in run.headers
        assert run.json()["eventsUrl"] == f"/v1/runs/{run.json()['runId']}/events"
        assert client.post("/runs", json={"workflowId": "conformance-noop"}).status_code == 404


def test_v2_runs_are_tenant_bound_and_projected(dual: DemoHost) -> None:
    with http(dual) as client:
        created = create(client)
        body = created.json()
        assert created.headers["openwop-version"] == "2.0"
        assert set(body) == {"runId", "status", "eventsUrl", "statusUrl"}  # closed
        tenant, _, opaque = body["runId"].partition("/")
        assert tenant == "demo" and len(opaque) >= 16
        projected = f"demo~2F{opaque}"
        assert body["eventsUrl"] == f"/runs/{projected}/events"
        assert created.headers["location"] == f"/runs/{projected}"
        snapshot = client.get(f"/runs/{projected}").json()
        assert snapshot["runId"] == body["runId"]
        assert snapshot["owner"]["tenant"] == "demo" and snapshot["eventLogSchemaVersion"] == 3
        # `%2F` is accepted too, and through the overlap the bare v1 id.
        assert client.get(f"/runs/demo%2F{opaque}").status_code == 200
        assert client.get(f"/runs/{opaque}").status_code == 200
        other = client.get(f"/runs/acme~2F{opaque}")
        assert other.status_code == 403 and other.json()["error"] == "id_tenant_mismatch"
        missing = client.get("/runs/demo~2Frun_00000000000000000000")
        assert missing.status_code == 404 and missing.json()["error"] == "not_found"
        assert missing.headers["openwop-version"] == "2.0"
        # The same run under v1: the opaque id, v1 paths.
        with http(dual, None) as v1:
            read = v1.get(f"/v1/runs/{opaque}")
            assert read.json()["runId"] == opaque
            assert read.headers["openwop-version"] == "1.0"


def test_majors_are_checked_on_every_path(dual: DemoHost) -> None:
    with http(dual, "2") as client:
        mismatch = client.get("/v1/runs/x")
        assert (
            mismatch.status_code == 400 and mismatch.json()["error"] == "protocol_version_mismatch"
        )
    with http(dual, "7") as client:
        assert client.get("/runs/x").status_code == 406
    with httpx.Client(base_url=dual.url, headers={"OpenWOP-Version": "2"}) as client:
        unauthenticated = client.get("/runs/x")
        assert unauthenticated.status_code == 401
        assert unauthenticated.json()["error"] == "unauthenticated"


def event_frames(text: str) -> list[SSEFrame]:
    """The frames of a stream that carry data (not the opening ``retry:``)."""
    return [f for f in SSEDecoder().feed(text) if f.data]


def stream_text(client: httpx.Client, path: str, **params: str) -> str:
    with client.stream("GET", path, params=params, headers=SSE) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        return response.read().decode()


def test_v2_events_have_kebab_names_and_bound_run_ids(dual: DemoHost) -> None:
    with http(dual) as client:
        body = create(client, "demo.chat").json()
        text = stream_text(client, body["eventsUrl"], streamMode="debug")
    frames = event_frames(text)
    docs = [json.loads(f.data) for f in frames]
    types = [d["type"] for d in docs]
    assert "agent.reasoning-delta" in types and "agent.reasoning.delta" not in types
    assert all(f.event == d["type"] for f, d in zip(frames, docs, strict=True))
    assert {d["runId"] for d in docs} == {body["runId"]}
    assert all(isinstance(d["schemaVersion"], int) for d in docs)


@pytest.mark.parametrize("mode", ["debug", "updates,messages", "messages"])
def test_buffer_ms_sends_batch_frames_the_client_decodes(dual: DemoHost, mode: str) -> None:
    with http(dual) as client:
        body = create(client, "demo.tour").json()
        url = body["eventsUrl"]
        unbatched = stream_text(client, url, streamMode=mode)
        batched = stream_text(client, url, streamMode=mode, bufferMs="40")
    frames = event_frames(batched)
    assert frames and all(f.event == "batch" for f in frames)
    events: list[RunEvent] = []
    for frame in frames:
        result = decode_frame(frame)
        assert not result.problems
        # A batch's id is its highest sequence, so Last-Event-ID resumes after it.
        assert frame.id == str(result.events[-1].sequence)
        events.extend(result.events)
    plain = [e for f in event_frames(unbatched) for e in decode_frame(f).events]
    assert [e.sequence for e in events] == [e.sequence for e in plain]
    assert [e.type for e in events] == [e.type for e in plain]
    if mode == "debug":
        assert events[-1].type == "run.completed"


def test_a_batch_is_cut_after_a_terminal_event(dual: DemoHost) -> None:
    with http(dual) as client:
        body = create(client).json()
        text = stream_text(client, body["eventsUrl"], streamMode="debug", bufferMs="5000")
    (last,) = event_frames(text)[-1:]
    assert json.loads(last.data)[-1]["type"] == "run.completed"
    with http(dual) as client:
        bad = client.get(body["eventsUrl"], params={"bufferMs": "9000"}, headers=SSE)
        assert bad.status_code == 400 and bad.json()["error"] == "validation_error"


def test_v2_poll_and_cancel(dual: DemoHost) -> None:
    with http(dual) as client:
        body = create(client).json()
        poll = client.get(f"{body['statusUrl']}/events/poll", params={"timeout": "1"}).json()
        assert poll["runId"] == body["runId"] and poll["events"][0]["sequence"] == 0
        stream_text(client, body["eventsUrl"])  # until the end
        again = client.post(f"{body['statusUrl']}/cancel", json={})
        assert again.status_code == 409 and again.json()["error"] == "run_terminal"


# -- the client against both majors -------------------------------------------------------------


def normalised(text: str, host: DemoHost) -> str:
    """Printed output with what differs between two hosts (address, run id) made equal."""
    text = text.replace(host.url, "URL")
    text = re.sub(r"(demo/)?run_[0-9a-f]{20}", "RUN", text)
    text = text.replace("protocol 1.0", "protocol N").replace("protocol 2.0", "protocol N")
    # Durations are the host's real elapsed time (milliseconds, or seconds for a run): they
    # differ between two runs whenever the machine is busy.
    text = re.sub(r"\d+\.\d+ s\b", "N s", text)
    return re.sub(r"\d+ ms", "N ms", text)


def run_tour(protocol: int, capsys: pytest.CaptureFixture[str], suffix: str = "") -> str:
    with DemoHost(pace=0, protocol=protocol, deterministic=True) as host:
        code = main(["run", "demo.tour", "--host", host.url + suffix, "--api-key", host.api_key])
        out, err = capsys.readouterr()
        assert code == 0, err
        # v2 was spoken, not v1 on the bare paths (what a header-less request would get): only
        # v2 names a run by its tenant-bound id.
        assert ("run demo/run_" in out) == (protocol == 2)
        return normalised(out, host)


def test_run_completes_over_both_majors_with_the_same_transcript(
    capsys: pytest.CaptureFixture[str],
) -> None:
    v1 = run_tour(1, capsys)
    v2 = run_tour(2, capsys)
    assert "run completed" in v2 and "fib.py" in v2
    assert v1 == v2
    assert v1.count("\n") > 50


@pytest.mark.parametrize("suffix", ["/v1", "/v1/"])
def test_run_with_a_trailing_v1_on_the_host(
    suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "run completed" in run_tour(2, capsys, suffix)


def test_run_resumes_over_v2_after_dropped_connections(capsys: pytest.CaptureFixture[str]) -> None:
    # Every connection ends mid-frame after 4 events: only Last-Event-ID resumes get it all.
    with DemoHost(pace=0, protocol=2, drop_every=4) as host:
        code = main(["run", "demo.tour", "--host", host.url, "--api-key", host.api_key])
        out, err = capsys.readouterr()
    assert code == 0, err
    # Without Last-Event-ID every reconnect would start again at sequence 0 and die at 4.
    assert "run completed" in out


async def test_subscribe_resumes_after_last_event_id_over_v2(dual: DemoHost) -> None:
    async with HostClient(dual.url, dual.api_key) as client:
        assert (await client.discover()).major == 2
        run = await client.create_run("demo.tour")
        assert run.run_id.startswith("demo/")  # v2's tenant-bound id: v2 was spoken
        everything = [i async for i in subscribe(client, run.run_id, modes="debug")]
        resumed = [i async for i in subscribe(client, run.run_id, modes="debug", last_event_id=5)]
    sequences = [e.sequence for e in everything if isinstance(e, RunEvent)]
    assert [e.sequence for e in resumed if isinstance(e, RunEvent)] == [
        s for s in sequences if s is not None and s > 5
    ]
    assert isinstance(resumed[-1], RunEvent) and resumed[-1].type == "run.completed"


async def test_cancel_over_v2() -> None:
    with DemoHost(pace=1, protocol=2) as host:
        async with HostClient(host.url, host.api_key) as client:
            await client.discover()
            run = await client.create_run("demo.chat", {"messages": []})
            seen: list[RunEvent] = []
            async for item in subscribe(client, run.run_id, modes="debug"):
                if not isinstance(item, RunEvent):
                    continue
                seen.append(item)
                if item.type == "node.started":  # synchronised on an event, not a clock
                    answer = await client.cancel_run(run.run_id, "bored")
                    assert answer == {"runId": run.run_id, "status": "cancelled"}
            assert seen[-1].type == "run.cancelled" and seen[-1].run_id == run.run_id
            assert (await client.get_run(run.run_id))["status"] == "cancelled"
            with pytest.raises(HostError) as caught:
                await client.cancel_run(run.run_id)
            assert caught.value.code == "run_terminal"


@pytest.mark.parametrize("protocol", [1, 2])
async def test_a_wrong_key_is_found_at_connect(protocol: int) -> None:
    with DemoHost(pace=0, protocol=protocol) as host:
        async with HostClient(host.url, "not-the-key") as client:
            with pytest.raises(HostError) as caught:
                await client.discover()
            assert caught.value.status == 401 and "rejected the API key" in caught.value.message
            assert client.discovery is not None and client.discovery.major == protocol
        async with HostClient(host.url, host.api_key) as client:
            await client.discover()  # the right key: nothing said


def test_run_with_a_wrong_key_stops_before_starting_a_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with DemoHost(pace=0, protocol=2) as host:
        assert main(["run", "demo.tour", "--host", host.url, "--api-key", "nope-nope"]) == 2
        out, err = capsys.readouterr()
        with http(host) as client:
            poll = client.get("/runs/demo~2Frun_00000000000000000000")
    assert "rejected the API key" in err and "nope-nope" not in out + err
    assert "run started" not in out
    assert poll.status_code == 404


def test_demo_host_command_takes_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_serve(**options: Any) -> None:
        seen.update(options)

    monkeypatch.setattr("openwop_tui.demo_host.serve_forever", fake_serve)
    assert main(["demo-host", "--protocol", "2"]) == 0
    assert seen["protocol"] == 2
    with pytest.raises(SystemExit):
        main(["demo-host", "--protocol", "3"])
