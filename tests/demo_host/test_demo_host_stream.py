"""The demo host's event streams over real loopback HTTP: SSE framing, stream modes, resume,
cancel, keep-alive, and what the tour and the chat workflow put on the wire."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import canonical_type, normalize

SSE = {"Accept": "text/event-stream"}
TOUR_NODES = [
    "intro", "code", "card", "status", "chart", "badge", "speech", "report", "hologram", "raw",
    "oversized", "undecodable", "missing-audio", "unsafe-url", "bitmap", "animated",
    "huge-pixels", "private-url", "no-media",
]  # fmt: skip


@dataclass
class Frame:
    id: int
    event: str
    data: Any


def frames_from_lines(lines: Iterator[str]) -> Iterator[Frame | str]:
    """A minimal SSE reader: yields frames, and comment / ``retry:`` lines as strings."""
    fields: dict[str, str] = {}
    for line in lines:
        if line.startswith(":") or line.startswith("retry:"):
            yield line
        elif line:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
        elif "data" in fields:
            yield Frame(int(fields["id"]), fields["event"], json.loads(fields["data"]))
            fields = {}


@pytest.fixture(scope="module", params=[1, 2], ids=["v1", "v2"])
def host(request: pytest.FixtureRequest) -> Iterator[DemoHost]:
    """The demo host at each protocol major: v1 only, and dual-stack spoken as v2."""
    with DemoHost(pace=0, protocol=request.param) as running:
        yield running


def client_for(host: DemoHost) -> httpx.Client:
    """A client of the host's highest major: `/v1/…`, or the bare paths with the v2 header."""
    headers = {"Authorization": f"Bearer {host.api_key}"}
    if host.protocol == 2:
        headers["OpenWOP-Version"] = "2"
    base = host.url + ("/v1" if host.protocol == 1 else "")
    return httpx.Client(base_url=base, headers=headers, timeout=10)


def seg(run_id: str) -> str:
    """A run id as one path segment (v2 ids are `<tenant>/<opaque>`: RFC 0184 projection)."""
    return run_id.replace("/", "~2F")


@pytest.fixture
def client(host: DemoHost) -> Iterator[httpx.Client]:
    with client_for(host) as c:
        yield c


def start(client: httpx.Client, workflow: str, text: str | None = None) -> str:
    inputs = {"messages": [{"role": "user", "content": text}]} if text is not None else {}
    response = client.post("/runs", json={"workflowId": workflow, "inputs": inputs})
    assert response.status_code == 201, response.text
    run_id: str = response.json()["runId"]
    return seg(run_id)


def stream(
    client: httpx.Client, run_id: str, mode: str | None = None, after: int | None = None
) -> tuple[list[str], list[Frame]]:
    """Read a whole stream (the host closes it after the terminal event)."""
    headers = dict(SSE)
    if after is not None:
        headers["Last-Event-ID"] = str(after)
    params = {"streamMode": mode} if mode else {}
    with client.stream("GET", f"/runs/{run_id}/events", params=params, headers=headers) as r:
        assert r.status_code == 200
        assert r.headers["content-type"] == "text/event-stream"
        assert r.headers["cache-control"] == "no-cache"
        items = list(frames_from_lines(r.iter_lines()))
    return [i for i in items if isinstance(i, str)], [i for i in items if isinstance(i, Frame)]


def completed(frames: list[Frame]) -> dict[str, dict[str, Any]]:
    return {f.data["nodeId"]: f.data for f in frames if f.data["type"] == "node.completed"}


