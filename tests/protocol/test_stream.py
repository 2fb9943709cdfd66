"""`subscribe`: dedupe, resume after drops, mode fallback, early close, JSON and polling."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from paths import TESTS
from scripted_host import BASE, EVENTS, POLL, RUN, SNAPSHOT, Host, Responder, ev

from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.stream import subscribe
from openwop_tui.protocol.stream_items import StreamItem, StreamNotice

CAPTURES = TESTS / "data" / "captures"
KEY = "sk-stream-key"


class Sleeps:
    """Records the backoff instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def frame(doc: Any, *, event: str | None = None, id: int | None = None) -> str:
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    name = event or (doc.get("type") if isinstance(doc, dict) else None)
    if name:
        lines.append(f"event: {name}")
    lines.append(f"data: {json.dumps(doc)}")
    return "\n".join(lines) + "\n\n"


def sse(*frames: str) -> Responder:
    body = "".join(frames).encode()
    return lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content=body
    )


class _Dropping(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body
        raise httpx.ReadError("connection reset by peer")


def sse_then_drop(*frames: str) -> Responder:
    body = "".join(frames).encode()
    return lambda request: httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=_Dropping(body)
    )


def json_answer(status: int, body: Any, headers: dict[str, str] | None = None) -> Responder:
    return lambda request: httpx.Response(status, json=body, headers=headers)


def refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused")


async def run(host: Host, **kwargs: Any) -> tuple[list[StreamItem], Sleeps]:
    sleeps = Sleeps()
    kwargs.setdefault("jitter", lambda: 0.0)  # the backoff's random share: none, unless asked
    async with HostClient(BASE, KEY, transport=httpx.MockTransport(host)) as client:
        items = [item async for item in subscribe(client, RUN, sleep=sleeps, **kwargs)]
    return items, sleeps


def events(items: list[StreamItem]) -> list[RunEvent]:
    return [i for i in items if isinstance(i, RunEvent)]


def notices(items: list[StreamItem]) -> list[StreamNotice]:
    return [i for i in items if isinstance(i, StreamNotice)]


#: The run the Python host's multi-node captures are of (served here as run `RUN`'s).
CAPTURED_RUN = "run-0b956692-1dec-4480-8d3c-08e03b85cfcf"


def captured(name: str) -> str:
    """A capture's text as the events of run `RUN` (the stream refuses another run's)."""
    return (CAPTURES / name).read_text().replace(CAPTURED_RUN, RUN)


async def test_replays_a_capture_and_stops_at_terminal() -> None:
    body = captured("python-host-multi-node.sse")
    host = Host({EVENTS: [sse(body)]})
    items, sleeps = await run(host)
    assert [e.sequence for e in events(items)] == list(range(8))
    assert events(items)[-1].type == "run.completed"
    assert notices(items) == [] and sleeps.calls == []
    request = host.requests[0]
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.url.params["streamMode"] == "updates,messages"
    assert "last-event-id" not in request.headers


async def test_dedupes_by_sequence_but_passes_unsequenced_events() -> None:
    chunk = {"nodeId": "n", "runId": RUN, "chunk": "hi", "isLast": False}
    host = Host(
        {
            EVENTS: [
                sse(
                    frame(ev(0, "run.started"), id=0),
                    frame(ev(1), id=1),
                    frame(ev(1), id=1, event="messages"),  # admitted by two modes
                    frame(chunk, event="ai.message.chunk"),  # bare chunk, no id
                    frame(ev(0, "run.started"), id=0),  # stale
                    frame(ev(2, "run.completed"), id=2),
                    frame(ev(3, "log.appended"), id=3),  # after the terminal event: ignored
                )
            ]
        }
    )
    items, _ = await run(host)
    assert [(e.type, e.sequence) for e in events(items)] == [
        ("run.started", 0),
        ("node.started", 1),
        ("output.chunk", None),
        ("run.completed", 2),
    ]


async def test_batch_without_id_advances_the_highest_sequence() -> None:
    batch = [
        {
            "seq": 0,
            "sequence": 0,
            "runId": RUN,
            "type": "run.started",
            "data": None,
            "payload": None,
        },
        {
            "seq": 1,
            "sequence": 1,
            "runId": RUN,
            "type": "node.started",
            "data": None,
            "payload": None,
        },
    ]
    host = Host(
        {
            EVENTS: [
                sse(
                    frame(batch, event="batch"),
                    frame(ev(1), id=1),
                    frame([ev(2, "run.completed")], event="batch"),
                )
            ]
        }
    )
    items, _ = await run(host)
    assert [e.sequence for e in events(items)] == [0, 1, 2]


