"""Run statistics: where a run's time and tokens went, as a fold over its events.

`StatsFold` is fed events (live or from a log; each run of a multi-run log apart, by ``runId``)
and `runs` gives a `RunStats` per run: a per-node timeline (start, end, duration, attempts,
outcome), tokens in and out per node and per model, time to first token, the event rate and the
run's duration.

Where the numbers come from, in order of trust:

* times: each event's ``timestamp`` (RFC 3339); for hosts that send none, the time it arrived
  (``at``: a recording's ``: at`` offset), never a mix of the two in one run;
* a node's duration: the ``durationMs`` the host put on its end event, as the run's own
  duration uses the host's figure (a host timing its node at 12 ms is right, where two
  event timestamps a millisecond apart are not); else, or when that figure is not a usable
  number or is absurd (longer than `MAX_REPORTED_MS`, or than the run's timestamps leave room
  for), the span measured from ``node.started`` to its ``node.completed`` / ``failed`` /
  ``skipped`` / ``cancelled``, and `NodeTiming.note` says why the host's figure was set aside;
* a node's place on the timeline: those two events; when the stream mode filtered
  ``node.started`` out (``updates``), the end minus the host's duration;
* tokens: ``provider.usage`` (``inputTokens`` / ``outputTokens``, with its ``provider`` and
  ``model``); for a node with none, the ``usage`` of its ``output.chunk`` meta
  (``promptTokens`` / ``completionTokens``), counted once per node, never both;
* run duration: ``durationMs`` of the terminal event (under `MAX_REPORTED_MS`), else its time
  minus the run's start.

Pure: no I/O, no Rich, no Textual. Host numbers are already clamped (`normalize`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openwop_tui.protocol.events import CHUNK_TYPES, RunEvent, chunk_text

#: Longest duration taken from a host (a week): past it the figure is absurd, not a timing.
MAX_REPORTED_MS = 7 * 24 * 3600 * 1000.0
#: How far a host's node duration may exceed the room the run's timestamps leave for it:
#: timestamps are often cut to the millisecond or second, and taken after the work.
CLOCK_SLACK_MS = 1000.0

_NODE_ENDS = {
    "node.completed": "completed",
    "node.failed": "failed",
    "node.skipped": "skipped",
    "node.cancelled": "cancelled",
}


@dataclass(frozen=True, slots=True)
class NodeTiming:
    """One node of a run: when it ran, how often, how it ended, what it spent."""

    node_id: str
    start: float | None
    """Seconds since the run started (``None``: unknown)."""
    end: float | None
    duration_ms: float | None
    """The host's ``durationMs`` when usable, else measured on the run's clock."""
    attempts: int
    status: str
    """``running``, ``suspended``, ``completed``, ``failed``, ``skipped`` or ``cancelled``."""
    tokens_in: int
    tokens_out: int
    reported_ms: float | None = None
    """The ``durationMs`` the host put on the node's end event, when it did (and it is a
    usable number)."""
    measured_ms: float | None = None
    """The span between the node's start and end events, on the run's clock."""
    note: str = ""
    """Why the host's ``durationMs`` is not the duration shown, when it is not: ``the host's
    figure (…) is not a duration``, ``the host's 3.2e+12 ms is absurd``. Empty otherwise."""

    def as_json(self) -> dict[str, Any]:
        """The node as a ``stats --json`` object."""
        return {
            "nodeId": self.node_id,
            "start": _round(self.start),
            "end": _round(self.end),
            "durationMs": _round(self.duration_ms),
            "reportedMs": _round(self.reported_ms),
            "measuredMs": _round(self.measured_ms),
            "durationNote": self.note or None,
            "attempts": self.attempts,
            "status": self.status,
            "tokensIn": self.tokens_in,
            "tokensOut": self.tokens_out,
        }


@dataclass(frozen=True, slots=True)
class ModelUsage:
    """Tokens spent with one provider's model, across the run."""

    provider: str
    model: str
    tokens_in: int
    tokens_out: int
    calls: int

    def as_json(self) -> dict[str, Any]:
        """The model's usage as a ``stats --json`` object."""
        return {
            "provider": self.provider,
            "model": self.model,
            "tokensIn": self.tokens_in,
            "tokensOut": self.tokens_out,
            "calls": self.calls,
        }


