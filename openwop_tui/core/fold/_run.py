"""The run's lifecycle: ``run.started``, its endings (``run.completed``, ``run.failed``,
``run.cancelled``) and what every ending settles, its pauses (``run.paused``,
``run.resumed``), and a ``values``-mode ``state.snapshot``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openwop_tui.core.fold._common import TERMINAL_STATUSES, error_of, text_of
from openwop_tui.core.fold._interrupts import settle
from openwop_tui.core.fold._replies import settle_replies, unmasked
from openwop_tui.core.items import Change, Reasoning, ToolCall, Updated, Usage
from openwop_tui.protocol.events import RunEvent

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript


def close_turns(fold: Transcript) -> list[Change]:
    """Settle everything still open: replies, reasoning, tool calls (the run ended).

    A tool call that never returned or reasoning that never got its ``agent.reasoned``
    will not change any more, and the view only moves settled items to its history.
    """
    changes = settle_replies(fold)
    pending: list[Reasoning | ToolCall] = [*fold._reasoning.values(), *fold._calls.values()]
    for item in pending:
        if not item.done:
            if isinstance(item, Reasoning):
                held = unmasked(fold, item.id)
                if held:
                    item.body.append(held)
            item.done = True
            changes.append(Updated(item))
    fold._reasoning.clear()
    fold._calls.clear()
    return changes


def _ended(fold: Transcript, event: RunEvent) -> list[Change]:
    """What every run ending settles: open items, pending interrupts, the turn's usage."""
    changes = close_turns(fold)
    for item in list(fold._interrupts.values()):
        changes += settle(fold, item, "closed", None, "the run ended first")
    if fold.usage_turn.events:
        text = f"usage this turn · {fold.usage_turn.describe()}"
        if fold.usage_session.events > fold.usage_turn.events:
            text += f" · session {fold.usage_session.describe()}"
        changes.append(fold._notice("info", text))
    return changes


def on_run_started(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "running"
    fold.usage_turn = Usage()
    workflow = text_of(event.payload.get("workflowId"))
    text = f"run started · {workflow}" if workflow else "run started"
    return [fold._notice("info", text, verbose=True)]


def on_run_completed(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "completed"
    duration = event.payload.get("durationMs")
    suffix = f" in {duration / 1000:.2f} s" if isinstance(duration, int | float) else ""
    return [*_ended(fold, event), fold._notice("info", f"run completed{suffix}")]


def on_run_failed(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "failed"
    code, message = error_of(event.payload)
    detail = ": ".join(part for part in (code, message) if part) or "no reason given"
    node = text_of(event.payload.get("failedNodeId"))
    where = f" at node {node}" if node else ""
    return [*_ended(fold, event), fold._notice("error", f"run failed{where} · {detail}")]


def on_run_cancelled(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "cancelled"
    reason = text_of(event.payload.get("reason"))
    text = f"run cancelled · {reason}" if reason else "run cancelled"
    return [*_ended(fold, event), fold._notice("warning", text)]


def on_run_paused(fold: Transcript, event: RunEvent) -> list[Change]:
    fold.status = "paused"
    p = event.payload
    reason = text_of(p.get("reason"))
    node = text_of(p.get("interruptedNodeId"))
    parts = ["run paused", reason, f"at node {node}" if node else None]
    return [fold._notice("warning", " · ".join(x for x in parts if x))]


def on_run_resumed(fold: Transcript, event: RunEvent) -> list[Change]:
    # The SQLite and Postgres hosts also send run.resumed when they re-enter a run after an
    # interrupt was answered: said quietly then, since node.resumed already told of it.
    was_paused = fold.status == "paused"
    if fold.status not in TERMINAL_STATUSES:
        fold.status = "running"
    return [fold._notice("info", "run resumed", verbose=not was_paused)]


def on_snapshot(fold: Transcript, event: RunEvent) -> list[Change]:
    """A ``values``-mode ``state.snapshot``: the status it names, and its open interrupt."""
    changes = fold.take_snapshot_question(event.payload, event)
    status = text_of(event.payload.get("status"))
    text = f"snapshot · status {status}" if status else "snapshot"
    changes.append(fold._notice("info", text, verbose=True))
    return changes
