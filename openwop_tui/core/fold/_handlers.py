"""Which handler folds which event: one table (`_HANDLERS`) from event type to the function of
its family's module, and `dispatch`, which also routes the types known by set (chunks, interrupt
requests) and gives every other type its one line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from openwop_tui.core.fold import _agents, _interrupts, _nodes, _replies, _run
from openwop_tui.core.fold._common import on_line
from openwop_tui.core.items import Change
from openwop_tui.protocol.events import CHUNK_TYPES, RunEvent
from openwop_tui.protocol.interrupts import REQUEST_TYPES

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript

_HANDLERS: dict[str, Callable[[Transcript, RunEvent], list[Change]]] = {
    "run.started": _run.on_run_started,
    "run.completed": _run.on_run_completed,
    "run.failed": _run.on_run_failed,
    "run.cancelled": _run.on_run_cancelled,
    "run.paused": _run.on_run_paused,
    "run.resumed": _run.on_run_resumed,
    "state.snapshot": _run.on_snapshot,
    "node.started": _nodes.on_node_started,
    "node.completed": _nodes.on_node_completed,
    "node.failed": _nodes.on_node_failed,
    "node.cancelled": _nodes.on_node_cancelled,
    "node.resumed": _interrupts.on_node_resumed,
    "interrupt.resolved": _interrupts.on_resolved,
    "node.interrupt.resolved": _interrupts.on_resolved,
    "clarification.resolved": _interrupts.on_resolved,
    "approval.received": _interrupts.on_resolved,
    "approval.granted": _interrupts.on_gate,
    "approval.rejected": _interrupts.on_gate,
    "approval.overridden": _interrupts.on_gate,
    "media.image": _nodes.on_media,
    "media.audio": _nodes.on_media,
    "media.file": _nodes.on_media,
    "agent.reasoning.delta": _agents.on_reasoning_delta,
    "agent.reasoned": _agents.on_reasoned,
    "agent.toolCalled": _agents.on_tool_called,
    "agent.toolReturned": _agents.on_tool_returned,
    "provider.usage": _agents.on_usage,
    "artifact.created": _agents.on_artifact,
    "conversation.opened": _replies.on_conversation,
    "conversation.exchanged": _replies.on_conversation,
    "conversation.closed": _replies.on_conversation,
}


def dispatch(fold: Transcript, event: RunEvent) -> list[Change]:
    """Fold one event with its handler; may raise (`Transcript.apply` turns that into a
    notice)."""
    if event.type in _interrupts.MOVES_ON:
        fold._moved_on.add(event.node_id)
    handler = _HANDLERS.get(event.type)
    if handler is not None:
        return handler(fold, event)
    if event.type in CHUNK_TYPES:
        return _replies.on_chunk(fold, event)
    if event.type in REQUEST_TYPES:
        return _interrupts.on_request(fold, event)
    return on_line(fold, event)
