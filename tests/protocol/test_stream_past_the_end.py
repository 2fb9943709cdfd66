"""Asked to begin past a finished run's end (``attach RUN --from 99`` of a run of 8), the stream
says how many events the run really has, that the start asked for is past them, and how to see
them (issue 23 item 10).

Measured before: "Run … has 99 events (sequences 0 to 98)" of a run of 8, because the Python
and SQLite reference hosts answer an empty poll with the cursor they were given as their last
sequence (``lastEventSeq: events[-1].seq if events else cursor``, in their source). The host
here answers polls as they do, over an `httpx.MockTransport`.
"""

from __future__ import annotations

from typing import Any

import httpx
from test_stream import BASE, EVENTS, POLL, RUN, SNAPSHOT, Host, ev, json_answer, sse
from test_stream import notices as notices_of
from test_stream import run as follow

from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.stream import subscribe

COMPLETED = {"runId": RUN, "status": "completed"}


class EchoingPolls:
    """Polls answered like the Python reference host: every event after the cursor, and as
    ``lastEventSeq`` the last one's sequence, or the cursor itself when there is none."""

    def __init__(self, count: int) -> None:
        self.log = [
            ev(i, "run.completed" if i == count - 1 else "node.started") for i in range(count)
        ]
        self.cursors: list[int] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        cursor = int(request.url.params.get("lastSequence", "-1"))
        self.cursors.append(cursor)
        events = [e for e in self.log if e["sequence"] > cursor]
        last = events[-1]["sequence"] if events else cursor
        body = {"runId": RUN, "events": events, "lastEventSeq": last, "runStatus": "completed"}
        return httpx.Response(200, json=body)


def past_the_end(polls: Any) -> Host:
    return Host(
        {
            EVENTS: [sse(""), sse("")],  # a finished run: nothing after the cursor
            SNAPSHOT: [json_answer(200, COMPLETED)],
            POLL: [polls] * 80,
        }
    )


async def test_a_host_echoing_the_cursor_is_not_taken_for_the_runs_length() -> None:
    polls = EchoingPolls(8)
    items, _ = await follow(past_the_end(polls), last_event_id=98)
    [notice] = notices_of(items)
    assert notice.message.startswith(
        "Run run-1 has 8 events (sequences 0 to 7), so sequence 99 is past its end. "
        "The run is completed. See its events with: openwop-tui attach run-1 --host "
        f'{BASE} --api-key "$OPENWOP_API_KEY" (with --from N, N up to 7, to begin part way)'
    )
    assert "99 events" not in notice.message
    # Halving the cursor until an answer holds events: a few polls, never the whole log at once.
    assert polls.cursors == [98, 49, 24, 12, 6]


async def test_a_run_with_no_events_at_all() -> None:
    items, _ = await follow(past_the_end(EchoingPolls(0)), last_event_id=5)
    [notice] = notices_of(items)
    assert notice.message == (
        "Run run-1 has no events at all, so sequence 6 is past its end. The run is completed."
    )


async def test_a_host_that_will_not_say_is_not_given_a_count() -> None:
    """An empty poll answer with no last sequence, then polls refused: no count is made up."""
    host = past_the_end(json_answer(200, {"runId": RUN, "events": []}))
    host.script[POLL][1:] = [json_answer(501, {"error": "not_implemented"})]
    items, _ = await follow(host, last_event_id=98)
    [notice] = notices_of(items)
    assert notice.message.startswith(
        "Run run-1 has no events from sequence 99 on (its host does not say how many). "
        "The run is completed. See its events with: openwop-tui attach run-1"
    )


async def test_a_host_that_tells_its_last_sequence_is_read_without_probing() -> None:
    def spec(request: httpx.Request) -> httpx.Response:
        body = {"runId": RUN, "events": [], "lastSequence": 3, "isTerminal": True}
        return httpx.Response(200, json=body)

    host = past_the_end(spec)
    async with HostClient(BASE, None, transport=httpx.MockTransport(host)) as client:
        items = [item async for item in subscribe(client, RUN, last_event_id=98)]
    [notice] = notices_of(items)
    assert notice.message.startswith("Run run-1 has 4 events (sequences 0 to 3), so sequence 99")
    assert "--api-key" not in notice.message  # no key given, none to pass
    assert len(host.to(POLL)) == 1
