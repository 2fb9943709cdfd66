"""The stream's acceptance rules on a live stream (issue 23): the checks a catch-up makes
(`tests/core/test_catch_up_checks.py`, `tests/ui/test_app_catch_up_checks.py`) are the
stream's own, so a live stream and its reconnects refuse another run's events, log a duplicate
frame once, and say a gap, the same way; and the sentences stay sane with a hostile sequence.

Each fails without its rule.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.stream import subscribe
from openwop_tui.protocol.stream_checks import FILTERED_GAP, gap_sentence, number
from openwop_tui.protocol.stream_items import Arrival, StreamItem, StreamNotice

BASE = "http://127.0.0.1:8765"
RUN = "run-1"


def _frame(doc: dict[str, Any], sequence: int | None) -> str:
    head = f"id: {sequence}\n" if sequence is not None else ""
    return f"{head}event: {doc['type']}\ndata: {json.dumps(doc)}\n\n"


def _ev(sequence: int | None, kind: str = "node.completed", run: str = RUN, **extra: Any) -> str:
    doc: dict[str, Any] = {"runId": run, "type": kind, "payload": {"nodeId": "n"}, **extra}
    if sequence is not None:
        doc["sequence"] = sequence
    return _frame(doc, sequence)


async def _stream(
    body: str, modes: str = "updates,messages"
) -> tuple[list[StreamItem], list[Arrival]]:
    """Subscribe to `RUN` on a host that sends ``body`` and ends it with run.completed."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, text=body)

    logged: list[Arrival] = []
    async with HostClient(BASE, "k", transport=httpx.MockTransport(answer)) as client:
        items = [
            item async for item in subscribe(client, RUN, modes=modes, on_arrival=logged.append)
        ]
    return items, logged


def _events(items: list[StreamItem]) -> list[RunEvent]:
    return [i for i in items if isinstance(i, RunEvent)]


def _warnings(items: list[StreamItem]) -> list[str]:
    return [i.message for i in items if isinstance(i, StreamNotice) and i.level == "warning"]


async def test_a_live_stream_refuses_another_runs_events_too() -> None:
    body = (
        _ev(0, "run.started")
        + _ev(1, run="run-2")
        + _ev(2, run="run-2")
        + _ev(1)
        + _ev(2, "run.completed")
    )
    items, logged = await _stream(body)
    assert [(e.sequence, e.run_id) for e in _events(items)] == [(0, RUN), (1, RUN), (2, RUN)]
    assert _warnings(items) == [
        f"The host sent 2 events of run run-2 while streaming run {RUN}; they were not shown "
        "or kept."
    ]
    assert len(logged) == 3 and not any(
        "run-2" in (a.frame.data if a.frame else "") for a in logged
    )


async def test_a_duplicate_frame_is_passed_on_and_logged_once() -> None:
    body = (
        _ev(0, "run.started")
        + _ev(1)
        + _ev(1)  # the same sequence again (a resume that overlapped)
        + _ev(None, "log.appended", eventId="e-7")
        + _ev(None, "log.appended", eventId="e-7")  # no sequence: known by its id
        + _ev(2, "run.completed")
    )
    items, logged = await _stream(body)
    assert [e.type for e in _events(items)] == [
        "run.started",
        "node.completed",
        "log.appended",
        "run.completed",
    ]
    assert len(logged) == 4


async def test_a_gap_is_said_on_a_full_stream_and_past_a_bound_on_a_filtered_one() -> None:
    small = _ev(0, "run.started") + _ev(4) + _ev(5, "run.completed")
    items, _ = await _stream(small, modes="debug")
    assert _warnings(items) == [
        "The host skipped sequences: 3 events are missing between sequence 0 and 4."
    ]
    items, _ = await _stream(small)  # updates,messages: the others' events are left out
    assert _warnings(items) == []
    far = FILTERED_GAP + 2
    items, _ = await _stream(_ev(0, "run.started") + _ev(far, "run.completed"))
    (said,) = _warnings(items)
    assert f"{FILTERED_GAP + 1:,} events are missing between sequence 0 and {far:,}" in said


def test_numbers_in_the_sentences_stay_readable() -> None:
    assert number(10**15) == "1,000,000,000,000,000"
    assert number(10**4000) == "a 4,001-digit number"
    said = gap_sentence(5, 10**4000, every=True)
    assert said is not None and len(said) < 200 and "4,001-digit" in said
    assert gap_sentence(None, 0, every=True) is None
    assert gap_sentence(None, 3, every=True) == (
        "The host skipped sequences: 3 events are missing before sequence 3."
    )
    assert gap_sentence(7, 8, every=True) is None and gap_sentence(7, 7, every=True) is None