def test_tour_in_debug_mode_has_every_item(client: httpx.Client, host: DemoHost) -> None:
    run_id = start(client, "demo.tour")
    lines, frames = stream(client, run_id, "debug")
    assert lines[0] == "retry: 2000"
    assert [f.id for f in frames] == list(range(len(frames)))
    assert all(f.event == f.data["type"] and f.data["sequence"] == f.id for f in frames)
    assert frames[0].event == "run.started" and frames[-1].event == "run.completed"
    assert frames[0].data["payload"]["workflowId"] == "demo.tour"

    started = [f.data["nodeId"] for f in frames if f.event == "node.started"]
    assert started == TOUR_NODES
    done = completed(frames)
    assert list(done) == TOUR_NODES

    intro = done["intro"]["payload"]["outputs"]
    chunks = [f.data["payload"] for f in frames if f.event == "output.chunk"]
    assert "".join(c["chunk"] for c in chunks) == intro["completion"]
    assert intro["rendering"] == {"display": "markdown"}
    assert chunks[0]["meta"]["model"] == "demo-1"
    assert chunks[-1]["isLast"] and chunks[-1]["meta"]["finishReason"] == "stop"
    assert "usage" in chunks[-1]["meta"]

    envelopes = {n: d["payload"]["outputs"]["envelope"] for n, d in done.items() if n != "intro"}
    for node, envelope in envelopes.items():
        assert envelope["correlationId"] == f"{run_id.split('~2F')[-1]}:{node}:0"
        assert done[node]["causationId"] == envelope["correlationId"]
        assert envelope["meta"]["source"] == "ai-generation" and envelope["meta"]["ts"]
        assert envelope["envelopeId"] and envelope["nodeId"] == node
    # The envelope's own hint, else the one lifted beside it (`outputs.rendering`): an unknown
    # display cannot sit in `meta.rendering`, whose schema closes the enum.
    displays = {
        n: (e["meta"].get("rendering") or done[n]["payload"]["outputs"].get("rendering") or {}).get(
            "display"
        )
        for n, e in envelopes.items()
    }
    assert "rendering" not in envelopes["hologram"]["meta"]
    assert displays == {
        "code": "code", "card": "card", "status": "card", "chart": "image", "badge": "image",
        "speech": "audio", "report": "file", "hologram": "hologram", "raw": None,
        "oversized": "image", "undecodable": "image", "missing-audio": "audio",
        "unsafe-url": "image", "bitmap": "image", "animated": "image", "huge-pixels": "image",
        "private-url": "image", "no-media": "image",
    }  # fmt: skip
    assert envelopes["code"]["meta"]["rendering"] == {
        "display": "code", "lang": "python", "title": "fib.py",
    }  # fmt: skip
    assert "def fib" in done["code"]["payload"]["outputs"]["completion"]
    assert "completion" in done["card"]["payload"]["outputs"]
    assert "completion" not in done["status"]["payload"]["outputs"]
    assert isinstance(envelopes["status"]["payload"], dict)
    assert "completion" not in done["raw"]["payload"]["outputs"]

    media = {n: e["payload"] for n, e in envelopes.items() if e["type"].startswith("media.")}
    assert set(media) == {
        "chart", "badge", "speech", "report", "oversized", "undecodable", "missing-audio",
        "unsafe-url", "bitmap", "animated", "huge-pixels", "private-url",
    }  # fmt: skip
    assert media["chart"]["url"].startswith(host.url + "/v1/host/openwop-tui-demo/assets/")
    assert "url" not in media["badge"] and media["badge"]["bytes"] < 262144
    assert media["speech"]["durationSeconds"] > 4 and media["speech"]["mimeType"] == "audio/ogg"
    assert media["report"]["name"] == "tour-report.csv"
    assert media["oversized"]["bytes"] == 48 * 1024 * 1024
    assert media["unsafe-url"]["url"] == "file:///etc/passwd"
    assert media["private-url"]["url"].startswith("http://10.")
    assert media["bitmap"]["mimeType"] == "image/bmp"
    assert media["animated"]["mimeType"] == "image/gif"
    assert media["huge-pixels"]["bytes"] < 64 * 1024  # small to fetch, too many pixels to decode
    assert "url" not in envelopes["no-media"]["payload"]
    # Every asset URL is absolute on the host's own origin (`format: uri` in the schema).
    own = [n for n, p in media.items() if p.get("url", "").startswith(host.url + "/v1/host/")]
    assert len(own) >= 9
    for node, payload in media.items():
        assert isinstance(payload["bytes"], int) and payload["mimeType"]
        rendering = envelopes[node]["meta"]["rendering"]
        assert rendering["alt"] and rendering["mimeType"] == payload["mimeType"]

    artifacts = [f.data for f in frames if f.event == "artifact.created"]
    assert len(artifacts) == 1 and artifacts[0]["payload"]["nodeId"] == "report"


