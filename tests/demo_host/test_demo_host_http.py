"""The demo host's REST surface over real loopback HTTP: discovery, auth, errors, runs, assets."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PIL import Image

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.media import OVERSIZED_BYTES
from openwop_tui.demo_host.workflows import WORKFLOWS

WORKFLOWS_MESSAGE = (
    "available: "
    + ", ".join(w for w in WORKFLOWS if not w.startswith("bench."))
    + f" (and {sum(w.startswith('bench.') for w in WORKFLOWS)} benchmark workflows, bench.*)"
)


@pytest.fixture
def anonymous(host: DemoHost) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=host.url, timeout=10) as c:
        yield c


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == code
    assert set(body) <= {"error", "message", "details"}
    assert isinstance(body["message"], str) and body["message"]
    return body


def run_to_end(client: httpx.Client, workflow: str, **inputs: Any) -> list[dict[str, Any]]:
    """Create a run and long-poll until it is terminal; return every event."""
    created = client.post("/v1/runs", json={"workflowId": workflow, "inputs": inputs})
    assert created.status_code == 201, created.text
    run_id = created.json()["runId"]
    events: list[dict[str, Any]] = []
    after = -1
    while True:
        page = client.get(
            f"/v1/runs/{run_id}/events/poll", params={"afterSequence": after, "timeout": 5}
        ).json()
        events += page["events"]
        after = page["lastSequence"]
        if page["isTerminal"]:
            return events


def envelopes(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """nodeId → envelope, from node.completed outputs."""
    return {
        e["payload"]["nodeId"]: e["payload"]["outputs"]["envelope"]
        for e in events
        if e["type"] == "node.completed" and "envelope" in e["payload"].get("outputs", {})
    }


def test_discovery_is_public_and_complete(anonymous: httpx.Client) -> None:
    response = anonymous.get("/.well-known/openwop")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "public, max-age=300"
    doc = response.json()
    assert doc["protocolVersion"] == "1.0"
    assert doc["implementation"]["name"] == "openwop-tui demo host"
    assert {"version", "vendor"} <= set(doc["implementation"])
    assert set(doc["supportedEnvelopes"]) >= {
        "clarification.request", "schema.request", "schema.response", "error",
        "media.image", "media.audio", "media.file",
    }  # fmt: skip
    assert set(doc["schemaVersions"]) == set(doc["supportedEnvelopes"])
    assert {"clarificationRounds", "schemaRounds", "envelopesPerTurn"} <= set(doc["limits"])
    assert doc["aiProviders"]["supported"] == ["demo"]
    assert doc["aiProviders"]["maxInlineMediaBytes"] == 262144
    assert doc["modelCapabilities"] == {
        "supported": True,
        "advertised": ["image-output", "audio-output", "vision-input", "audio-input"],
        "substitutionSupported": False,
    }
    assert doc["supportedTransports"] == ["rest"]


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-key", "Basic b3BlbndvcA=="])
def test_v1_routes_need_the_key(anonymous: httpx.Client, authorization: str | None) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    response = anonymous.post("/v1/runs", json={"workflowId": "demo.chat"}, headers=headers)
    assert_error(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert_error(anonymous.get("/v1/runs/run_x", headers=headers), 401, "unauthorized")


def test_unknown_workflow_is_404_with_the_list(client: httpx.Client) -> None:
    body = assert_error(
        client.post("/v1/runs", json={"workflowId": "x"}), 404, "workflow_not_found"
    )
    assert body["message"] == f"no workflow 'x' on this host; {WORKFLOWS_MESSAGE}"
    # The benchmarks' workflows are counted, not offered to someone who mistyped one.
    assert "bench.flood" not in body["message"] and "demo.chat" in body["message"]


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[1, 2]", b"", b'{"inputs": {}}', b'{"workflowId": "demo.chat", "inputs": 3}'],
)
def test_bad_create_bodies_are_validation_errors(client: httpx.Client, content: bytes) -> None:
    response = client.post(
        "/v1/runs", content=content, headers={"Content-Type": "application/json"}
    )
    assert_error(response, 400, "validation_error")


def test_create_snapshot_and_poll(client: httpx.Client) -> None:
    created = client.post("/v1/runs", json={"workflowId": "conformance-noop"})
    assert created.status_code == 201
    body = created.json()
    run_id = body["runId"]
    assert body["status"] == "running"
    assert body["workflowId"] == "conformance-noop"
    assert body["eventsUrl"] == f"/v1/runs/{run_id}/events"
    assert body["statusUrl"] == f"/v1/runs/{run_id}"
    assert body["startedAt"].endswith("Z")

    page = client.get(f"/v1/runs/{run_id}/events/poll", params={"timeout": 5}).json()
    events = page["events"]
    while not page["isTerminal"]:
        page = client.get(
            f"/v1/runs/{run_id}/events/poll",
            params={"afterSequence": page["lastSequence"], "timeout": 5},
        ).json()
        events += page["events"]
    assert [e["type"] for e in events] == [
        "run.started", "node.started", "node.completed", "run.completed",
    ]  # fmt: skip
    assert [e["sequence"] for e in events] == [0, 1, 2, 3]
    assert page["status"] == "completed" and page["lastSequence"] == 3
    for event in events:
        assert event["runId"] == run_id and event["schemaVersion"] == 1
        assert event["timestamp"].endswith("Z") and event["eventId"]

    # Polling past the end of a finished run answers at once, with nothing.
    again = client.get(
        f"/v1/runs/{run_id}/events/poll", params={"afterSequence": 3, "timeout": 60}
    ).json()
    assert again["events"] == [] and again["isTerminal"] is True

    snapshot = client.get(f"/v1/runs/{run_id}").json()
    assert snapshot["status"] == "completed" and snapshot["completedAt"].endswith("Z")
    assert snapshot["workflowId"] == "conformance-noop"

    # Cancel after the end is a conflict.
    body = assert_error(client.post(f"/v1/runs/{run_id}/cancel", json={}), 409, "run_terminal")
    assert body["details"] == {"runStatus": "completed"}


def test_events_without_sse_accept_are_json(client: httpx.Client) -> None:
    events = run_to_end(client, "conformance-noop")
    run_id = events[0]["runId"]
    listed = client.get(f"/v1/runs/{run_id}/events", params={"streamMode": "debug"}).json()
    assert listed["events"] == events
    updates = client.get(f"/v1/runs/{run_id}/events").json()["events"]
    assert [e["type"] for e in updates] == [
        "run.started", "node.started", "node.completed", "run.completed"
    ]  # fmt: skip


def test_unknown_runs_and_routes(client: httpx.Client) -> None:
    assert_error(client.get("/v1/runs/run_nope"), 404, "run_not_found")
    assert_error(client.get("/v1/runs/run_nope/events"), 404, "run_not_found")
    assert_error(client.post("/v1/runs/run_nope/cancel"), 404, "run_not_found")
    assert_error(client.get("/v1/nothing-here"), 404, "not_found")
    assert_error(client.delete("/v1/runs"), 405, "method_not_allowed")


def test_v2_header_on_a_v1_path_is_refused(client: httpx.Client) -> None:
    response = client.get("/v1/runs/run_x", headers={"OpenWOP-Version": "2"})
    assert_error(response, 400, "protocol_version_mismatch")


def test_idempotency_replay_and_mismatch(client: httpx.Client) -> None:
    key = {"Idempotency-Key": "send-0001"}
    body = {"workflowId": "conformance-noop", "inputs": {"n": 1}}
    first = client.post("/v1/runs", json=body, headers=key)
    second = client.post("/v1/runs", json=body, headers=key)
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers["openwop-idempotent-replay"] == "true"

    other = client.post("/v1/runs", json={**body, "inputs": {"n": 2}}, headers=key)
    assert_error(other, 409, "idempotency_key_mismatch")
    fresh = client.post("/v1/runs", json=body, headers={"Idempotency-Key": "send-0002"})
    assert fresh.json()["runId"] != first.json()["runId"]


def test_assets_are_served_by_token_without_auth(
    client: httpx.Client, anonymous: httpx.Client, host: DemoHost
) -> None:
    found = envelopes(run_to_end(client, "demo.tour"))

    chart = found["chart"]["payload"]
    assert chart["url"].startswith(host.url + "/v1/host/openwop-tui-demo/assets/")
    response = anonymous.get(chart["url"])
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "private, max-age=300"
    assert len(response.content) == chart["bytes"]
    assert Image.open(io.BytesIO(response.content)).size == (480, 300)

    for node, mime in [("speech", "audio/ogg"), ("report", "text/csv"), ("undecodable", None)]:
        payload = found[node]["payload"]
        assert payload["url"].startswith(host.url + "/v1/host/openwop-tui-demo/assets/")
        fetched = anonymous.get(payload["url"])
        assert fetched.status_code == 200
        assert fetched.headers["content-type"] == (mime or payload["mimeType"])
        assert len(fetched.content) == payload["bytes"]

    missing = found["missing-audio"]["payload"]["url"]
    assert anonymous.get(missing).json() == {"error": "not_found", "message": "no such asset"}
    assert anonymous.get(missing).status_code == 404
    assert anonymous.get("/v1/host/openwop-tui-demo/assets/not-a-token").status_code == 404


def test_oversized_asset_really_is_that_big(client: httpx.Client, anonymous: httpx.Client) -> None:
    payload = envelopes(run_to_end(client, "demo.tour"))["oversized"]["payload"]
    assert payload["bytes"] == OVERSIZED_BYTES == 48 * 1024 * 1024

    head = anonymous.head(payload["url"])
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == OVERSIZED_BYTES

    # Read the first piece, then walk away: the host must shrug off the broken pipe.
    with anonymous.stream("GET", payload["url"]) as response:
        assert int(response.headers["content-length"]) == OVERSIZED_BYTES
        first = next(response.iter_raw())
        assert first.startswith(b"\x89PNG\r\n\x1a\n")
    assert anonymous.get("/.well-known/openwop").status_code == 200
