"""What agents tell of besides their replies: reasoning (``agent.reasoning.delta``, then the
authoritative ``agent.reasoned``), tool calls and their returns matched on ``callId``
(``agent.toolCalled``, ``agent.toolReturned``), ``provider.usage`` summed per turn and per
session, and ``artifact.created``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwop_tui.core.fold._common import made, made_line, text_of
from openwop_tui.core.fold._replies import masked, unmasked
from openwop_tui.core.items import ArtifactNotice, Change, Reasoning, TextBuffer, ToolCall, Updated
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.sanitize import HostText
from openwop_tui.text.value_words import words

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript

#: Characters of a tool call's inputs, and of its outcome, drawn in words (the JSON is kept).
TOOL_WORDS = 400

# -------------------------------------------------------------- reasoning


def _new_reasoning(fold: Transcript, agent: HostText) -> Reasoning:
    return Reasoning(fold._next_id("reasoning"), agent, limit=fold.limits.reasoning_bytes)


def on_reasoning_delta(fold: Transcript, event: RunEvent) -> list[Change]:
    agent = text_of(event.payload.get("agentId")) or made("agent")
    delta = event.payload.get("delta")
    if not isinstance(delta, str):
        return []
    if event.piece is not None:
        delta = event.piece  # as in `on_chunk`: masked across the join
    item = fold._reasoning.get(agent)
    changes: list[Change] = []
    if item is None or item.done:
        item = _new_reasoning(fold, agent)
        fold._reasoning[agent] = item
        changes.append(fold._add(item))
    delta = masked(fold, item.id, delta)
    if delta:
        changes.append(Updated(item, item.body.append(delta)))
    return changes


def on_reasoned(fold: Transcript, event: RunEvent) -> list[Change]:
    agent = text_of(event.payload.get("agentId")) or made("agent")
    text = event.payload.get("reasoning")
    item = fold._reasoning.get(agent)
    changes: list[Change] = []
    if item is None or item.done:
        item = _new_reasoning(fold, agent)
        changes.append(fold._add(item))
    fold._reasoning[agent] = item
    held = unmasked(fold, item.id)
    if isinstance(text, str) and text != item.full_text:
        item.text = text
    elif held:
        item.body.append(held)
    item.done = True
    changes.append(Updated(item))
    return changes


# ------------------------------------------------------------------ tools


def on_tool_called(fold: Transcript, event: RunEvent) -> list[Change]:
    payload = event.payload
    call_id = text_of(payload.get("callId")) or made(fold._next_id("call"))
    call = ToolCall(
        id=fold._next_id("tool"),
        call_id=call_id,
        agent_id=text_of(payload.get("agentId")) or made("agent"),
        tool_name=text_of(payload.get("toolName")) or made("tool"),
        inputs=payload.get("inputs"),
        json_limit=fold.limits.tool_bytes,
    )
    if call.inputs is not None:
        call.inputs_json, call.inputs_cut = _json_shown(fold, call.inputs)
        call.inputs_text = made_line(words(call.inputs, TOOL_WORDS))
    fold._calls[call_id] = call
    return [fold._add(call)]


def on_tool_returned(fold: Transcript, event: RunEvent) -> list[Change]:
    payload = event.payload
    call_id = text_of(payload.get("callId")) or made("")
    call = fold._calls.get(call_id)
    changes: list[Change] = []
    if call is None:
        call = ToolCall(
            id=fold._next_id("tool"),
            call_id=call_id,
            agent_id=text_of(payload.get("agentId")) or made("agent"),
            tool_name=text_of(payload.get("toolName")) or made("tool"),
            json_limit=fold.limits.tool_bytes,
        )
        changes.append(fold._add(call))
    call.outcome = payload.get("outcome")
    call.error = payload.get("error")
    duration = payload.get("durationMs")
    shown_outcome = call.outcome
    if duration is None and isinstance(call.outcome, Mapping):
        duration = call.outcome.get("durationMs")  # where the Postgres host puts it
        if duration is not None:
            # Drawn as the call's duration: not again as a field of what it returned.
            shown_outcome = {k: v for k, v in call.outcome.items() if k != "durationMs"}
    if isinstance(duration, int | float) and not isinstance(duration, bool):
        call.duration_ms = float(duration)
    call.status = made_line(text_of(payload.get("status")) or ("error" if call.error else "ok"))
    result = call.error if call.error is not None else call.outcome
    if result is not None:
        call.outcome_json, call.outcome_cut = _json_shown(fold, result)
    shown = call.error if call.error is not None else shown_outcome
    if shown is not None and shown != {}:
        call.outcome_text = made_line(words(shown, TOOL_WORDS))
    call.done = True
    changes.append(Updated(call))
    return changes


def _json_shown(fold: Transcript, value: Any) -> tuple[str, int]:
    """A tool value as compact JSON cut at the tool limit, and how many bytes were cut.

    Serialised once here, so drawing the call (every refresh) never walks a huge value.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    except (TypeError, ValueError, RecursionError):  # a cycle, or nesting too deep
        text = repr(value)
    buffer = TextBuffer(text, fold.limits.tool_bytes)
    return buffer.shown, buffer.cut_bytes


# ------------------------------------------------------ usage, artifacts


def _count(value: Any) -> int:
    """A token count from host data: non-negative ints only (anything else counts 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def on_usage(fold: Transcript, event: RunEvent) -> list[Change]:
    p = event.payload
    inputs, outputs = _count(p.get("inputTokens")), _count(p.get("outputTokens"))
    total = _count(p.get("totalTokens")) if "totalTokens" in p else None
    cost = p.get("costEstimateUsd")
    currency = text_of(p.get("currency"))
    usd = (
        float(cost)
        if isinstance(cost, int | float)
        and not isinstance(cost, bool)
        and currency in (None, "USD")
        and cost == cost
        and abs(cost) != float("inf")
        else None
    )
    for usage in (fold.usage_turn, fold.usage_session):
        usage.add(inputs, outputs, total, usd)
    text = (
        f"usage · {text_of(p.get('provider')) or '?'}/{text_of(p.get('model')) or '?'} · "
        f"{inputs:,} in, {outputs:,} out · turn so far {fold.usage_turn.describe()}"
    )
    return [fold._notice("info", text, verbose=True)]


def on_artifact(fold: Transcript, event: RunEvent) -> list[Change]:
    p = event.payload
    artifact_id = text_of(p.get("artifactId")) or made("?")
    kind = text_of(p.get("artifactType"))
    summary = text_of(p.get("summary"))
    text = f"artifact {artifact_id} ({kind or '?'})" + (f" · {summary}" if summary else "")
    item = ArtifactNotice(
        fold._next_id("artifact"),
        "info",
        made_line(text),
        False,
        artifact_id=artifact_id,
        artifact_type=kind,
        run_id=event.run_id,
        node_id=event.node_id,
        version=p.get("version"),
        summary=summary,
    )
    return [fold._add(item)]