def test_tour_is_what_the_client_model_extracts(client: httpx.Client) -> None:
    _, frames = stream(client, start(client, "demo.tour"), "debug")
    found = [
        envelope
        for f in frames
        for envelope in extract_envelopes(normalize(f.data, frame_event=f.event))
    ]
    assert [e.node_id for e in found] == TOUR_NODES[1:]
    by_node = {e.node_id: e for e in found}
    assert by_node["chart"].media is not None and by_node["chart"].media.url
    assert by_node["badge"].media is not None and by_node["badge"].media.base64
    assert by_node["speech"].display == "audio"
    assert by_node["hologram"].display == "hologram" and by_node["hologram"].text
    assert by_node["raw"].display is None


def test_default_mode_is_updates(client: httpx.Client) -> None:
    _, frames = stream(client, start(client, "demo.chat", "code please"))
    types = {f.data["type"] for f in frames}
    assert {"run.started", "node.completed", "run.completed"} <= types
    types = {canonical_type(t) for t in types}
    # node.started is in: the Python and SQLite reference hosts send it in `updates`.
    assert "node.started" in types
    assert not types & {"output.chunk", "agent.reasoning.delta", "agent.reasoned"}
    assert all(f.event == f.data["type"] for f in frames)
    ids = [f.id for f in frames]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_messages_mode_sends_bare_chunks(client: httpx.Client) -> None:
    run_id = start(client, "demo.tour")
    _, frames = stream(client, run_id, "messages")
    assert frames and all(f.event == "ai.message.chunk" for f in frames)
    for f in frames:
        assert set(f.data) <= {"nodeId", "runId", "chunk", "isLast", "meta"}
        assert {"nodeId", "runId", "chunk", "isLast"} <= set(f.data)
    assert frames[-1].data["isLast"] is True
    _, debug = stream(client, run_id, "debug")
    intro = completed(debug)["intro"]["payload"]["outputs"]["completion"]
    assert "".join(f.data["chunk"] for f in frames) == intro


def test_mixed_modes_label_the_admitting_mode(client: httpx.Client) -> None:
    run_id = start(client, "demo.chat", "a card")
    _, frames = stream(client, run_id, "updates,messages")
    labels = {f.data["type"]: f.event for f in frames}
    assert labels["output.chunk"] == "messages"
    assert labels["run.started"] == labels["node.completed"] == labels["run.completed"] == "updates"
    assert labels["node.started"] == "updates"
    assert "agent.reasoned" not in labels
    assert all("eventId" in f.data for f in frames)  # full RunEventDocs, not bare chunks

    _, frames = stream(client, run_id, "debug,updates")
    labels = {f.data["type"]: f.event for f in frames}
    assert labels["run.started"] == labels["node.started"] == "updates"
    assert labels["agent.reasoned"] == "debug"


@pytest.mark.parametrize("mode", ["values", "updates,bogus", "updates,"])
def test_unknown_stream_mode_is_400(client: httpx.Client, mode: str) -> None:
    run_id = start(client, "conformance-noop")
    response = client.get(f"/runs/{run_id}/events", params={"streamMode": mode}, headers=SSE)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "unsupported_stream_mode"
    assert body["details"] == {"supported": ["updates", "messages", "debug"]}


def test_last_event_id_resumes_after_that_sequence(client: httpx.Client) -> None:
    run_id = start(client, "demo.chat", "an image")
    _, everything = stream(client, run_id, "debug")
    _, resumed = stream(client, run_id, "debug", after=5)
    assert [f.id for f in resumed] == [f.id for f in everything if f.id > 5]
    _, none = stream(client, run_id, "debug", after=everything[-1].id)
    assert none == []


