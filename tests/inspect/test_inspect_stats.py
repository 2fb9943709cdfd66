"""Run statistics (`openwop_tui.inspect.stats`): spans, attempts, tokens counted once, first
token, event rate, and the clock, on hand-built events and the recorded captures."""

from __future__ import annotations

from typing import Any

import pytest
from paths import TESTS

from openwop_tui.inspect.log import observed_entries
from openwop_tui.inspect.stats import StatsFold, stats_of
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.store.record import read_recording

CAPTURES = TESTS / "data" / "captures"


def ev(seq: int, kind: str, payload: dict[str, Any], ms: int | None, **extra: Any) -> RunEvent:
    doc: dict[str, Any] = {"eventId": f"e{seq}", "runId": "r", "type": kind, "payload": payload}
    doc["sequence"] = seq
    if ms is not None:
        doc["timestamp"] = f"2026-12-01T10:00:{ms // 1000:02d}.{ms % 1000:03d}Z"
    doc.update(extra)
    return normalize(doc)


def capture(name: str) -> list[tuple[RunEvent, float | None]]:
    entries = read_recording((CAPTURES / name).read_text()).entries
    return [(o.event, o.at) for o in observed_entries(entries) if o.event is not None]


def test_spans_attempts_and_outcomes() -> None:
    events = [
        ev(0, "run.started", {"workflowId": "w"}, 0),
        ev(1, "node.started", {"nodeId": "a", "typeId": "t", "attempt": 0}, 100, nodeId="a"),
        ev(2, "node.retried", {"nodeId": "a", "attempt": 1}, 200, nodeId="a"),
        ev(3, "node.started", {"nodeId": "a", "typeId": "t", "attempt": 1}, 250, nodeId="a"),
        ev(4, "node.completed", {"nodeId": "a"}, 600, nodeId="a"),
        ev(5, "node.failed", {"nodeId": "b", "error": {}, "durationMs": 300}, 900, nodeId="b"),
        ev(6, "run.failed", {"error": {"code": "x", "message": "y"}}, 1000),
    ]
    (run,) = stats_of((e, None) for e in events)
    a, b = run.nodes
    assert (a.node_id, a.attempts) == ("a", 2)
    assert (a.start, a.end, a.duration_ms) == pytest.approx((0.1, 0.6, 500.0), abs=1e-3)
    assert a.status == "completed"
    # No node.started (an `updates` stream): the span is the end minus the reported duration.
    assert b.status == "failed" and b.duration_ms == 300
    assert b.start == pytest.approx(0.6, abs=1e-3)
    assert run.status == "failed" and run.duration_ms == pytest.approx(1000, abs=1)
    assert run.events == 7 and run.events_per_second == pytest.approx(7.0, abs=0.01)


def test_tokens_from_provider_usage_win_over_chunk_usage() -> None:
    usage = {"promptTokens": 5, "completionTokens": 9}
    events = [
        ev(0, "run.started", {"workflowId": "w"}, 0),
        ev(
            1,
            "output.chunk",
            {"nodeId": "n", "chunk": "hi", "meta": {"model": "m1"}},
            50,
            nodeId="n",
        ),
        ev(
            2,
            "output.chunk",
            {"nodeId": "n", "chunk": "!", "meta": {"usage": usage}},
            60,
            nodeId="n",
        ),
        ev(
            3,
            "provider.usage",
            {"provider": "p", "model": "m1", "inputTokens": 5, "outputTokens": 9, "nodeId": "n"},
            70,
            nodeId="n",
        ),
        ev(
            4,
            "output.chunk",
            {"nodeId": "k", "chunk": "x", "meta": {"model": "m2", "usage": usage}},
            80,
            nodeId="k",
        ),
    ]
    (run,) = stats_of((e, None) for e in events)
    nodes = {n.node_id: n for n in run.nodes}
    assert (nodes["n"].tokens_in, nodes["n"].tokens_out) == (5, 9)  # not 10 and 18
    assert (nodes["k"].tokens_in, nodes["k"].tokens_out) == (5, 9)  # chunk usage when alone
    models = {m.model: m for m in run.models}
    assert (models["m1"].tokens_in, models["m1"].calls) == (5, 1)
    assert models["m2"].tokens_out == 9
    assert run.first_token_ms == pytest.approx(50, abs=1) and run.status == "running"