@dataclass(frozen=True, slots=True)
class RunStats:
    """Where one run's time and tokens went."""

    run_id: str
    workflow: str | None
    status: str
    """``running``, or the terminal event's outcome (``completed``, ``failed``, ``cancelled``)."""
    events: int
    duration_ms: float | None
    first_token_ms: float | None
    """From the run's start to the first streamed text (``None``: no text was streamed)."""
    events_per_second: float | None
    clock: str
    """``timestamp`` (the host's event times) or ``arrival`` (when they were received)."""
    nodes: tuple[NodeTiming, ...]
    models: tuple[ModelUsage, ...]

    @property
    def tokens_in(self) -> int:
        """Input tokens of every node."""
        return sum(node.tokens_in for node in self.nodes)

    @property
    def tokens_out(self) -> int:
        """Output tokens of every node."""
        return sum(node.tokens_out for node in self.nodes)

    def as_json(self) -> dict[str, Any]:
        """The run as one ``stats --json`` object (the documented shape)."""
        return {
            "runId": self.run_id,
            "workflowId": self.workflow,
            "status": self.status,
            "events": self.events,
            "durationMs": _round(self.duration_ms),
            "timeToFirstTokenMs": _round(self.first_token_ms),
            "eventsPerSecond": _round(self.events_per_second),
            "clock": self.clock,
            "tokensIn": self.tokens_in,
            "tokensOut": self.tokens_out,
            "nodes": [node.as_json() for node in self.nodes],
            "models": [model.as_json() for model in self.models],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


@dataclass(slots=True)
class _Node:
    node_id: str
    start: float | None = None
    end: float | None = None
    reported_ms: float | None = None
    unusable: str | None = None
    """A ``durationMs`` the host sent that is no duration (negative, not a number), shown."""
    starts: int = 0
    retries: int = 0
    highest_attempt: int = -1
    status: str = "running"
    usage_in: int = 0
    usage_out: int = 0
    has_usage: bool = False
    chunk_in: int = 0
    chunk_out: int = 0
    chunk_model: tuple[str, str] | None = None


@dataclass(slots=True)
class _Run:
    run_id: str
    workflow: str | None = None
    status: str = "running"
    events: int = 0
    clock: str | None = None
    origin: float | None = None
    """The run's time zero: ``run.started``, else its first event."""
    first: float | None = None
    last: float | None = None
    first_token: float | None = None
    terminal: float | None = None
    reported_ms: float | None = None
    nodes: dict[str, _Node] = field(default_factory=dict)
    models: dict[tuple[str, str], list[int]] = field(default_factory=dict)


class StatsFold:
    """The statistics of a log, fed one event at a time."""

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}

    def feed(self, event: RunEvent, at: float | None = None) -> None:
        """Fold one event; ``at`` is when it arrived (used only when events carry no time)."""
        run = self._runs.setdefault(event.run_id or "?", _Run(event.run_id or "?"))
        run.events += 1
        when = _when(run, event, at)
        if when is not None:
            run.first = when if run.first is None else min(run.first, when)
            run.last = when if run.last is None else max(run.last, when)
            if event.type == "run.started" or run.origin is None:
                run.origin = when
        payload = event.payload
        if event.type == "run.started":
            workflow = payload.get("workflowId")
            run.workflow = workflow if isinstance(workflow, str) else run.workflow
        elif event.is_terminal:
            run.status = event.type.removeprefix("run.")
            run.terminal = when
            reported = _number(payload.get("durationMs"))
            run.reported_ms = reported if reported is None or reported <= MAX_REPORTED_MS else None
        if event.type in CHUNK_TYPES and run.first_token is None and chunk_text(event):
            run.first_token = when
        node_id = event.node_id
        if node_id is not None:
            self._node_event(run, run.nodes.setdefault(node_id, _Node(node_id)), event, when)
        elif event.type == "provider.usage":
            self._usage(run, None, payload)

    def _node_event(self, run: _Run, node: _Node, event: RunEvent, when: float | None) -> None:
        """Count one event of a node: its starts, retries, end, time and usage.

        Args:
            run: The run the node belongs to.
            node: The node.
            event: The event.
            when: Its time on the run's clock, in seconds; None when unknown.
        """
        payload = event.payload
        kind = event.type
        if kind == "node.started":
            node.starts += 1
            node.status = "running"
            node.start = when if node.start is None else node.start
            attempt = _number(payload.get("attempt"))
            if attempt is not None:
                node.highest_attempt = max(node.highest_attempt, int(attempt))
        elif kind == "node.retried":
            node.retries += 1
        elif kind == "node.suspended":
            node.status = "suspended"
        elif kind == "node.resumed":
            node.status = "running"
        elif kind in _NODE_ENDS:
            node.status = _NODE_ENDS[kind]
            node.end = when
            given = payload.get("durationMs")
            node.reported_ms = _number(given)
            node.unusable = None if given is None or node.reported_ms is not None else repr(given)
            attempts = _number(payload.get("attempts"))
            if attempts is not None:
                node.highest_attempt = max(node.highest_attempt, int(attempts) - 1)
        elif kind == "provider.usage":
            self._usage(run, node, payload)
        elif kind in CHUNK_TYPES:
            meta = payload.get("meta")
            if isinstance(meta, Mapping):
                model = meta.get("model")
                provider = meta.get("provider")
                if isinstance(model, str) and model:
                    node.chunk_model = (provider if isinstance(provider, str) else "?", model)
                usage = meta.get("usage")
                if isinstance(usage, Mapping):
                    node.chunk_in += _count(usage.get("promptTokens"))
                    node.chunk_out += _count(usage.get("completionTokens"))

    def _usage(self, run: _Run, node: _Node | None, payload: Mapping[str, Any]) -> None:
        tokens_in = _count(payload.get("inputTokens"))
        tokens_out = _count(payload.get("outputTokens"))
        provider = payload.get("provider")
        model = payload.get("model")
        key = (
            provider if isinstance(provider, str) and provider else "?",
            model if isinstance(model, str) and model else "?",
        )
        totals = run.models.setdefault(key, [0, 0, 0])
        totals[0] += tokens_in
        totals[1] += tokens_out
        totals[2] += 1
        if node is None:
            node_id = payload.get("nodeId")
            if not isinstance(node_id, str) or not node_id:
                node_id = "(run)"
            node = run.nodes.setdefault(node_id, _Node(node_id))
        node.usage_in += tokens_in
        node.usage_out += tokens_out
        node.has_usage = True

    def runs(self) -> list[RunStats]:
        """The statistics of every run so far, in the order the runs first appeared."""
        return [_snapshot(run) for run in self._runs.values()]


