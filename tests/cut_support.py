"""Helpers for the tests of sessions kept from a real demo host's stream: a run's raw SSE
frames read over loopback and written into a stored session as the app would have logged them
(a plain module, imported as ``from cut_support import ...``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from openwop_tui.protocol.sse import SSEDecoder, SSEFrame
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

#: The stream modes the app subscribes with (`openwop_tui.config`'s default).
MODES = "updates,messages"


def start_run(client: httpx.Client, text: str, workflow: str = "demo.chat") -> str:
    """Create a run of ``workflow`` for the message ``text``; its id."""
    inputs = {"messages": [{"role": "user", "content": text}]}
    created = client.post("/v1/runs", json={"workflowId": workflow, "inputs": inputs})
    assert created.status_code == 201, created.text
    run_id: str = created.json()["runId"]
    return run_id


def run_frames(client: httpx.Client, run_id: str) -> list[SSEFrame]:
    """Every frame of the run's stream, to its end, as the app's subscription asks for them."""
    decoder = SSEDecoder()
    frames: list[SSEFrame] = []
    headers = {"Accept": "text/event-stream"}
    params = {"streamMode": MODES}
    with client.stream("GET", f"/v1/runs/{run_id}/events", params=params, headers=headers) as r:
        assert r.status_code == 200, r.read()
        for text in r.iter_text():
            frames.extend(decoder.feed(text))
    frames.extend(decoder.close())
    return [frame for frame in frames if frame.data]


def store_session(
    store: Store,
    *,
    host: str,
    text: str,
    run_id: str,
    frames: list[SSEFrame],
    workflow: str = "demo.chat",
    run_meta: dict[str, Any] | None = None,
    ended: bool = True,
    rewrite: Callable[[str], str] | None = None,
) -> str:
    """A stored session as the app logs one turn: the message, the run's creation (``run_meta``
    as its entry's meta, by default the workflow and ``host``), each frame, and the run's end
    unless ``ended`` is false (the app was killed mid-run). ``rewrite`` changes each frame's data
    text first (a host that sends something else)."""
    session_id = store.create(host=host, workflow=workflow)
    store.append(session_id, Entry("user", text))
    meta = run_meta if run_meta is not None else {"workflow": workflow, "host": host}
    store.append(session_id, Entry("run", run=run_id, meta=meta))
    for frame in frames:
        if rewrite is not None:
            frame = SSEFrame(event=frame.event, data=rewrite(frame.data), id=frame.id)
        store.append(session_id, Entry.of_arrival(Arrival(frame=frame), run_id))
    if ended:
        store.append(session_id, Entry("end", run=run_id, meta={"status": "completed"}))
    store.flush()
    return session_id


def event_count(frames: list[SSEFrame]) -> int:
    """How many run events the frames carry (a batch frame carries several)."""
    total = 0
    for frame in frames:
        value = json.loads(frame.data)
        total += len(value) if isinstance(value, list) else 1
    return total


def frames_until(
    client: httpx.Client, run_id: str, last: Callable[[SSEFrame], bool]
) -> list[SSEFrame]:
    """The run's frames up to and including the first for which ``last`` holds (the stream
    of a run that waits for an answer stays open: this stops reading there)."""
    decoder = SSEDecoder()
    frames: list[SSEFrame] = []
    headers = {"Accept": "text/event-stream"}
    params = {"streamMode": MODES}
    with client.stream("GET", f"/v1/runs/{run_id}/events", params=params, headers=headers) as r:
        assert r.status_code == 200, r.read()
        for text in r.iter_text():
            for frame in decoder.feed(text):
                if frame.data:
                    frames.append(frame)
                    if last(frame):
                        return frames
    raise AssertionError(f"the stream ended without the frame looked for: {frames[-1:]}")