def test_arrival_times_when_events_carry_none() -> None:
    fold = StatsFold()
    fold.feed(ev(0, "run.started", {"workflowId": "w"}, None), at=10.0)
    fold.feed(ev(1, "node.started", {"nodeId": "a", "typeId": "t"}, None, nodeId="a"), at=10.5)
    fold.feed(ev(2, "node.completed", {"nodeId": "a"}, None, nodeId="a"), at=11.0)
    (run,) = fold.runs()
    assert run.clock == "arrival" and run.nodes[0].duration_ms == pytest.approx(500)


def test_each_run_of_a_log_apart() -> None:
    one = ev(0, "run.started", {"workflowId": "w"}, 0)
    two = normalize({**dict(one.raw), "runId": "other"})
    assert [r.run_id for r in stats_of([(one, None), (two, None)])] == ["r", "other"]


def test_the_chat_capture() -> None:
    (run,) = stats_of(capture("example-chat-markdown-debug.sse"))
    (node,) = run.nodes
    assert (node.node_id, node.tokens_in, node.tokens_out) == ("respond", 41, 52)
    # The host's own figure, as the run's duration uses the host's; the measured one beside it.
    assert node.duration_ms == node.reported_ms == 610
    assert node.measured_ms == pytest.approx(255, abs=1) and node.note == ""
    assert run.first_token_ms == pytest.approx(65, abs=1) and run.duration_ms == 720
    assert [(m.model, m.tokens_in, m.tokens_out) for m in run.models] == [
        ("claude-opus-4-7", 41, 52)
    ]


def test_the_postgres_capture() -> None:
    (run,) = stats_of(capture("pg-host-mock-agent-stream.sse"))
    assert [(n.node_id, n.status) for n in run.nodes] == [
        ("agent", "completed"),
        ("after", "completed"),
    ]
    assert [n.duration_ms for n in run.nodes] == pytest.approx([85, 15], abs=1)
    assert run.first_token_ms is None and run.status == "completed"


def _timed_node(duration: Any, *, started: int = 100, ended: int = 101) -> Any:
    """A run whose node the host timed at ``duration`` ms (``durationMs``), with event
    timestamps 1 ms apart around it (a host that stamps its events after the work)."""
    events = [
        ev(0, "run.started", {"workflowId": "w"}, 0),
        ev(1, "node.started", {"nodeId": "a", "typeId": "t"}, started, nodeId="a"),
        ev(2, "node.completed", {"nodeId": "a", "durationMs": duration}, ended, nodeId="a"),
        ev(3, "run.completed", {"durationMs": 130}, 130),
    ]
    (run,) = stats_of((e, None) for e in events)
    (node,) = run.nodes
    return run, node


def test_a_nodes_duration_is_the_hosts_figure_as_the_runs_is() -> None:
    """Issue 23 item 10: ``stats`` showed 1 ms (two timestamps) for a node the host timed at
    12 ms, while the run's duration took the host's figure."""
    run, node = _timed_node(12)
    assert run.duration_ms == 130
    assert node.duration_ms == 12 and node.measured_ms == pytest.approx(1, abs=1e-3)
    assert node.note == ""
    assert node.as_json()["durationMs"] == 12 and node.as_json()["measuredMs"] == 1


@pytest.mark.parametrize(
    ("given", "why"),
    [
        (-5, "the host's durationMs -5 is not a duration"),
        ("12", "the host's durationMs '12' is not a duration"),
        (True, "the host's durationMs True is not a duration"),
        (1e12, "the host's durationMs 1e+12 is absurd (over a week)"),
        # The run's last event is 30 ms after the node started: 5 s cannot have fitted.
        (5000, "the host's durationMs 5000 is longer than the run's events leave room for (30 ms)"),
    ],
)
def test_an_unusable_or_absurd_host_figure_falls_back_to_the_measured_one(
    given: Any, why: str
) -> None:
    _, node = _timed_node(given)
    assert node.duration_ms == pytest.approx(1, abs=1e-3)
    assert node.note == f"{why}; measured 1 ms instead"
    assert node.as_json()["durationNote"] == node.note


def test_an_absurd_run_duration_falls_back_to_its_timestamps() -> None:
    events = [
        ev(0, "run.started", {"workflowId": "w"}, 0),
        ev(1, "run.completed", {"durationMs": 1e15}, 2500),
    ]
    (run,) = stats_of((e, None) for e in events)
    assert run.duration_ms == pytest.approx(2500, abs=1)