async def test_reconnects_with_last_event_id_after_a_mid_stream_drop() -> None:
    first = [frame(ev(i), id=i) for i in range(4)]
    second = [frame(ev(i), id=i) for i in range(2, 7)] + [frame(ev(7, "run.completed"), id=7)]
    host = Host({EVENTS: [sse_then_drop("retry: 1500\n\n", *first), sse(*second)]})
    items, sleeps = await run(host)
    assert [e.sequence for e in events(items)] == list(range(8))
    assert host.to(EVENTS)[1].headers["last-event-id"] == "3"
    assert sleeps.calls == [1.5]  # the host's `retry:`
    [notice] = notices(items)
    assert notice.level == "info"
    assert "connection reset by peer" in notice.message
    assert "Reconnecting in 1.5 s after sequence 3 (attempt 1, trying for up to 5 min)" in (
        notice.message
    )


async def test_initial_last_event_id_is_sent_and_used_for_dedupe() -> None:
    body = captured("python-host-multi-node.sse")
    host = Host({EVENTS: [sse(body)]})
    items, _ = await run(host, last_event_id=4)
    assert host.requests[0].headers["last-event-id"] == "4"
    assert [e.sequence for e in events(items)] == [5, 6, 7]


async def test_retryable_statuses_honour_retry_after() -> None:
    host = Host(
        {
            EVENTS: [
                json_answer(503, {"error": "runner_unavailable"}, {"Retry-After": "2"}),
                json_answer(429, {"error": "rate_limited"}, {"Retry-After": "60"}),
                sse(frame(ev(0, "run.completed"), id=0)),
            ]
        }
    )
    items, sleeps = await run(host)
    assert sleeps.calls == [2.0, 60.0]  # Retry-After honoured (within the reconnect budget)
    assert [e.type for e in events(items)] == ["run.completed"]
    assert len(notices(items)) == 2


async def test_backoff_grows_without_retry_hint() -> None:
    host = Host({EVENTS: [refuse, refuse, refuse, sse(frame(ev(0, "run.completed"), id=0))]})
    items, sleeps = await run(host)
    assert sleeps.calls == [0.5, 1.0, 2.0]
    assert "connection refused" in notices(items)[0].message


async def test_backoff_without_retry_after_is_jittered_upwards() -> None:
    """Clients cut off by one outage must not all come back in the same instant: each step is
    lengthened by a random share of up to a quarter, never shortened."""
    answers = [refuse] * 5 + [sse(frame(ev(0, "run.completed"), id=0))]
    _, longest = await run(Host({EVENTS: list(answers)}), jitter=lambda: 0.999)
    # A quarter more at most, rounded up to the tenth of a second the notice shows.
    assert longest.calls == [0.7, 1.3, 2.5, 5.0, 10.0]
    _, some = await run(
        Host({EVENTS: list(answers)}), jitter=iter([0.2, 0.9, 0.5, 0, 0.4]).__next__
    )
    assert some.calls == [0.6, 1.3, 2.3, 4.0, 8.8]


async def test_a_huge_retry_after_is_capped_and_the_notice_says_so() -> None:
    """A host asking for 10^9 s (or an HTTP-date years ahead) must not freeze the stream: the
    wait is capped at a minute, and the notice says what the host asked and what is done."""
    host = Host(
        {
            EVENTS: [
                json_answer(503, {"error": "runner_unavailable"}, {"Retry-After": "1000000000"}),
                json_answer(503, {"error": "runner_unavailable"}, {"Retry-After": "0"}),
                sse(frame(ev(0, "run.completed"), id=0)),
            ]
        }
    )
    items, sleeps = await run(host)
    assert sleeps.calls == [60.0, 0.5]  # capped; a 0 is not a hot loop
    first, second = (n.message for n in notices(items))
    assert "retry after 31 years" in first
    assert first.endswith(
        "Reconnecting in 1 min (the host asked to wait 31 years; 1 min is the longest this "
        "client waits; attempt 1, trying for up to 5 min)."
    )
    assert second.endswith("Reconnecting in 0.5 s (attempt 2, trying for up to 5 min).")


