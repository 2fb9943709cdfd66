"""Reconnects are budgeted in time, with backoff, and the last word names the run and how to
attach (issue 14 item 1, the reconnect part).

Measured before: eight 503s in a row gave "Gave up after 5 reconnect attempts" after about 5 s,
with 0 of the run's events shown while it completed at the host. Here the demo host answers
the first N events requests of a run with 503 (``--status 503 --status-times N``, Retry-After
1) over real loopback HTTP; the clock is one the recorded sleeps move, so a five-minute budget
is spent without waiting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from test_faults import MESSAGE, REPLY, events, expected, notices, reply_of

from openwop_tui.__main__ import main
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.reconnect import (
    MAX_DELAY,
    MAX_RETRY_AFTER,
    MIN_RETRY_AFTER,
    Reconnects,
    attach_command,
)
from openwop_tui.protocol.stream import subscribe
from openwop_tui.protocol.stream_items import StreamItem


class FakeTime:
    """A clock that only the backoff's sleeps move."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


async def follow(
    host: DemoHost, **kwargs: Any
) -> tuple[str, list[StreamItem], list[Any], FakeTime]:
    time = FakeTime()
    async with HostClient(host.url, host.api_key) as client:
        handle = await client.create_run(
            "demo.chat", {"messages": [{"role": "user", "content": MESSAGE}]}
        )
        items: list[StreamItem] = []
        try:
            async for item in subscribe(
                client, handle.run_id, sleep=time.sleep, clock=time.clock, **kwargs
            ):
                items.append(item)
        finally:
            log = (await client.poll_events(handle.run_id, None, timeout=0))["events"]
    return handle.run_id, items, log, time


async def test_eight_503s_in_a_row_lose_nothing() -> None:
    with DemoHost(pace=0, status=503, status_times=8) as host:
        _, items, log, time = await follow(host)
    assert [e.raw["eventId"] for e in events(items)] == expected(log, "updates,messages")
    assert reply_of(items) == REPLY
    # The host's Retry-After: 1, honoured each time: the storm is over after 8 s, not 92 s
    # (doubling on top of it waited 1, 1, 2, 4, 8, 16, 30, 30).
    assert time.sleeps == [1.0] * 8
    said = [n.message for n in notices(items)]
    assert len(said) == 8 and all("HTTP 503" in m or "503" in m for m in said)
    assert said[0].endswith("Reconnecting in 1 s (attempt 1, trying for up to 5 min).")


async def test_a_host_down_for_good_gives_up_after_the_budget_naming_run_and_attach() -> None:
    with DemoHost(pace=0, status=503, status_times=10_000) as host:
        with pytest.raises(HostError) as caught:
            await follow(host)
        url = host.url
    message = caught.value.message
    run_id = message.split("Gave up on run ", 1)[1].split(" ", 1)[0]
    assert run_id.startswith("run")
    assert f'openwop-tui attach {run_id} --host {url} --api-key "$OPENWOP_API_KEY"' in message
    assert "the run may still be going at the host" in message
    assert "503" in message


async def test_the_budget_is_time_not_a_count() -> None:
    with DemoHost(pace=0, status=503, status_times=10_000) as host:
        time = FakeTime()
        async with HostClient(host.url, host.api_key) as client:
            handle = await client.create_run("conformance-noop", {})
            with pytest.raises(HostError) as caught:
                async for _ in subscribe(
                    client,
                    handle.run_id,
                    sleep=time.sleep,
                    clock=time.clock,
                    reconnect_budget=20,
                ):
                    pass
    # Retry-After: 1 each time: 20 tries a second apart, then the budget is spent.
    assert time.sleeps == [1.0] * 20
    assert "after 20 reconnect attempts over 20 s" in caught.value.message


def test_without_retry_after_the_backoff_doubles_to_its_cap_and_spends_the_budget() -> None:
    time = FakeTime()
    budget = Reconnects(120, time.clock, jitter=lambda: 0.0)
    while (delay := budget.next_delay(None, None)) is not None:
        time.now += delay
        time.sleeps.append(delay)
    # 0.5+1+2+4+8+16+30+30 = 91.5 s waited; one more 30 s step would pass 120 s.
    assert time.sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert sum(time.sleeps) <= 120 < sum(time.sleeps) + MAX_DELAY


