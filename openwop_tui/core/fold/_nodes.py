"""Nodes and what they emit: ``node.started``, ``node.completed`` (the completion that settles
a streamed reply, and the envelopes of its outputs), ``node.failed``, ``node.cancelled``, and
the envelopes of ``media.*`` events, each drawn once (re-emission rules E1, E2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from openwop_tui.core.directives import as_embed
from openwop_tui.core.fold._common import error_of, on_line, text_of
from openwop_tui.core.fold._interrupts import settle
from openwop_tui.core.fold._replies import (
    directives_of,
    final_directives,
    finish_directives,
    new_turn,
)
from openwop_tui.core.items import AssistantTurn, Change, EnvelopeItem, Updated
from openwop_tui.protocol.envelopes import Envelope, extract_envelopes, reply_completion
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.value_words import milliseconds

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript


def _is_lifted_hint(envelope: Envelope) -> bool:
    """An envelope that is only ``outputs.rendering`` on ``outputs.completion`` (no object)."""
    return envelope.kind == "completion" and envelope.document is None


def _kept_source(envelope: Envelope) -> Envelope:
    """``envelope`` with its source event as an item keeps it: its place, not the frame's wire
    text (an item keeps its text and its place; the event itself is in the log)."""
    if envelope.source.wire is None:
        return envelope
    return replace(envelope, source=replace(envelope.source, wire=None))


def on_node_started(fold: Transcript, event: RunEvent) -> list[Change]:
    node = event.node_id or "?"
    type_id = text_of(event.payload.get("typeId"))
    text = f"node {node} started" + (f" · {type_id}" if type_id else "")
    return [fold._notice("info", text, verbose=True)]


def on_node_completed(fold: Transcript, event: RunEvent) -> list[Change]:
    changes: list[Change] = []
    outputs = event.payload.get("outputs")
    outputs = outputs if isinstance(outputs, Mapping) else {}
    envelopes = extract_envelopes(event)
    turn = fold._open_turns.pop(event.node_id, None)
    if turn is not None:
        # A hint lifted beside a streamed reply describes that reply: it is drawn with it
        # (title, alt), not as an envelope printing the same text a second time.
        lifted = [e for e in envelopes if _is_lifted_hint(e)]
        if lifted:
            turn.hint = lifted[0].rendering
            envelopes = [e for e in envelopes if not _is_lifted_hint(e)]
    completion = reply_completion(event, envelopes)

    if turn is not None:
        changes += finish_directives(fold, turn, event)
    if turn is None and completion is not None:
        turn = new_turn(fold, event.node_id)
        changes.append(fold._add(turn))
    directive_items: list[Change] = []
    if turn is not None:
        directive_items = final_directives(fold, turn, completion, outputs, event)
        turn.model = turn.model or text_of(outputs.get("model"))
        turn.final = True
        changes.append(Updated(turn))
    changes += directive_items

    for envelope in envelopes:
        changes.extend(on_envelope(fold, envelope, turn))
    if turn is not None:
        turn.directives = None  # settled: a long session keeps no reader per reply

    took = milliseconds(event.payload.get("durationMs"))
    suffix = f" in {took}" if took else ""
    outcome = text_of(event.payload.get("outcome"))
    pending = fold._interrupts.get(event.node_id)
    if pending is not None:
        # The reference hosts' rejected gate: node.completed {outcome: "rejected"}, no resume.
        changes += settle(fold, pending, "answered", "elsewhere", outcome or "done")
    if outcome == "rejected":
        text = f"node {event.node_id or '?'} rejected: the run will not go on past it"
        changes.append(fold._notice("warning", text))
    else:
        text = f"node {event.node_id or '?'} completed{suffix}"
        text += f" · {outcome}" if outcome else ""
        changes.append(fold._notice("info", text, verbose=True))
    return changes


def on_envelope(
    fold: Transcript, envelope: Envelope, turn: AssistantTurn | None = None
) -> list[Change]:
    """Add (or, for a fragment, update) the envelope's item; audio that comes with ``turn``
    is a voice note when the turn says ``[[audio_as_voice]]``."""
    if envelope.key in fold._seen_envelopes:
        return []
    fold._seen_envelopes.add(envelope.key)
    emission = envelope.correlation_id if envelope.partial is not None else None
    if emission is not None and emission in fold._emissions:
        # A later fragment of a streamed emission (rule E1): it replaces the one drawn.
        item = fold._emissions[emission]
        item.envelope = as_embed(_kept_source(envelope))
        if not envelope.partial:
            del fold._emissions[emission]
        return [Updated(item)]
    item = EnvelopeItem(fold._next_id("envelope"), as_embed(_kept_source(envelope)))
    if turn is not None:
        directives_of(fold, turn).track_audio(item)
    if emission is not None and envelope.partial:
        fold._emissions[emission] = item
    return [fold._add(item)]


def on_media(fold: Transcript, event: RunEvent) -> list[Change]:
    changes: list[Change] = []
    turn = fold._open_turns.get(event.node_id)
    for envelope in extract_envelopes(event):
        changes.extend(on_envelope(fold, envelope, turn))
    return changes


def on_node_failed(fold: Transcript, event: RunEvent) -> list[Change]:
    code, message = error_of(event.payload)
    detail = ": ".join(part for part in (code, message) if part) or "no reason given"
    turn = fold._open_turns.pop(event.node_id, None)
    changes: list[Change] = []
    if turn is not None:
        changes += finish_directives(fold, turn, event)
        turn.final = True
        turn.directives = None
        changes.append(Updated(turn))
    pending = fold._interrupts.get(event.node_id)
    if pending is not None:
        changes += settle(fold, pending, "closed", None, "the node failed")
    changes.append(fold._notice("error", f"node {event.node_id or '?'} failed · {detail}"))
    return changes


def on_node_cancelled(fold: Transcript, event: RunEvent) -> list[Change]:
    changes: list[Change] = []
    pending = fold._interrupts.get(event.node_id)
    if pending is not None:
        changes += settle(fold, pending, "closed", None, "the node was cancelled")
    return changes + on_line(fold, event)