async def test_gives_up_after_max_reconnects() -> None:
    host = Host({EVENTS: [refuse] * 3})
    with pytest.raises(HostError) as caught:
        await run(host, max_reconnects=2)
    assert caught.value.code == "connection_refused"
    assert caught.value.message == (
        f"Cannot reach {BASE} — connection refused. Is the host running? "
        f"Gave up on run {RUN} after 2 reconnect attempts; the run may still be going at the "
        f"host. Follow it again with: openwop-tui attach {RUN} --host {BASE} "
        '--api-key "$OPENWOP_API_KEY"'
    )


@pytest.mark.parametrize(
    ("status", "code"), [(401, "unauthorized"), (403, "forbidden"), (404, "run_not_found")]
)
async def test_fatal_statuses_raise_at_once(status: int, code: str) -> None:
    host = Host({EVENTS: [json_answer(status, {"error": code, "message": "no"})]})
    with pytest.raises(HostError) as caught:
        await run(host)
    assert (caught.value.status, caught.value.code) == (status, code)
    assert len(host.requests) == 1


async def test_unsupported_stream_mode_falls_back_to_supported_subset() -> None:
    error = {
        "error": "unsupported_stream_mode",
        "message": "Unknown streamMode value(s): messages.",
        "details": {"supported": ["debug", "updates", "values"]},
    }
    host = Host({EVENTS: [json_answer(400, error), sse(frame(ev(0, "run.completed"), id=0))]})
    items, sleeps = await run(host)
    assert [r.url.params.get("streamMode") for r in host.requests] == [
        "updates,messages",
        "updates",
    ]
    [notice] = notices(items)
    assert notice.level == "warning"
    assert "'updates,messages'" in notice.message and "continuing with 'updates'" in notice.message
    assert "not token by token" in notice.message
    assert sleeps.calls == []


async def test_unsupported_updates_falls_back_to_host_default_then_gives_up() -> None:
    error = {"error": "unsupported_stream_mode", "details": {}}
    host = Host({EVENTS: [json_answer(400, error), json_answer(400, error)]})
    with pytest.raises(HostError) as caught:
        await run(host, modes="updates")
    assert caught.value.code == "unsupported_stream_mode"
    assert [r.url.params.get("streamMode") for r in host.requests] == ["updates", None]


async def test_empty_body_close_resumes_then_polls_for_the_missed_events() -> None:
    # The Python host answers `messages` on a chunkless run with an empty 200 (captured): the
    # run's events, its end included, are still owed, and the poll endpoint gives them back.
    assert (CAPTURES / "python-host-noop-messages.sse").read_text() == ""
    snapshot = {"runId": RUN, "status": "completed", "outputs": {"answer": 42}}
    poll_body = {"events": [ev(0, "run.started"), ev(1, "run.completed")], "isTerminal": True}
    host = Host(
        {
            EVENTS: [sse(""), sse("")],
            SNAPSHOT: [json_answer(200, snapshot)],
            POLL: [json_answer(200, poll_body)],
        }
    )
    items, sleeps = await run(host, modes="messages")
    [notice] = notices(items)
    assert notice.message == (
        "The event stream closed before the run's end; the host says the run is completed. "
        "Reading the events missed after sequence the start."
    )
    assert [(e.type, e.raw.get("synthesized")) for e in events(items)] == [
        ("run.started", None),
        ("run.completed", None),
    ]
    assert host.to(POLL)[0].url.params["afterSequence"] == "-1"
    assert sleeps.calls == []  # the host is up and the run is over: no backoff


async def test_snapshot_ends_the_run_only_when_the_host_cannot_give_events_back() -> None:
    snapshot = {"runId": RUN, "status": "completed", "outputs": {"answer": 42}}
    host = Host(
        {
            EVENTS: [sse(""), sse("")],
            SNAPSHOT: [json_answer(200, snapshot)],
            POLL: [json_answer(404, {"error": "not_found", "message": "no such route"})],
        }
    )
    items, _ = await run(host, modes="messages")
    _, warning, closing = items
    assert isinstance(warning, StreamNotice) and warning.level == "warning"
    assert "did not give back the events after sequence the start" in warning.message
    assert "How many events are missing is unknown" in warning.message
    assert isinstance(closing, RunEvent)
    assert closing.type == "run.completed" and closing.is_terminal
    assert closing.payload == {"outputs": {"answer": 42}}
    assert closing.raw["synthesized"] is True
    assert closing.sequence is None