def test_retry_after_is_the_wait_clamped_and_one_beyond_the_budget_ends_it_at_once() -> None:
    clock = [0.0]
    budget = Reconnects(300, lambda: clock[0], jitter=lambda: 0.0)
    assert budget.next_delay(None, 45) == 45  # what the host asked, not doubled
    assert budget.note == ""
    clock[0] += 45
    assert budget.next_delay(2000, None) == 4.0  # no Retry-After: the host's retry: 2 s, doubled
    clock[0] += 4
    assert budget.next_delay(4000, 1) == 1.0  # a Retry-After wins over the backoff
    clock[0] += 1
    assert budget.next_delay(None, 1e9) == MAX_RETRY_AFTER  # capped, and said
    assert budget.note == "the host asked to wait 31 years; 1 min is the longest this client waits"
    assert budget.describe().startswith(budget.note + "; attempt 4, ")
    clock[0] += 60
    assert budget.next_delay(None, 0) == MIN_RETRY_AFTER  # not a hot loop
    assert budget.note == ""
    clock[0] = 270
    assert budget.next_delay(None, 45) is None  # more than the 30 s left
    error = budget.gave_up(
        HostError("Busy."), "run-9", attach_command("http://h", "run-9", keyed=False)
    )
    assert error.message == (
        "Busy. Gave up on run run-9 after 5 reconnect attempts over 4 min 30 s (the host asked "
        "to wait 45 s, more than the 30 s left); the run may still be going at the host. Follow "
        "it again with: openwop-tui attach run-9 --host http://h"
    )
    budget.reset()
    assert budget.next_delay(None, None) == 0.5  # new events: a fresh streak
    assert budget.next_delay(None, float("nan")) == 1.0  # NaN is no answer: the backoff


def test_a_long_streak_does_not_overflow_the_backoff() -> None:
    budget = Reconnects(float(10**9), lambda: 0.0, jitter=lambda: 0.0)
    for _ in range(2000):
        budget.next_delay(None, 1)
    assert budget.next_delay(None, None) == MAX_DELAY


async def test_after_some_events_the_command_says_where_to_go_on_from() -> None:
    from test_stream import EVENTS, Host, ev, frame, refuse, sse_then_drop

    host = Host({EVENTS: [sse_then_drop(*[frame(ev(i), id=i) for i in range(3)]), refuse]})
    time = FakeTime()
    transport = httpx.MockTransport(host)
    async with HostClient("http://127.0.0.1:8765", None, transport=transport) as client:
        with pytest.raises(HostError) as caught:
            async for _ in subscribe(
                client, "run-1", sleep=time.sleep, clock=time.clock, reconnect_budget=1
            ):
                pass
    assert caught.value.message.endswith(
        "Follow it again with: openwop-tui attach run-1 --host http://127.0.0.1:8765 "
        "(add --from 3 to skip the events already shown)"
    )


def test_a_budget_of_zero_never_reconnects() -> None:
    assert Reconnects(0, lambda: 0.0).next_delay(None, None) is None
    assert Reconnects(float("nan"), lambda: 0.0).next_delay(None, None) is None


def test_attach_gives_up_at_once_with_a_zero_budget_and_says_how_to_attach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config" / "openwop-tui"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("reconnect_minutes = 0\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    with DemoHost(pace=0, status=503, status_times=10_000) as host:
        auth = {"Authorization": f"Bearer {host.api_key}"}
        created = httpx.post(
            f"{host.url}/v1/runs", json={"workflowId": "conformance-noop"}, headers=auth
        )
        run_id = created.json()["runId"]
        code = main(["attach", run_id, "--host", host.url, "--api-key", host.api_key])
        url = host.url
    err = capsys.readouterr().err
    assert code == 2
    assert f"Gave up on run {run_id} after 0 reconnect attempts" in err
    assert f'openwop-tui attach {run_id} --host {url} --api-key "$OPENWOP_API_KEY"' in err


def test_the_demo_hosts_status_fault_counts_per_run() -> None:
    from openwop_tui.demo_host.faults import Faults

    faults = Faults(status=503, status_times=2)
    assert [faults.take_status("a") is not None for _ in range(3)] == [True, True, False]
    assert faults.take_status("b") is not None  # each run its own count
    assert faults.describe() == "answers each run's first 2 events requests with 503"
    with pytest.raises(ValueError, match="status_times must be >= 0"):
        Faults(status=503, status_times=-1)
