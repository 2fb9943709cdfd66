"""Faults over real loopback HTTP: the demo host misbehaves (`--drop-every`, `--garbage-every`,
`--stall-ms`, `--status`) and `subscribe` must lose nothing and say what is happening.

With ``pace=0`` every run is over before its stream is opened, so each test is also the case
the issue measured: a run that ends while the client is disconnected. The backoff does not
wait (``sleep`` records), so nothing here depends on timing except the idle-timeout tests,
whose margins are wide.
"""

from __future__ import annotations

from typing import Any

import pytest

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.chat import compose_reply, detect
from openwop_tui.demo_host.sse import admitted, parse_modes
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.stream import subscribe
from openwop_tui.protocol.stream_items import StreamItem, StreamNotice

MESSAGE = "show me code and a card"
REPLY = compose_reply(MESSAGE, detect(MESSAGE))


async def stream_run(
    host: DemoHost, modes: str = "updates,messages", **kwargs: Any
) -> tuple[list[StreamItem], list[dict[str, Any]], list[float]]:
    """Start a ``demo.chat`` run, subscribe to it; return the items, the host's whole log (read
    over HTTP) and the backoff pauses asked for."""
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async with HostClient(host.url, host.api_key) as client:
        handle = await client.create_run(
            "demo.chat", {"messages": [{"role": "user", "content": MESSAGE}]}
        )
        items = [
            item
            async for item in subscribe(client, handle.run_id, modes=modes, sleep=sleep, **kwargs)
        ]
        log = await client.poll_events(handle.run_id, None, timeout=0)
    return items, log["events"], sleeps


def events(items: list[StreamItem]) -> list[RunEvent]:
    return [i for i in items if isinstance(i, RunEvent)]


def notices(items: list[StreamItem]) -> list[StreamNotice]:
    return [i for i in items if isinstance(i, StreamNotice)]


def reply_of(items: list[StreamItem]) -> str:
    return "".join(
        e.payload["chunk"]
        for e in events(items)
        if e.type == "output.chunk" and e.payload.get("nodeId") == "reply"
    )


def expected(log: list[dict[str, Any]], modes: str) -> list[str]:
    """The event ids the stream modes admit, in log order."""
    wanted = parse_modes([modes])
    return [doc["eventId"] for doc in log if admitted(doc, wanted)]


@pytest.mark.parametrize("modes", ["updates,messages", "debug"])
async def test_dropped_streams_deliver_every_event_exactly_once(modes: str) -> None:
    with DemoHost(pace=0, drop_every=3) as host:
        items, log, _ = await stream_run(host, modes)
    got = events(items)
    assert [e.raw["eventId"] for e in got] == expected(log, modes)
    assert got[-1].type == "run.completed" and not got[-1].raw.get("synthesized")
    assert reply_of(items) == REPLY
    # Each drop cut a frame in half: that is a disconnect, not a malformed frame.
    assert [n for n in notices(items) if n.level != "info"] == []
    assert all("malformed" not in n.message for n in notices(items))
    assert len(log) > 3 * 3  # the host really dropped the stream several times


async def test_garbage_frames_are_a_warning_each_and_the_run_goes_on() -> None:
    with DemoHost(pace=0, garbage_every=4) as host:
        items, log, _ = await stream_run(host)
    wanted = expected(log, "updates,messages")
    assert [e.raw["eventId"] for e in events(items)] == wanted
    warnings = [n for n in notices(items) if n.level == "warning"]
    # One after every 4th frame, except after the terminal one: the client has stopped reading.
    assert len(warnings) == (len(wanted) - 1) // 4
    assert all(n.message.startswith("Skipped a malformed frame") for n in warnings)
    assert all(n.raw is not None and "injected" in n.raw for n in warnings)
    assert reply_of(items) == REPLY


async def test_drops_and_garbage_together_lose_nothing() -> None:
    with DemoHost(pace=0, drop_every=5, garbage_every=2) as host:
        items, log, _ = await stream_run(host, "debug")
    assert [e.raw["eventId"] for e in events(items)] == expected(log, "debug")
    assert reply_of(items) == REPLY


@pytest.mark.parametrize(("status", "pause"), [(503, 1.0), (429, 1.0), (500, 0.5)])
async def test_an_error_status_on_the_first_request_recovers(status: int, pause: float) -> None:
    with DemoHost(pace=0, status=status) as host:
        items, log, sleeps = await stream_run(host, jitter=lambda: 0.0)
    assert [e.raw["eventId"] for e in events(items)] == expected(log, "updates,messages")
    assert sleeps == [pause]  # Retry-After: 1 where it was sent, else the first backoff step
    [notice] = notices(items)
    assert f"HTTP {status}" in notice.message or str(status) in notice.message
    assert "Reconnecting" in notice.message


async def test_a_stall_without_keepalives_is_reported_and_nothing_is_lost() -> None:
    with DemoHost(pace=0, keepalive=0, stall_ms=400) as host:
        items, log, _ = await stream_run(host, "updates", idle_timeout=0.05)
    got = events(items)
    # Each silent resume stalls too, so the rest comes from the poll endpoint, which does not
    # filter by stream mode: every event the mode admits, none twice, the host's own end.
    sequences = [e.sequence for e in got]
    assert sequences == sorted(set(sequences))
    assert set(expected(log, "updates")) <= {e.raw["eventId"] for e in got}
    assert got[-1].type == "run.completed" and not got[-1].raw.get("synthesized")
    assert any("has been silent for 0.05 s" in n.message for n in notices(items))


async def test_keepalives_during_a_stall_count_as_life() -> None:
    # Each frame is held back twice the idle timeout, with a keep-alive every fifth of it.
    with DemoHost(pace=0, keepalive=0.02, stall_ms=200) as host:
        items, log, _ = await stream_run(host, "updates", idle_timeout=0.1)
    assert [e.raw["eventId"] for e in events(items)] == expected(log, "updates")
    assert notices(items) == []


async def test_the_injected_status_is_answered_once_per_run() -> None:
    with DemoHost(pace=0, status=503) as host:
        async with HostClient(host.url, host.api_key) as client:
            handle = await client.create_run("demo.chat", {})
            url = client.events_url(handle.run_id)
            headers = client.request_headers()
            first = await client.http.get(url, headers=headers)
            second = await client.http.get(url, headers=headers)
    assert first.status_code == 503 and first.headers["retry-after"] == "1"
    assert first.json()["error"] == "runner_unavailable"
    assert second.status_code == 200


def test_fault_values_are_checked() -> None:
    with pytest.raises(ValueError, match="drop_every"):
        DemoHost(drop_every=-1)
    with pytest.raises(ValueError, match="error status"):
        DemoHost(status=200)


def test_run_idle_timeout_flag_reports_a_silent_stream(capsys: pytest.CaptureFixture[str]) -> None:
    from openwop_tui.__main__ import main

    with DemoHost(pace=0, keepalive=0, stall_ms=400) as host:
        flags = ["--host", host.url, "--api-key", host.api_key, "--no-audio"]
        code = main(["run", "demo.chat", "--message", MESSAGE, *flags, "--idle-timeout", "0.05"])
    out = capsys.readouterr().out
    assert code == 0
    assert "has been silent for 0.05 s" in out
    assert "Coming right up" in out


@pytest.mark.parametrize("value", ["-1", "soon", "nan"])
def test_run_idle_timeout_must_be_seconds(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from openwop_tui.cli.parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "demo.chat", "--idle-timeout", value])
    assert "--idle-timeout" in capsys.readouterr().err
