"""Helpers for the demo host's human-in-the-loop tests: start a run, read its events by
long-polling (never a clock), answer its interrupts."""

from __future__ import annotations

from typing import Any

import httpx


def start(client: httpx.Client, workflow: str, **inputs: Any) -> str:
    created = client.post("/v1/runs", json={"workflowId": workflow, "inputs": inputs})
    assert created.status_code == 201, created.text
    run_id: str = created.json()["runId"]
    return run_id


class Log:
    """A run's events, read by long-polling as far as a test needs."""

    def __init__(self, client: httpx.Client, run_id: str) -> None:
        self.client, self.run_id = client, run_id
        self.events: list[dict[str, Any]] = []
        self.terminal = False

    def _more(self) -> None:
        after = self.events[-1]["sequence"] if self.events else -1
        page = self.client.get(
            f"/v1/runs/{self.run_id}/events/poll", params={"afterSequence": after, "timeout": 5}
        ).json()
        self.events += page["events"]
        self.terminal = page["isTerminal"]

    def wait_for(self, type_: str, after: int = -1) -> dict[str, Any]:
        """The first event of ``type_`` with sequence > ``after``."""
        while True:
            for event in self.events:
                if event["type"] == type_ and event["sequence"] > after:
                    return event
            assert not self.terminal, f"the run ended without {type_}: {self.types()}"
            self._more()

    def to_end(self) -> list[dict[str, Any]]:
        while not self.terminal:
            self._more()
        return self.events

    def types(self) -> list[str]:
        return [e["type"] for e in self.events if e["type"] != "output.chunk"]


def resolve(client: httpx.Client, run_id: str, node: str, value: Any) -> httpx.Response:
    return client.post(f"/v1/runs/{run_id}/interrupts/{node}", json={"resumeValue": value})


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == code
    assert set(body) <= {"error", "message", "details"}
    assert body["message"]
    return body


SPEC_ANSWERS = {"answers": [{"id": "colour", "answer": "blue"}, {"id": "name", "answer": "Ann"}]}
