"""Each stream mode of the demo host carries what the reference hosts send in it.

The Python reference host honours ``?streamMode=`` literally, so its recorded ``noop`` runs
(``tests/data/captures/python-host-noop*.sse``) say what each mode holds for the same workflow
the demo host mirrors (``conformance-noop``): the demo host must send the same event types in
the same order. For richer runs, every mode is checked against protocol.md §3.4: ``updates``
has every node transition (``node.started`` included, as the Python and SQLite hosts send it)
and no chunks, reasoning or usage; ``messages`` only chunks; ``debug`` everything.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from httpx_sse import connect_sse
from paths import TESTS

from openwop_tui.demo_host import DemoHost

CAPTURES = TESTS / "data" / "captures"

#: Types `updates` leaves to `debug` (stream-modes.md's table; node.started is not among them).
DEBUG_ONLY = {"output.chunk", "agent.reasoning.delta", "agent.reasoned", "provider.usage"}
DEBUG_ONLY |= {"agent.toolCalled", "agent.toolReturned", "agent.decided", "log.appended"}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with DemoHost(pace=0, keepalive=0) as host:
        headers = {"Authorization": f"Bearer {host.api_key}"}
        with httpx.Client(base_url=host.url, headers=headers, timeout=30) as http:
            yield http


def _types(client: httpx.Client, run_id: str, mode: str | None) -> list[str]:
    params = {"streamMode": mode} if mode else {}
    with connect_sse(client, "GET", f"/v1/runs/{run_id}/events", params=params) as sse:
        frames = [json.loads(f.data) for f in sse.iter_sse() if f.data]
    return [frame.get("type", "output.chunk") for frame in frames]


def _start(client: httpx.Client, workflow: str, text: str = "") -> str:
    inputs = {"messages": [{"role": "user", "content": text}]} if text else {}
    created = client.post("/v1/runs", json={"workflowId": workflow, "inputs": inputs})
    assert created.status_code == 201, created.text
    run_id: str = created.json()["runId"]
    _types(client, run_id, "debug")  # to its end
    return run_id


def _captured(name: str) -> list[str]:
    text = (CAPTURES / name).read_text(encoding="utf-8")
    return [
        line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("event:")
    ]


@pytest.mark.parametrize(
    ("capture", "mode"),
    [
        ("python-host-noop-updates.sse", "updates"),
        ("python-host-noop.sse", None),
        ("python-host-noop-debug.sse", "debug"),
        ("python-host-noop-messages.sse", "messages"),
    ],
)
def test_each_mode_matches_the_python_reference_host(
    client: httpx.Client, capture: str, mode: str | None
) -> None:
    run_id = _start(client, "conformance-noop")
    assert _types(client, run_id, mode) == _captured(capture)


@pytest.mark.parametrize("text", ["code and an image", "everything", "fail"])
def test_updates_has_every_node_transition_and_no_tokens(client: httpx.Client, text: str) -> None:
    run_id = _start(client, "demo.chat", text)
    debug = _types(client, run_id, "debug")
    updates = _types(client, run_id, "updates")
    assert updates == [t for t in debug if t not in DEBUG_ONLY]
    assert updates.count("node.started") == debug.count("node.started") > 0
    assert "run.started" in updates and updates[-1].startswith("run.")
    messages = _types(client, run_id, "messages")
    assert messages == ["output.chunk"] * debug.count("output.chunk")
