"""`subscribe` after a drop: nothing missed is lost, a cut frame is not malformed, silence is seen.

Scripted hosts on `httpx.MockTransport` (the loopback fault tests against the demo host are in
`test_faults.py`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from scripted_host import BASE, EVENTS, POLL, RUN, SNAPSHOT, Host, Responder, ev

from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.sse_connection import waiting_for_human
from openwop_tui.protocol.stream import subscribe
from openwop_tui.protocol.stream_items import StreamItem, StreamNotice


def frame(doc: dict[str, Any]) -> str:
    return f"id: {doc['sequence']}\nevent: {doc['type']}\ndata: {json.dumps(doc)}\n\n"


def chunk(seq: int, text: str) -> dict[str, Any]:
    return ev(seq, "output.chunk", nodeId="reply", chunk=text, isLast=False)


class _Body(httpx.AsyncByteStream):
    """A response body in pieces; ``then`` ends it: ``None`` (EOF), an error, or an awaitable."""

    def __init__(self, pieces: list[bytes], then: Any = None) -> None:
        self.pieces, self.then = pieces, then

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece
        if isinstance(self.then, BaseException):
            raise self.then
        if self.then is not None:
            yield await self.then()


def stream(*pieces: str, then: Any = None) -> Responder:
    body = _Body([p.encode() for p in pieces], then)
    return lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=body
    )


def json_answer(status: int, body: Any) -> Responder:
    return lambda request: httpx.Response(status, json=body)


async def run(host: Host, **kwargs: Any) -> tuple[list[StreamItem], list[float]]:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async with HostClient(BASE, "key", transport=httpx.MockTransport(host)) as client:
        items = [item async for item in subscribe(client, RUN, sleep=sleep, **kwargs)]
    return items, sleeps


def events(items: list[StreamItem]) -> list[RunEvent]:
    return [i for i in items if isinstance(i, RunEvent)]


def notices(items: list[StreamItem]) -> list[StreamNotice]:
    return [i for i in items if isinstance(i, StreamNotice)]


def reply(items: list[StreamItem]) -> str:
    return "".join(e.payload["chunk"] for e in events(items) if e.type == "output.chunk")


REPLY = [chunk(1, "The "), chunk(2, "whole "), chunk(3, "reply.")]
LOG = [ev(0, "run.started"), *REPLY, ev(4, "run.completed")]


async def test_run_that_ended_while_disconnected_still_delivers_the_missed_events() -> None:
    # The connection ends (cleanly) in the middle of frame 2; meanwhile the run completed.
    cut = frame(LOG[2])[:-10]  # inside its JSON
    host = Host(
        {
            EVENTS: [
                stream(frame(LOG[0]), frame(LOG[1]), cut),
                stream(*(frame(doc) for doc in LOG[2:])),
            ],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "completed"})],
        }
    )
    items, sleeps = await run(host)
    assert [e.sequence for e in events(items)] == [0, 1, 2, 3, 4]
    assert reply(items) == "The whole reply."
    assert not any(e.raw.get("synthesized") for e in events(items))
    assert host.to(EVENTS)[1].headers["last-event-id"] == "1"
    # One line about what happened; nothing about a malformed frame.
    [notice] = notices(items)
    assert notice.level == "info"
    assert "the host says the run is completed" in notice.message
    assert "after sequence 1" in notice.message
    assert sleeps == []


async def test_a_frame_cut_by_a_reset_connection_is_not_malformed() -> None:
    cut = frame(LOG[2])[:-10]
    host = Host(
        {
            EVENTS: [
                stream(frame(LOG[0]), frame(LOG[1]), cut, then=httpx.ReadError("reset")),
                stream(*(frame(doc) for doc in LOG[2:])),
            ],
        }
    )
    items, _ = await run(host)
    assert [e.sequence for e in events(items)] == [0, 1, 2, 3, 4]
    assert all("malformed" not in n.message for n in notices(items))


async def test_an_unterminated_last_frame_that_decodes_whole_is_kept() -> None:
    # A host that forgot the blank line after its last frame still ends its run.
    host = Host({EVENTS: [stream(frame(LOG[0]), frame(LOG[4]).rstrip("\n"))]})
    items, _ = await run(host)
    assert [e.type for e in events(items)] == ["run.started", "run.completed"]
    assert notices(items) == []


async def test_resumes_while_each_resume_brings_events_then_polls_for_the_end() -> None:
    # `messages` mode: a resume brings the missed chunks but never the run's end (the mode
    # filters it out), so after a resume that brings nothing the poll endpoint is asked.
    poll = {"events": [ev(4, "run.completed")], "lastSequence": 4, "isTerminal": True}
    host = Host(
        {
            EVENTS: [
                stream(frame(REPLY[0])),
                stream(frame(REPLY[1]), frame(REPLY[2])),
                stream(),
            ],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "completed"})],
            POLL: [json_answer(200, poll)],
        }
    )
    items, _ = await run(host, modes="messages")
    assert [e.sequence for e in events(items)] == [1, 2, 3, 4]
    assert reply(items) == "The whole reply."
    assert [r.headers["last-event-id"] for r in host.to(EVENTS)[1:]] == ["1", "3"]
    assert host.to(POLL)[0].url.params["afterSequence"] == "3"
    assert len(host.to(SNAPSHOT)) == 1  # a terminal run stays terminal: asked once


async def test_a_poll_without_the_end_says_how_many_events_are_missing() -> None:
    poll = {"events": [REPLY[1]], "lastEventSeq": 7, "runStatus": "completed"}
    host = Host(
        {
            EVENTS: [stream(frame(LOG[0]), frame(LOG[1])), stream()],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "completed"})],
            POLL: [json_answer(200, poll)],
        }
    )
    items, _ = await run(host)
    assert [e.sequence for e in events(items)[:-1]] == [0, 1, 2]
    closing = events(items)[-1]
    assert closing.raw["synthesized"] is True
    warning = notices(items)[-1]
    assert warning.level == "warning"
    assert "after sequence 2 (its poll answer has no end event)" in warning.message
    assert "Up to 5 events (sequences 3 to 7) are missing." in warning.message


async def test_a_silent_stream_is_reported_then_resumed_when_the_run_is_not_waiting() -> None:
    forever = asyncio.Event()
    host = Host(
        {
            EVENTS: [
                stream(frame(LOG[0]), then=forever.wait),
                stream(*(frame(doc) for doc in LOG[1:])),
            ],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "running"})],
        }
    )
    items, sleeps = await run(host, idle_timeout=0.01)
    assert [e.sequence for e in events(items)] == [0, 1, 2, 3, 4]
    silent, resume = notices(items)
    assert silent.message == (
        f"The event stream of run {RUN!r} has been silent for 0.01 s; checking the run."
    )
    assert resume.message.startswith("The event stream was silent for 0.01 s while the run is")
    assert "(attempt 1, trying for up to 5 min)" in resume.message
    assert host.to(EVENTS)[1].headers["last-event-id"] == "0"
    assert len(sleeps) == 1


async def test_a_silent_stream_of_a_run_waiting_for_a_human_keeps_waiting() -> None:
    answered = asyncio.Event()

    async def after_the_check() -> bytes:
        await answered.wait()
        return "".join(frame(doc) for doc in LOG[1:]).encode()

    def snapshot(request: httpx.Request) -> httpx.Response:
        answered.set()  # the human answers once the client has looked
        return httpx.Response(200, json={"runId": RUN, "status": "waiting-approval"})

    host = Host({EVENTS: [stream(frame(LOG[0]), then=after_the_check)], SNAPSHOT: [snapshot]})
    items, sleeps = await run(host, idle_timeout=0.01)
    assert [e.sequence for e in events(items)] == [0, 1, 2, 3, 4]
    assert len(host.to(EVENTS)) == 1  # the same connection, never dropped
    silent, waiting = notices(items)
    assert "has been silent for 0.01 s" in silent.message
    assert waiting.message == (
        "The run is waiting for a human (status: waiting-approval); still listening."
    )
    assert sleeps == []


def test_waiting_for_human_statuses() -> None:
    for status in ("waiting-approval", "waiting-input", "suspended", "paused", "waiting"):
        assert waiting_for_human(status)
    for status in ("running", "pending", "completed", None):
        assert not waiting_for_human(status)
