"""The demo host against the OpenWOP conformance schemas: every event and envelope of every
workflow, in v1 and v2, over real loopback HTTP (``tests/data/schemas``, see its README).

A host that sends data its own schemas reject teaches a client to accept what real hosts
must not send, so the demo host is held to them here: each workflow is driven to its end (its
questions answered, `demo_drive`), on every path the host can take (accept, refine, reject,
cancel, expiry, failure), and every RunEventDoc, payload, AI envelope and media payload is
validated; every envelope kind sent is advertised in ``supportedEnvelopes``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conformance_schemas import (
    envelope_problems,
    event_problems,
    payload_problems,
    snapshot_problems,
)
from demo_drive import Scenario, Wire, chat, client, run
from httpx_sse import connect_sse
from media_parts import part, pdf, said, tone, two_colour_png

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.wire import V1_TO_V2
from openwop_tui.demo_host.workflows import WORKFLOWS

SCENARIOS = (
    chat("chat-help", "hello"),
    chat("chat-everything", "everything, a stream and a script, then ask, approve and unsure"),
    chat("chat-refine", "approve", action="refine"),
    chat("chat-reject", "approve", action="reject"),
    chat("chat-fail", "fail"),
    chat("chat-slow", "slow"),
    Scenario("tour", "demo.tour"),
    Scenario("clarify", "demo.clarify"),
    Scenario("clarify-expired", "demo.clarify", {"timeoutMs": 1}, unanswered=True),
    Scenario("approve", "demo.approve"),
    Scenario("approve-refine", "demo.approve", action="refine"),
    Scenario("approve-reject", "demo.approve", action="reject"),
    Scenario("approve-cancelled", "demo.approve", cancel_when_asked=True),
    Scenario("low-confidence", "demo.low-confidence"),
    Scenario("low-confidence-reject", "demo.low-confidence", action="reject"),
    Scenario("conversation", "demo.conversation"),
    Scenario("openclaw", "demo.openclaw"),
    Scenario("noop", "conformance-noop"),
    Scenario("conformance-clarification", "conformance-clarification"),
    Scenario("conformance-approval", "conformance-approval"),
    Scenario("conformance-low-confidence", "conformance-agent-low-confidence"),
    Scenario("bench", "bench.events", {"count": 40}),
    Scenario("bench-flood", "bench.flood", {"rate": 2_000, "seconds": 0.05}),
    Scenario("bench-big", "bench.big", {"megabytes": 0.2}),
    Scenario("bench-answer", "bench.answer"),
    Scenario("bench-rich", "bench.rich"),
    Scenario("bench-code", "bench.code", {"rate": 100_000}),
    Scenario("bench-list", "bench.list", {"rate": 100_000}),
    Scenario(
        "chat-attachments",
        "demo.chat",
        said(
            part("image", "image/png", two_colour_png(), alt="halves"),
            part("file", "application/pdf", pdf(2), name="two.pdf"),
            part("audio", "audio/wav", tone(0.25, 8000, "WAV"), durationSeconds=0.25),
            part("file", "text/plain", b"\xff\xfe not UTF-8"),
            text="what are these? and some code",
        ),
    ),
    Scenario(
        "text-attachments",
        "demo.text",
        said(part("image", "image/png", two_colour_png(), alt="halves"), text="hello"),
    ),
)

_V2_TO_V1 = {v2: v1 for v1, v2 in V1_TO_V2.items()}


@pytest.fixture(scope="module", params=[1, 2], ids=["v1", "v2"])
def host(request: pytest.FixtureRequest) -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=request.param) as demo:
        demo.major = request.param  # type: ignore[attr-defined]  # which major the tests speak
        yield demo


def _major(host: DemoHost) -> int:
    major: int = host.major  # type: ignore[attr-defined]
    return major


def _advertised(host: DemoHost) -> set[str]:
    document = httpx.get(f"{host.url}/.well-known/openwop", headers=Wire(_major(host)).headers())
    kinds = document.json()["supportedEnvelopes"]
    return set(kinds["kinds"] if isinstance(kinds, dict) else kinds)


def _problems(events: list[dict[str, Any]], major: int) -> list[str]:
    found: list[str] = []
    for doc in events:
        v1_type = _V2_TO_V1.get(doc["type"], doc["type"]) if major == 2 else None
        found += event_problems(doc, major, v1_type)
    return found


def test_every_workflow_has_a_scenario() -> None:
    assert set(WORKFLOWS) <= {s.workflow for s in SCENARIOS}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_every_event_and_envelope_validates(host: DemoHost, scenario: Scenario) -> None:
    major = _major(host)
    snapshots: list[dict[str, Any]] = []
    _, events = run(host, scenario, major, snapshots)
    assert events[-1]["type"] in ("run.completed", "run.failed", "run.cancelled")
    assert _problems(events, major) == []
    if major == 1:  # the v2 snapshot's owner{subject} is v2's own shape, not in this copy
        assert [p for s in snapshots for p in snapshot_problems(s)] == []
        asked = [s for s in snapshots if "interrupt" in s]
        assert all(s["status"].startswith("waiting-") and s["currentNodeId"] for s in asked)
    sent = {
        doc["payload"]["outputs"]["envelope"]["type"]
        for doc in events
        if isinstance(doc["payload"].get("outputs"), dict)
        and isinstance(doc["payload"]["outputs"].get("envelope"), dict)
    }
    assert sent - _advertised(host) == set(), "envelope kinds sent but not advertised"


def test_every_path_of_the_host_is_driven(host: DemoHost) -> None:
    """The scenarios reach the interrupts, terminals and envelope families they claim to."""
    seen: set[str] = set()
    kinds: set[str] = set()
    for scenario in (SCENARIOS[1], SCENARIOS[12], SCENARIOS[8], SCENARIOS[15]):
        _, events = run(host, scenario, _major(host))
        seen |= {doc["type"] for doc in events}
        kinds |= {d["payload"]["kind"] for d in events if d["type"] == "interrupt.requested"}
    names = {"node.suspended", "interrupt.resolved", "artifact.created", "run.cancelled"}
    names |= {"node.cancelled", "conversation.closed", "run.failed"}
    assert names <= {_V2_TO_V1.get(t, t) for t in seen}
    assert kinds == {"clarification", "approval", "low-confidence", "conversation.exchange"}


def test_messages_batches_poll_and_json_validate_too(host: DemoHost) -> None:
    """The other ways events leave the host: bare chunks in ``messages`` mode, ``batch``
    frames, the long poll and the JSON list."""
    major = _major(host)
    run_id, _ = run(host, chat("code", "code"), major)
    wire = Wire(major)
    path = f"{wire.prefix}/runs/{wire.segment(run_id)}/events"
    found: list[str] = []
    with client(host, major) as http:
        with connect_sse(http, "GET", path, params={"streamMode": "messages"}) as sse:
            chunks = [json.loads(f.data) for f in sse.iter_sse() if f.data]
        assert chunks
        for index, chunk in enumerate(chunks):
            found += payload_problems("output.chunk", chunk, f"messages[{index}]")
        with connect_sse(http, "GET", path, params={"bufferMs": "50"}) as sse:
            batched = [doc for f in sse.iter_sse() if f.data for doc in json.loads(f.data)]
        polled = http.get(f"{path}/poll", params={"afterSequence": -1, "timeout": 0}).json()
        listed = http.get(path, params={"streamMode": "debug"}).json()["events"]
    assert batched and polled["events"] and listed
    found += _problems(batched + polled["events"] + listed, major)
    assert found == []


def test_the_checks_catch_what_they_claim() -> None:
    """Each data fix of the host is a rule these checks enforce (they fail without it)."""
    base = {"eventId": "e", "runId": "r", "timestamp": "2026-01-01T00:00:00Z", "sequence": 0}
    artifact = {"artifactId": "a", "artifactType": "t", "version": 1}
    assert event_problems({**base, "type": "artifact.created", "payload": artifact}, 1)
    suspended = {"nodeId": "n", "interruptId": "i", "kind": "low-confidence"}
    assert event_problems({**base, "type": "node.suspended", "payload": suspended}, 1)
    media = {
        "type": "media.image",
        "envelopeId": "e",
        "correlationId": "c",
        "payload": {"url": "/v1/host/x/assets/t", "bytes": 1},
        "meta": {"source": "ai-generation", "ts": "2026-01-01T00:00:00Z"},
    }
    assert envelope_problems(media)
    hinted = {**media, "payload": {"url": "http://h/a", "bytes": 1}}
    assert envelope_problems(hinted) == []
    assert envelope_problems({**hinted, "meta": {**hinted["meta"], "rendering": {"display": "x"}}})
    assert snapshot_problems({"runId": "r", "workflowId": "w", "status": "waiting"})
    assert snapshot_problems({"runId": "r", "workflowId": "w", "status": "failed", "error": {}})
