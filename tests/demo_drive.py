"""Drive a demo host run to its end over real loopback HTTP, in v1 or v2, answering its
questions as a person would: the conformance tests' way of seeing every event a workflow sends.

The run is read as one ``?streamMode=debug`` SSE stream (every event, in log order). Each
``interrupt.requested`` is answered from another connection while the stream stays open, the
way the app answers: a clarification with its choices or a name, an approval with the
scenario's action, a conversation with one question and then ``bye``. Nothing waits on a clock:
the stream ends when the run does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from httpx_sse import connect_sse
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost


@dataclass(frozen=True)
class Scenario:
    """One way through one workflow."""

    name: str
    workflow: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    action: str = "accept"
    """What approvals and low-confidence ratifications are answered with."""
    cancel_when_asked: bool = False
    """Cancel the run at its first question instead of answering it."""
    unanswered: bool = False
    """Leave its questions unanswered (with ``inputs.timeoutMs``: the run expires)."""


def chat(name: str, text: str, **options: Any) -> Scenario:
    """A ``demo.chat`` turn whose last user message is ``text``."""
    return Scenario(name, "demo.chat", {"messages": [{"role": "user", "content": text}]}, **options)


@dataclass
class Wire:
    """How one major addresses the host."""

    major: int

    @property
    def prefix(self) -> str:
        return "/v1" if self.major == 1 else ""

    def headers(self) -> dict[str, str]:
        return {"OpenWOP-Version": "2"} if self.major == 2 else {}

    def segment(self, run_id: str) -> str:
        """A run id as one path segment (v2 ids are ``demo/run_…``: projected, RFC 0184)."""
        return run_id if self.major == 1 else run_id.replace("~", "~7E").replace("/", "~2F")


def client(host: DemoHost, major: int) -> httpx.Client:
    """A keyed client speaking ``major``."""
    return httpx.Client(
        base_url=host.url,
        headers={"Authorization": f"Bearer {host.api_key}", **Wire(major).headers()},
        timeout=PATIENCE,
    )


def _answer(request: Mapping[str, Any], scenario: Scenario, turns: int) -> Any:
    kind, data = request.get("kind"), request.get("data") or {}
    if kind == "clarification":
        answers = []
        for question in data.get("questions", []):
            choices = (question.get("schema") or {}).get("enum")
            answers.append({"id": question["id"], "answer": choices[0] if choices else "Ann"})
        return {"answers": answers}
    if kind == "conversation.exchange":
        text = "what is this?" if turns == 0 else "bye"
        return {"operation": "exchange", "turn": {"role": "user", "content": text}}
    if scenario.action == "refine":
        return {"action": "refine", "refineFeedback": {"scope": "whole", "text": "shorter"}}
    if scenario.action == "reject":
        return {"action": "reject", "feedback": "not now"}
    return {"action": "accept"}


def run(
    host: DemoHost,
    scenario: Scenario,
    major: int,
    snapshots: list[dict[str, Any]] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """Run ``scenario`` to its end; the run id as the major names it, and every event as sent.

    ``snapshots`` gets the run's snapshot at each question (open interrupt) and at the end."""
    wire = Wire(major)
    with client(host, major) as http:
        created = http.post(
            f"{wire.prefix}/runs",
            json={"workflowId": scenario.workflow, "inputs": dict(scenario.inputs)},
        )
        assert created.status_code == 201, created.text
        run_id: str = created.json()["runId"]
        path = f"{wire.prefix}/runs/{wire.segment(run_id)}"
        events: list[dict[str, Any]] = []
        turns = 0
        with connect_sse(http, "GET", f"{path}/events", params={"streamMode": "debug"}) as sse:
            assert sse.response.status_code == 200, sse.response.read()
            for frame in sse.iter_sse():
                if not frame.data:  # the opening `retry:` field alone
                    continue
                doc = json.loads(frame.data)
                events.append(doc)
                if doc["type"] != "interrupt.requested" or scenario.unanswered:
                    continue
                if snapshots is not None:
                    snapshots.append(http.get(path).json())
                if scenario.cancel_when_asked:
                    assert http.post(f"{path}/cancel", json={}).status_code == 200
                    continue
                value = _answer(doc["payload"], scenario, turns)
                turns += doc["payload"]["kind"] == "conversation.exchange"
                node = quote(doc["payload"]["nodeId"], safe="")
                answered = http.post(f"{path}/interrupts/{node}", json={"resumeValue": value})
                assert answered.status_code == 200, answered.text
        if snapshots is not None:
            snapshots.append(http.get(path).json())
        return run_id, events