def test_chat_keywords_choose_the_envelopes(client: httpx.Client) -> None:
    _, frames = stream(client, start(client, "demo.chat", "Some CODE, a card and JSON"), "debug")
    assert list(completed(frames)) == [
        "think",
        "reply",
        "code",
        "card",
        "status",
        "hologram",
        "raw",
    ]
    types = [canonical_type(f.data["type"]) for f in frames]
    assert types.count("agent.reasoning.delta") >= 3 and "agent.reasoned" in types
    assert "agent.toolCalled" in types and "agent.toolReturned" in types

    _, frames = stream(client, start(client, "demo.chat", "hello there, small call"), "debug")
    done = completed(frames)
    assert list(done) == ["think", "reply"]
    reply = done["reply"]["payload"]["outputs"]["completion"]
    assert "> hello there, small call" in reply and "`everything`" in reply
    assert frames[-1].data["payload"]["outputs"]["completion"] == reply

    _, frames = stream(client, start(client, "demo.chat", "show me everything"), "debug")
    assert list(completed(frames))[2:] == TOUR_NODES[1:]


def test_chat_fail_fails_the_run(client: httpx.Client) -> None:
    run_id = start(client, "demo.chat", "please fail")
    _, frames = stream(client, run_id, "updates")
    failed = [f.data for f in frames if f.data["type"] == "node.failed"]
    assert failed[0]["payload"]["error"]["code"] == "demo_failure"
    assert frames[-1].data["type"] == "run.failed"
    assert frames[-1].data["payload"]["error"]["code"] == "demo_failure"
    snapshot = client.get(f"/runs/{run_id}").json()
    assert snapshot["status"] == "failed" and snapshot["error"]["code"] == "demo_failure"


def test_cancel_a_paced_run_mid_stream() -> None:
    with DemoHost(pace=1) as host, client_for(host) as client:
        run_id = start(client, "demo.chat", "something slow")
        seen: list[Frame] = []
        cancelled = False
        url = f"/runs/{run_id}/events"
        with client.stream("GET", url, params={"streamMode": "debug"}, headers=SSE) as r:
            for item in frames_from_lines(r.iter_lines()):
                if not isinstance(item, Frame):
                    continue
                seen.append(item)
                # Cancel as soon as the slow reply starts streaming: synchronised on events.
                if item.event == "output.chunk" and not cancelled:
                    cancelled = True
                    answer = client.post(f"/runs/{run_id}/cancel", json={"reason": "bored"})
                    assert answer.json() == {"runId": run_id, "status": "cancelled"}
        # The stream ended by itself, right after run.cancelled.
        assert seen[-1].event == "run.cancelled"
        assert seen[-1].data["payload"]["reason"] == "bored"
        assert seen[-1].data["payload"]["cancelledBy"] == "api"
        assert sum(f.event == "output.chunk" for f in seen) < 5
        assert client.get(f"/runs/{run_id}").json()["status"] == "cancelled"
        again = client.post(f"/runs/{run_id}/cancel")
        assert again.status_code == 409 and again.json()["error"] == "run_terminal"


def test_keepalive_comments_fill_silence() -> None:
    with DemoHost(pace=1, keepalive=0.05) as host, client_for(host) as client:
        run_id = start(client, "demo.chat", "slow")
        url = f"/runs/{run_id}/events"
        with client.stream("GET", url, headers=SSE) as r:  # updates: long quiet stretches
            items = frames_from_lines(r.iter_lines())
            assert next(items) == "retry: 2000"
            assert next(i for i in items if isinstance(i, str)) == ": keepalive"
            client.post(f"/runs/{run_id}/cancel")
            last = [i for i in items if isinstance(i, Frame)][-1]
        assert last.event == "run.cancelled"


def test_stop_ends_open_streams() -> None:
    before = set(threading.enumerate())
    host = DemoHost(pace=1)
    host.start()
    with client_for(host) as client:
        run_id = start(client, "demo.chat", "slow")
        with client.stream("GET", f"/runs/{run_id}/events", headers=SSE) as r:
            items = frames_from_lines(r.iter_lines())
            first = next(i for i in items if isinstance(i, Frame))
            assert first.event == "run.started"
            host.stop()
            rest = [i for i in items if isinstance(i, Frame)]  # ends: the host closed it
            assert all(not f.event.startswith("run.") for f in rest)
    host.stop()  # idempotent
    # Server, connection and workflow threads are all joined.
    assert not [t for t in set(threading.enumerate()) - before if t.is_alive()]