def _snapshot(run: _Run) -> RunStats:
    origin = run.origin
    models = dict(run.models)
    nodes = []
    for node in run.nodes.values():
        tokens_in, tokens_out = node.usage_in, node.usage_out
        if not node.has_usage and (node.chunk_in or node.chunk_out):
            tokens_in, tokens_out = node.chunk_in, node.chunk_out
            key = node.chunk_model or ("?", "?")
            totals = models.setdefault(key, [0, 0, 0])
            models[key] = [totals[0] + tokens_in, totals[1] + tokens_out, totals[2] + 1]
        start, end = node.start, node.end
        measured = (end - start) * 1000 if start is not None and end is not None else None
        reported, note = _reported(run, node)
        duration = reported if reported is not None else measured
        if note and measured is not None:
            note += f"; measured {measured:.0f} ms instead"
        if start is None and end is not None and reported is not None:
            start = end - reported / 1000
        attempts = max(node.starts, node.retries + 1, node.highest_attempt + 1, 1)
        nodes.append(
            NodeTiming(
                node_id=node.node_id,
                start=None if start is None or origin is None else start - origin,
                end=None if end is None or origin is None else end - origin,
                duration_ms=duration,
                attempts=attempts,
                status=node.status,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                reported_ms=node.reported_ms,
                measured_ms=measured,
                note=note,
            )
        )
    duration_ms = run.reported_ms
    if duration_ms is None and run.terminal is not None and origin is not None:
        duration_ms = (run.terminal - origin) * 1000
    span = (run.last - run.first) if run.last is not None and run.first is not None else 0.0
    return RunStats(
        run_id=run.run_id,
        workflow=run.workflow,
        status=run.status,
        events=run.events,
        duration_ms=duration_ms,
        first_token_ms=(
            (run.first_token - origin) * 1000
            if run.first_token is not None and origin is not None
            else None
        ),
        events_per_second=run.events / span if span > 0 else None,
        clock=run.clock or "none",
        nodes=tuple(nodes),
        models=tuple(
            ModelUsage(provider, model, totals[0], totals[1], totals[2])
            for (provider, model), totals in models.items()
        ),
    )


def _reported(run: _Run, node: _Node) -> tuple[float | None, str]:
    """The host's duration of ``node`` when it can be believed, else ``None`` and why not."""
    if node.unusable is not None:
        return None, f"the host's durationMs {node.unusable} is not a duration"
    reported = node.reported_ms
    if reported is None:
        return None, ""
    if reported > MAX_REPORTED_MS:
        return None, f"the host's durationMs {reported:.4g} is absurd (over a week)"
    if run.clock == "timestamp" and node.start is not None and run.last is not None:
        # The node began at its start event; the run's last event bounds when it ended.
        room = (run.last - node.start) * 1000
        if reported > room + CLOCK_SLACK_MS:
            return None, (
                f"the host's durationMs {reported:.4g} is longer than the run's events "
                f"leave room for ({room:.0f} ms)"
            )
    return reported, ""


def _when(run: _Run, event: RunEvent, at: float | None) -> float | None:
    """The event's time on the run's one clock (chosen by its first timed event)."""
    stamp = _parse(event.timestamp)
    if run.clock is None:
        run.clock = "timestamp" if stamp is not None else ("arrival" if at is not None else None)
    if run.clock == "timestamp":
        return stamp
    return at if run.clock == "arrival" else None


def _parse(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):
        return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def stats_of(events: Iterable[tuple[RunEvent, float | None]]) -> list[RunStats]:
    """The statistics of a whole log of ``(event, arrived at)`` pairs."""
    fold = StatsFold()
    for event, at in events:
        fold.feed(event, at)
    return fold.runs()
