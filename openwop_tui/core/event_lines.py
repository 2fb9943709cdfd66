"""The one line each run event without an item of its own becomes in the transcript.

`line_for` maps an event to ``(level, text, verbose)``: a sentence for every type of
`openwop_tui.core.event_catalog.KNOWN_TYPES` that the fold does not turn into a reply, reasoning,
tool call, envelope or interrupt (the everyday ones here, the rest of the catalog in
`openwop_tui.core.event_lines_catalog`), payload values in words (`openwop_tui.text.value_words`);
and
for a type the client does not know (a vendor's) a compact generic line (the type and a short
JSON of the payload), so no event is dropped unseen and no unknown type can fail.
``verbose`` lines are the bookkeeping a chat view hides until asked (F3, ``--verbose``);
warnings and errors never are.

`SILENT` lists the types that knowingly draw nothing, with the reason. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openwop_tui.core.event_lines_catalog import CATALOG_LINES
from openwop_tui.core.event_lines_ops import OPS_LINES
from openwop_tui.core.items import Level
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.units import compact_json
from openwop_tui.text.value_words import words

Line = tuple[Level, str, bool]

#: Characters of a payload's JSON a generic line quotes.
GENERIC_JSON = 160

#: Types that draw nothing, and why (the capture walk in the tests holds the fold to this).
SILENT: dict[str, str] = {
    "channel.presence": "an ephemeral typing indicator, sent many times a second; not history",
}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if number == number and abs(number) != float("inf") else None


def _node(event: RunEvent) -> str:
    return event.node_id or _text(event.payload.get("nodeId")) or "?"


def _error(value: Any) -> str | None:
    if isinstance(value, Mapping):
        parts = [_text(value.get("code")), _text(value.get("message"))]
        return ": ".join(p for p in parts if p) or words(value, 120)
    return _text(value)


def _with(text: str, *parts: str | None) -> str:
    return " · ".join([text, *(p for p in parts if p)])


def decision_text(decision: Any) -> str:
    """An orchestrator or agent decision in words: ``next-worker: a, b`` or ``terminate ·
    reason``, else its compact JSON."""
    if isinstance(decision, Mapping):
        kind = _text(decision.get("kind"))
        if kind:
            workers = decision.get("nextWorkerIds")
            names = (
                ", ".join(str(w) for w in workers[:10])
                if isinstance(workers, list) and workers
                else None
            )
            reason = _text(decision.get("reason")) or _text(decision.get("text"))
            return _with(kind + (f": {names}" if names else ""), reason)
    if isinstance(decision, str):
        return decision
    return words(decision, 160)


# ------------------------------------------------------------------------------- lines


def _run_resuming(event: RunEvent) -> Line:
    before = _text(event.payload.get("fromStatus"))
    return "info", _with("run resuming", f"from {before}" if before else None), False


def _run_restored(event: RunEvent) -> Line:
    seq = event.payload.get("snapshotSeq", event.payload.get("fromSnapshotSeq"))
    return "info", _with("run restored from a snapshot", f"sequence {seq}" if seq else None), True


def _dead_lettered(event: RunEvent) -> Line:
    p = event.payload
    attempts = p.get("attempts")
    return (
        "error",
        _with(
            "run dead-lettered",
            _text(p.get("reason")),
            f"after {attempts} attempts" if attempts else None,
        ),
        False,
    )


def _node_retried(event: RunEvent) -> Line:
    p = event.payload
    delay = _number(p.get("delayMs"))
    return (
        "warning",
        _with(
            f"node {_node(event)} retrying (attempt {p.get('attempt', '?')})",
            f"in {delay:g} ms" if delay is not None else None,
            _error(p.get("lastError")),
        ),
        False,
    )


def _node_skipped(event: RunEvent) -> Line:
    return "info", _with(f"node {_node(event)} skipped", _text(event.payload.get("reason"))), True


def _node_cancelled(event: RunEvent) -> Line:
    reason = _text(event.payload.get("reason"))
    return "warning", _with(f"node {_node(event)} cancelled", reason), False


def _suspend_failed(event: RunEvent) -> Line:
    error = _error(event.payload.get("error"))
    return "error", _with(f"node {_node(event)} could not wait for input", error), False


def _dispatched(event: RunEvent) -> Line:
    # Subject first: "node dispatch started child run …" read as a node that started, when a
    # reference host names its dispatching node "dispatch".
    p = event.payload
    child = _text(p.get("childRunId")) or "?"
    workflow = _text(p.get("childWorkflowId"))
    text = f"child run {child}" + (f" of {workflow}" if workflow else "")
    text += f" dispatched by node {_node(event)}"
    status = _text(p.get("childStatus"))
    return "info", _with(text, f"child {status}" if status else None), False


#: Characters of a decision's reasoning a line quotes (the rest is in the event inspector).
REASONING_SHOWN = 400


def _reasoning(payload: Any) -> str | None:
    """The reasoning a decision gives: ``reasoning`` (what the reference hosts send beside
    ``agent.decided``), else ``rationale``, on the payload or inside the decision; cut."""
    decision = payload.get("decision")
    for source in (payload, decision if isinstance(decision, Mapping) else {}):
        for key in ("reasoning", "rationale"):
            text = _text(source.get(key))
            if text:
                cut = text if len(text) <= REASONING_SHOWN else text[: REASONING_SHOWN - 1] + "…"
                return f"because {cut}"
    return None


def _orchestrator(event: RunEvent) -> Line:
    p = event.payload
    iteration = p.get("iteration")
    who = _text(p.get("agentId")) or "supervisor"
    text = f"{who} decided {decision_text(p.get('decision'))}"
    shown = f"iteration {iteration}" if iteration is not None else None
    return "info", _with(text, shown, _reasoning(p)), False


def _handoff(event: RunEvent) -> Line:
    p = event.payload
    text = f"{_text(p.get('fromAgentId')) or '?'} handed off to {_text(p.get('toAgentId')) or '?'}"
    return "info", _with(text, _text(p.get("reason"))), False


def _decided(event: RunEvent) -> Line:
    p = event.payload
    text = f"{_text(p.get('agentId')) or 'agent'} decided {decision_text(p.get('decision'))}"
    confidence = _number(p.get("confidence"))
    shown = f"confidence {confidence:.2f}" if confidence is not None else None
    return "info", _with(text, shown, _reasoning(p)), False


def _retry(event: RunEvent) -> Line:
    p = event.payload
    text = f"the model's answer did not fit; retry {p.get('attempt', '?')}"
    return "warning", _with(text, _text(p.get("reason")), _error(p.get("previousError"))), False


def _retry_exhausted(event: RunEvent) -> Line:
    p = event.payload
    text = f"the model's answer still did not fit after {p.get('totalAttempts', '?')} attempts"
    return "error", _with(text, _text(p.get("finalReason")), _error(p.get("finalError"))), False


def _refusal(event: RunEvent) -> Line:
    p = event.payload
    text = _text(p.get("refusalText")) or "no refusal text given"
    category = _text(p.get("safetyCategory"))
    return "warning", _with(f"the model refused · {text}", category), False


def _truncated(event: RunEvent) -> Line:
    p = event.payload
    reason = _text(p.get("stopReason")) or "unknown reason"
    tokens = p.get("outputTokenCount")
    partial = "the partial answer is kept" if p.get("partialPayloadAvailable") else None
    return (
        "warning",
        _with(
            f"the model's output was truncated · {reason}",
            f"{tokens} tokens" if tokens else None,
            partial,
        ),
        False,
    )


def _nl_to_format(event: RunEvent) -> Line:
    kind = _text(event.payload.get("originalEnvelopeType"))
    return "info", _with("the answer was reformatted from plain language", kind), True


def _recovery(event: RunEvent) -> Line:
    path = _text(event.payload.get("path"))
    return "info", _with("a malformed answer was repaired", path), True


def _cap(event: RunEvent) -> Line:
    p = event.payload
    what = _text(p.get("kind")) or "a"
    return (
        "warning",
        f"{what} limit reached: {p.get('observed', '?')} of {p.get('limit', '?')}",
        False,
    )


def _substituted(event: RunEvent) -> Line:
    p = event.payload
    original = f"{p.get('originalProvider', '?')}/{p.get('originalModel', '?')}"
    fallback = f"{p.get('fallbackProvider', '?')}/{p.get('fallbackModel', '?')}"
    missing = p.get("missingCapabilities")
    lacks = ", ".join(str(m) for m in missing[:10]) if isinstance(missing, list) else None
    text = f"model {original} swapped for {fallback}"
    return "warning", _with(text, f"lacks {lacks}" if lacks else None), False


def _insufficient(event: RunEvent) -> Line:
    p = event.payload
    missing = p.get("missingCapabilities")
    lacks = ", ".join(str(m) for m in missing[:10]) if isinstance(missing, list) else None
    text = f"model {p.get('provider', '?')}/{p.get('model', '?')} cannot do what this step needs"
    return "warning", _with(text, lacks), False


def _log(event: RunEvent) -> Line:
    p = event.payload
    level = _text(p.get("level")) or "info"
    mapped: Level = "error" if level == "error" else "warning" if level == "warn" else "info"
    text = f"log {level} · {_text(p.get('message')) or words(p, 160)}"
    return mapped, text, mapped == "info"


def _variable(event: RunEvent) -> Line:
    p = event.payload
    text = f"variable {_text(p.get('name')) or '?'} = {words(p.get('next'), 80)}"
    return "info", text, True


def _loopback(event: RunEvent) -> Line:
    p = event.payload
    text = f"node {_node(event)} looped {p.get('iterations', '?')} times (limit {p.get('limit')})"
    return "warning", text, False


def _stalled(event: RunEvent) -> Line:
    stalled = _number(event.payload.get("stalledForMs"))
    seconds = f"for {stalled / 1000:.1f} s" if stalled is not None else None
    last = _text(event.payload.get("lastNodeId"))
    at = f"last at node {last}" if last else None
    return "warning", _with("the run stalled", seconds, at), False


def _authorization(event: RunEvent) -> Line:
    p = event.payload
    allowed = p.get("allowed")
    verdict = "allowed" if allowed else "denied"
    text = f"{_text(p.get('action')) or 'action'} on {_text(p.get('resource')) or '?'} {verdict}"
    return ("info" if allowed else "warning"), _with(text, _text(p.get("reason"))), bool(allowed)


def _auth_expired(event: RunEvent) -> Line:
    p = event.payload
    text = f"connector {_text(p.get('provider')) or '?'} needs signing in again"
    return "warning", _with(text, _text(p.get("reason"))), False


def _conversation(event: RunEvent) -> Line:
    p = event.payload
    name = event.type.split(".", 1)[1]
    conversation = _text(p.get("conversationId")) or "?"
    if name == "closed":
        count = p.get("turnCount")
        return (
            "info",
            _with(
                f"conversation {conversation} closed",
                _text(p.get("reason")),
                f"{count} turns" if count else None,
            ),
            False,
        )
    return "info", f"conversation {conversation} {name}", True


def generic(event: RunEvent) -> Line:
    """``type · {compact JSON}`` for a type the client has no sentence for."""
    payload = compact_json(dict(event.payload), GENERIC_JSON) if event.payload else ""
    return "info", _with(event.type, payload or None), True


_LINES: dict[str, Callable[[RunEvent], Line]] = {
    "run.resuming": _run_resuming,
    "run.restored-from-snapshot": _run_restored,
    "workflow.restored": _run_restored,
    "run.dead_lettered": _dead_lettered,
    "node.retried": _node_retried,
    "node.skipped": _node_skipped,
    "node.cancelled": _node_cancelled,
    "node.suspend-failed": _suspend_failed,
    "node.dispatched": _dispatched,
    "runOrchestrator.decided": _orchestrator,
    "agent.handoff": _handoff,
    "agent.decided": _decided,
    "envelope.retry.attempted": _retry,
    "envelope.retry.exhausted": _retry_exhausted,
    "envelope.refusal": _refusal,
    "envelope.truncated": _truncated,
    "envelope.nlToFormat.engaged": _nl_to_format,
    "envelope.recovery.applied": _recovery,
    "cap.breached": _cap,
    "model.capability.substituted": _substituted,
    "model.capability.insufficient": _insufficient,
    "log.appended": _log,
    "variable.changed": _variable,
    "workflow.loopback-limit": _loopback,
    "workflow.stalled": _stalled,
    "authorization.decided": _authorization,
    "connector.auth_expired": _auth_expired,
    "conversation.opened": _conversation,
    "conversation.exchanged": _conversation,
    "conversation.closed": _conversation,
    **CATALOG_LINES,
    **OPS_LINES,
}

#: The types with a sentence of their own here (the rest get `generic`).
DESCRIBED = frozenset(_LINES)


def line_for(event: RunEvent) -> Line | None:
    """The line for ``event``: its own sentence, the generic line, or ``None`` if `SILENT`."""
    if event.type in SILENT:
        return None
    describe = _LINES.get(event.type, generic)
    return describe(event)
