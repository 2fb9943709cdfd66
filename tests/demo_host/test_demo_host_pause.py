"""The demo host's ``:pause`` and ``:resume`` (runs.md §Pause and resume, v1 rest-endpoints.md),
on both majors over loopback HTTP, and one spelling of a run id for every route.

* A pause asked for while a node runs takes effect when the node ends (``drain-current-node``):
  ``run.paused`` follows the node's terminal event, the status is ``paused``, and the workflow
  takes no further step until ``:resume`` records ``run.resumed``.
* A run waiting for an answer pauses at once; the answer is refused while it is paused, and
  after the resume the run waits for it again and completes once answered.
* 409s as the spec names them: ``run_state_conflict`` (pausing a paused run, resuming a running
  one) and ``run_terminal``, with ``details.runStatus``; an ``Idempotency-Key`` replays.
* Every route with a run id in its path takes the same spellings of a v2 id (projected
  ``~2F``, percent-encoded ``%2F`` and ``%2f``): the interrupt route refused ``%2F`` that the
  snapshot route took.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.assets import AssetStore
from openwop_tui.demo_host.runs import RunStore
from openwop_tui.demo_host.steps import Emit, Step, WorkflowContext

#: (v1 root, OpenWOP-Version) of each major on the dual-stack host.
MAJORS = {"v1": ("/v1", None), "v2": ("", "2")}


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=2) as running:
        yield running


def client(host: DemoHost, major: str) -> httpx.Client:
    headers = {"Authorization": f"Bearer {host.api_key}"}
    version = MAJORS[major][1]
    if version is not None:
        headers["OpenWOP-Version"] = version
    return httpx.Client(base_url=host.url + MAJORS[major][0], headers=headers, timeout=PATIENCE)


def asked(http: httpx.Client, run_id: str) -> str:
    """Start ``demo.approve`` and wait (long-polling) until it asks; its run path and node."""
    after = -1
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        polled = http.get(f"/runs/{run_id}/events/poll", params={"afterSequence": after})
        assert polled.status_code == 200, polled.text
        for event in polled.json()["events"]:
            if event["type"] == "interrupt.requested":
                return str(event["payload"]["nodeId"])
            after = event["sequence"]
    pytest.fail("the run never asked its question")


def start_asking(http: httpx.Client) -> tuple[str, str]:
    """A ``demo.approve`` run waiting for its answer: its id as a path segment, and the node."""
    created = http.post("/runs", json={"workflowId": "demo.approve"})
    assert created.status_code == 201, created.text
    segment = created.json()["statusUrl"].rsplit("/", 1)[-1]
    return segment, asked(http, segment)


def types(http: httpx.Client, segment: str) -> list[str]:
    return [event["type"] for event in http.get(f"/runs/{segment}/events").json()["events"]]


@pytest.mark.parametrize("major", list(MAJORS))
def test_a_waiting_run_pauses_refuses_its_answer_and_resumes(host: DemoHost, major: str) -> None:
    with client(host, major) as http:
        run, node = start_asking(http)
        answer = {"resumeValue": {"action": "accept"}}
        paused = http.post(f"/runs/{run}:pause", json={"reason": "lunch"})
        assert paused.status_code == 202, paused.text
        assert paused.json()["status"] == "paused" and paused.json()["pausedAt"]
        assert http.get(f"/runs/{run}").json()["status"] == "paused"
        assert types(http, run)[-1] == "run.paused"
        events = http.get(f"/runs/{run}/events").json()["events"]
        assert events[-1]["payload"] == {"reason": "lunch", "drainPolicy": "drain-current-node"}

        refused = http.post(f"/runs/{run}/interrupts/{node}", json=answer)
        assert refused.status_code == 409
        assert refused.json()["details"]["runStatus"] == "paused"
        again = http.post(f"/runs/{run}:pause", json={})
        assert again.status_code == 409
        assert again.json()["error"] == "run_state_conflict"
        assert again.json()["details"]["runStatus"] == "paused"

        resumed = http.post(f"/runs/{run}:resume", json={})
        assert resumed.status_code == 202, resumed.text
        assert resumed.json()["status"] == "running" and resumed.json()["resumedAt"]
        assert http.get(f"/runs/{run}").json()["status"] == "waiting-approval"  # as before
        assert types(http, run)[-2:] == ["run.paused", "run.resumed"]
        not_paused = http.post(f"/runs/{run}:resume", json={})
        assert not_paused.status_code == 409
        assert not_paused.json()["error"] == "run_state_conflict"
        assert not_paused.json()["details"]["runStatus"] == "waiting-approval"

        assert http.post(f"/runs/{run}/interrupts/{node}", json=answer).status_code == 200
        poll = http.get(f"/runs/{run}/events/poll", params={"afterSequence": 0, "timeout": 60})
        while not poll.json()["isTerminal"]:
            last = poll.json()["lastSequence"]
            poll = http.get(f"/runs/{run}/events/poll", params={"afterSequence": last})
        assert http.get(f"/runs/{run}").json()["status"] == "completed"
        for op in ("pause", "resume"):
            ended = http.post(f"/runs/{run}:{op}", json={})
            assert ended.status_code == 409
            assert ended.json()["error"] == "run_terminal"
            assert ended.json()["details"]["runStatus"] == "completed"


def test_a_retried_pause_gets_its_first_answer(host: DemoHost) -> None:
    with client(host, "v2") as http:
        run, _ = start_asking(http)
        key = {"Idempotency-Key": "pause-once"}
        first = http.post(f"/runs/{run}:pause", json={}, headers=key)
        second = http.post(f"/runs/{run}:pause", json={}, headers=key)
        assert first.status_code == second.status_code == 202
        assert first.json() == second.json()
        assert types(http, run).count("run.paused") == 1
        other = http.post(f"/runs/{run}:pause", json={"reason": "x"}, headers=key)
        assert other.status_code == 409 and other.json()["error"] == "idempotency_key_mismatch"


def test_a_pause_this_host_cannot_make_is_refused_with_the_one_it_can(host: DemoHost) -> None:
    with client(host, "v2") as http:
        run, _ = start_asking(http)
        refused = http.post(f"/runs/{run}:pause", json={"drainPolicy": "immediate"})
        assert refused.status_code == 400
        assert refused.json()["details"] == {
            "field": "drainPolicy",
            "supported": ["drain-current-node"],
        }
        assert http.get(f"/runs/{run}").json()["status"] == "waiting-approval"


def test_a_pause_asked_while_a_node_runs_waits_for_its_end_and_stops_the_run() -> None:
    """The driver's side, on a run store with a workflow the test holds inside its first node:
    the pause waits for the node, then no step is taken until the resume."""
    inside, leave, after = threading.Event(), threading.Event(), threading.Event()

    def workflow(ctx: WorkflowContext) -> Iterator[Step]:
        yield Emit("node.started", {"nodeId": "one"}, "one")
        inside.set()
        assert leave.wait(PATIENCE)
        yield Emit("node.completed", {"nodeId": "one"}, "one")
        after.set()  # the workflow was asked for its next step
        yield Emit("node.started", {"nodeId": "two"}, "two")
        yield Emit("node.completed", {"nodeId": "two"}, "two")
        yield Emit("run.completed", {"outputs": {}})

    store = RunStore({"held": workflow}, AssetStore(), pace=0)
    try:
        run, _ = store.create("held", {}, {}, {}, None)
        assert inside.wait(PATIENCE)
        run.pause("a break")
        assert run.status == "running"  # node "one" is still at work
        assert "run.paused" not in _types(run)
        leave.set()
        deadline = time.monotonic() + PATIENCE
        while "run.paused" not in _types(run):
            assert time.monotonic() < deadline, _types(run)
            run.wait_after(len(_types(run)) - 1, PATIENCE)  # wakes at the next event
        assert _types(run)[-2:] == ["node.completed", "run.paused"]
        assert run.status == "paused"
        assert not after.is_set()  # paused: the workflow was not asked for another step
        run.resume(None)
        deadline = time.monotonic() + PATIENCE
        while not run.terminal:
            assert time.monotonic() < deadline, _types(run)
            run.wait_after(len(_types(run)) - 1, PATIENCE)
        assert _types(run) == [
            "run.started",
            "node.started",
            "node.completed",
            "run.paused",
            "run.resumed",
            "node.started",
            "node.completed",
            "run.completed",
        ]
    finally:
        leave.set()
        store.shutdown()


def _types(run: Any) -> list[str]:
    return [event["type"] for event in run.wait_after(-1, 0).events]


#: Every route with a run id in its path: (method, path after the id, body).
RUN_ROUTES = [
    ("GET", "", None),
    ("GET", "/events", None),
    ("GET", "/events/poll?timeout=0", None),
    ("POST", "/interrupts/{node}", {"resumeValue": {"action": "accept"}}),
    ("POST", ":pause", {}),
    ("POST", ":resume", {}),
    ("POST", "/cancel", {}),
]


@pytest.mark.parametrize(("method", "rest", "body"), RUN_ROUTES)
@pytest.mark.parametrize("major", list(MAJORS))
def test_every_route_takes_every_spelling_of_a_run_id(
    host: DemoHost, major: str, method: str, rest: str, body: Any
) -> None:
    """Each spelling on a run of its own in the same state (one asking): the same answer."""
    answers = []
    with client(host, major) as http:
        for spell in (_projected, _percent, _percent_lower):
            run, node = start_asking(http)
            if rest == ":resume":
                assert http.post(f"/runs/{run}:pause", json={}).status_code == 202
            path = f"/runs/{spell(run)}{rest.format(node=node)}"
            response = http.request(method, path, json=body)
            assert response.status_code < 400, (path, response.text)
            answers.append(response.status_code)
    assert len(set(answers)) == 1


def _projected(segment: str) -> str:
    return segment  # as the host's own links name it


def _percent(segment: str) -> str:
    return segment.replace("~2F", "%2F").replace("_", "%5F")


def _percent_lower(segment: str) -> str:
    return segment.replace("~2F", "%2f").replace("_", "%5f")