async def test_early_close_on_failed_run_carries_the_error() -> None:
    snapshot = {"runId": RUN, "status": "failed", "error": {"code": "boom", "message": "it broke"}}
    host = Host(
        {
            EVENTS: [sse(frame(ev(0, "run.started"), id=0)), sse("")],
            SNAPSHOT: [json_answer(200, snapshot)],
            POLL: [json_answer(200, {"events": [], "lastSequence": 3, "isTerminal": True})],
        }
    )
    items, _ = await run(host)
    closing = events(items)[-1]
    assert closing.type == "run.failed"
    assert closing.payload["error"]["code"] == "boom"
    assert "Up to 3 events (sequences 1 to 3) are missing." in notices(items)[-1].message


async def test_early_close_on_running_run_reconnects() -> None:
    host = Host(
        {
            EVENTS: [
                sse(frame(ev(0, "run.started"), id=0)),
                sse(frame(ev(1, "run.completed"), id=1)),
            ],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "running"})],
        }
    )
    items, sleeps = await run(host)
    assert [e.sequence for e in events(items)] == [0, 1]
    assert host.to(EVENTS)[1].headers["last-event-id"] == "0"
    assert "closed while the run is running" in notices(items)[0].message
    assert len(sleeps.calls) == 1


async def test_snapshot_404_after_close_raises() -> None:
    host = Host({EVENTS: [sse("")], SNAPSHOT: [json_answer(404, {"error": "run_not_found"})]})
    with pytest.raises(HostError) as caught:
        await run(host)
    assert caught.value.status == 404


async def test_json_instead_of_sse_then_poll_until_terminal() -> None:
    poll_body = json.loads(captured("python-host-multi-node-poll.json"))
    listed = {"events": poll_body["events"][:3]}
    rest = dict(poll_body, events=poll_body["events"][3:])
    host = Host(
        {
            EVENTS: [json_answer(200, listed)],
            POLL: [json_answer(200, {"events": [], "isTerminal": False}), json_answer(200, rest)],
        }
    )
    items, sleeps = await run(host)
    assert [e.sequence for e in events(items)] == list(range(8))
    assert notices(items)[0].message.startswith("The host answered with JSON")
    polls = host.to(POLL)
    assert polls[0].url.params["afterSequence"] == "2"
    assert polls[0].url.params["lastSequence"] == "2"
    assert sleeps.calls == [1.0]  # the empty poll: a pause, not a hot loop


async def test_poll_terminal_without_terminal_event_synthesizes_one() -> None:
    host = Host(
        {
            EVENTS: [json_answer(200, {"events": [ev(0, "run.started")]})],
            POLL: [json_answer(200, {"events": [], "isTerminal": True, "runStatus": "cancelled"})],
            SNAPSHOT: [json_answer(200, {"runId": RUN, "status": "cancelled"})],
        }
    )
    items, _ = await run(host)
    assert [e.type for e in events(items)] == ["run.started", "run.cancelled"]
    assert events(items)[-1].raw["synthesized"] is True


async def test_malformed_frames_become_warnings_and_the_stream_goes_on() -> None:
    bad = 'id: 1\nevent: node.completed\ndata: {"type": "node.completed", "sequence": 1,,}\n\n'
    host = Host(
        {
            EVENTS: [
                sse(frame(ev(0), id=0), bad, "data: 42\n\n", frame(ev(2, "run.completed"), id=2))
            ]
        }
    )
    items, _ = await run(host)
    assert [e.sequence for e in events(items)] == [0, 2]
    first, second = notices(items)
    assert first.level == "warning"
    assert 'frame id 1 (event "node.completed"): data is not valid JSON' in first.message
    assert first.raw == '{"type": "node.completed", "sequence": 1,,}'
    assert "data is a number" in second.message


async def test_values_mode_terminal_snapshot_ends_the_stream() -> None:
    host = Host(
        {
            EVENTS: [
                sse(
                    frame({"runId": RUN, "status": "running"}, event="state.snapshot", id=0),
                    frame({"runId": RUN, "status": "completed"}, event="state.snapshot", id=1),
                )
            ]
        }
    )
    items, _ = await run(host, modes="values")
    assert [e.type for e in events(items)] == ["state.snapshot", "state.snapshot", "run.completed"]


async def test_unknown_event_types_pass_through() -> None:
    host = Host(
        {
            EVENTS: [
                sse(frame(ev(0, "vendor.acme.thing"), id=0), frame(ev(1, "run.completed"), id=1))
            ]
        }
    )
    items, _ = await run(host)
    assert [e.type for e in events(items)] == ["vendor.acme.thing", "run.completed"]
