"""Sentences for the rest of the event catalog: memory, prompts, leases, replay, evaluation,
deployment, budgets, voice, compensation, the v2-only families and the reference hosts' own
types.

`openwop_tui.event_lines` holds the sentences of the run's everyday events; this module holds
the ones a host sends less often, so that every type of `openwop_tui.event_catalog.KNOWN_TYPES`
reads as words, not as quoted JSON. Where the spec fixes a payload (``run-event-payloads.schema
.json`` ``$defs``; protocol.md §3.6) the sentence names its fields; where it does not (``eval.*``,
``deployment.*``, ``budget.*`` and the other families whose payloads the published schema leaves
open) the line says what happened in words and lists the payload's fields as ``key: value``
(`openwop_tui.value_words.words`), the way a tool's inputs are shown.

`CATALOG_LINES` maps each type to its line function. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openwop_tui.items import Level
from openwop_tui.protocol.events import RunEvent
from openwop_tui.value_words import listed, milliseconds, number_words, words

Line = tuple[Level, str, bool]

#: Characters of a payload's fields a worded line lists.
FIELDS_SHOWN = 160


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _num(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return number_words(value)


def _with(text: str, *parts: str | None) -> str:
    return " · ".join([text, *(p for p in parts if p)])


def _node(event: RunEvent) -> str | None:
    node = event.node_id or _text(event.payload.get("nodeId"))
    return f"at node {node}" if node else None


def _fields(event: RunEvent, *skip: str) -> str | None:
    """The payload's fields as ``key: value`` (``nodeId`` and ``skip`` left out)."""
    rest = {k: v for k, v in event.payload.items() if k not in ("nodeId", *skip)}
    return words(rest, FIELDS_SHOWN) if rest else None


def described(what: str, level: Level = "info", verbose: bool = True) -> Callable[[RunEvent], Line]:
    """A line for a type whose payload the spec leaves open: ``what`` and its fields."""

    def line(event: RunEvent) -> Line:
        return level, _with(what, _node(event), _fields(event)), verbose

    return line


# ------------------------------------------------------------------------ memory (RFC 0057…)


def _memory_written(event: RunEvent) -> Line:
    """RFC 0057: content-free, so the line says where it went and how it is tagged."""
    p = event.payload
    entry = _text(p.get("memoryId")) or "an entry"
    where = _text(p.get("memoryRef"))
    by = _text(p.get("agentId"))
    # A tag naming this very run says nothing here (the Postgres and SQLite hosts add one).
    own = f"run-id:{event.run_id}" if event.run_id else None
    tags = (
        listed([t for t in p.get("tags") or () if t != own], 6)
        if isinstance(p.get("tags"), list)
        else None
    )
    return (
        "info",
        _with(
            f"remembered {entry}" + (f" in {where}" if where else ""),
            f"tagged {tags}" if tags else None,
            _node(event),
            f"by {by}" if by else None,
        ),
        True,
    )


def _memory_compacted(event: RunEvent) -> Line:
    p = event.payload
    count, size = _num(p.get("sourceCount")), p.get("byteSize")
    text = f"memory {_text(p.get('memoryRef')) or '?'} compacted"
    text += f": {count} entries into {_text(p.get('outputId')) or '?'}" if count else ""
    kb = f"{size:,} bytes" if isinstance(size, int) and not isinstance(size, bool) else None
    return "info", _with(text, kb, _text(p.get("trigger"))), True


def _consolidated(event: RunEvent) -> Line:
    p = event.payload
    before, after = _num(p.get("inputCount")), _num(p.get("outputCount"))
    counts = f"{before} entries → {after}" if before is not None and after is not None else None
    text = f"memory {_text(p.get('memoryRef')) or '?'} consolidated"
    return "info", _with(text, counts, _text(p.get("trigger"))), True


def _commitment(event: RunEvent) -> Line:
    p = event.payload
    run = _text(p.get("enqueuedRunId"))
    text = f"commitment {_text(p.get('commitmentId')) or '?'} fired"
    condition = _text(p.get("condition"))
    return (
        "info",
        _with(text, f"on {condition}" if condition else None, run and f"started run {run}"),
        False,
    )


def _workspace(event: RunEvent) -> Line:
    p = event.payload
    version = p.get("version")
    shown = f"version {words(version, 40)}" if version is not None else None
    return "info", _with(f"workspace file {_text(p.get('path')) or '?'} updated", shown), True


def _context_summarized(event: RunEvent) -> Line:
    p = event.payload
    before, after = _num(p.get("tokensBefore")), _num(p.get("tokensAfter"))
    turns = _num(p.get("replacedTurns"))
    return (
        "info",
        _with(
            "the conversation so far was summarized",
            f"{turns} turns replaced" if turns else None,
            f"{before} → {after} tokens" if before and after else None,
        ),
        True,
    )


# --------------------------------------------------------------------------- prompts


def _prompt_composed(event: RunEvent) -> Line:
    p = event.payload
    refs = listed(p.get("refs"), 5)
    text = "prompt composed" + (f" from {refs}" if refs else "")
    return "info", _with(text, _node(event), _text(p.get("kind"))), True


def _prompt_resolved(event: RunEvent) -> Line:
    p = event.payload
    resolved = _text(p.get("resolved"))
    chain = p.get("chain")
    layer = (
        next(
            (
                _text(entry.get("layer"))
                for entry in chain
                if isinstance(entry, Mapping) and entry.get("applied") is True
            ),
            None,
        )
        if isinstance(chain, list)
        else None
    )
    text = f"prompt resolved to {resolved}" if resolved else "no prompt template applied"
    return "info", _with(text, _node(event), f"from the {layer} layer" if layer else None), True


def _channel(event: RunEvent) -> Line:
    p = event.payload
    name = _text(p.get("channelName")) or _text(p.get("channel")) or "?"
    reducer = _text(p.get("reducer"))
    entry = p.get("entry")
    shown = words(entry, 80) if entry is not None else None
    return "info", _with(f"channel {name} written", reducer and f"by {reducer}", shown), True


def _version_pinned(event: RunEvent) -> Line:
    p = event.payload
    text = (
        f"change {_text(p.get('changeId')) or '?'} pinned to version {words(p.get('version'), 20)}"
    )
    return "info", _with(text, _node(event)), True


# ------------------------------------------------------------------- leases and replay


def _lease(event: RunEvent) -> Line:
    p = event.payload
    verb = event.type.split(".", 1)[1]
    host = _text(p.get("host"))
    until = _text(p.get("expiresAt"))
    text = f"lease {_text(p.get('leaseId')) or '?'} {verb}" + (
        f" by the {host} host" if host else ""
    )
    level: Level = "warning" if verb == "lost" else "info"
    return level, _with(text, until and f"until {until}"), verb != "lost"


def _handed_off(event: RunEvent) -> Line:
    p = event.payload
    text = (
        f"lease {_text(p.get('leaseId')) or '?'} handed from the "
        f"{_text(p.get('fromHost')) or '?'} host to the {_text(p.get('toHost')) or '?'} host"
    )
    return "info", _with(text, _text(p.get("reason"))), False


def _diverged(event: RunEvent) -> Line:
    p = event.payload
    text = (
        f"the replay diverged from run {_text(p.get('sourceRunId')) or '?'} "
        f"at event {words(p.get('atSequence'), 20)}"
    )
    return (
        "warning",
        _with(text, _text(p.get("divergenceKind")), _text(p.get("divergencePoint"))),
        False,
    )


def _diverged_refusal(event: RunEvent) -> Line:
    p = event.payload
    was, now = _text(p.get("originalEnvelopeKind")), _text(p.get("replayEnvelopeKind"))
    text = (
        f"the replay diverged from run {_text(p.get('sourceRunId')) or '?'} at a refusal "
        f"(event {words(p.get('atSequence'), 20)})"
    )
    return (
        "warning",
        _with(
            text, f"{was} then, {now} now" if was and now else None, _text(p.get("refusalReason"))
        ),
        False,
    )


# ---------------------------------------------------------------- agents, chains, dispatch


def _invocation(event: RunEvent) -> Line:
    p = event.payload
    state = event.type.rsplit(".", 1)[1]
    agent = _text(p.get("agentId")) or "agent"
    took = milliseconds(p.get("durationMs"))
    return "info", _with(f"{agent} invocation {state}", _node(event), took and f"in {took}"), True


_PHASES = {
    "dispatch.began": "dispatching",
    "dispatch.succeeded": "dispatched",
    "dispatch.failed": "could not dispatch",
    "child.completed": "child run completed for",
    "child.failed": "child run failed for",
    "child.cancelled": "child run cancelled for",
    "output.harvested": "output taken from",
}


def _chain(event: RunEvent) -> Line:
    p = event.payload
    phase = _text(p.get("phase")) or "?"
    worker = _text(p.get("workerId")) or "?"
    child = _text(p.get("childRunId"))
    error = p.get("error")
    failed = phase.endswith("failed") or phase.endswith("cancelled")
    text = f"workflow chain: {_PHASES.get(phase, phase)} worker {worker}"
    reason = _text(error.get("message")) if isinstance(error, Mapping) else None
    keys = listed(p.get("harvestedKeys"), 6)
    return (
        "warning" if failed else "info",
        _with(text, child and f"child run {child}", keys and f"into {keys}", reason),
        not failed,
    )


def _escalated(event: RunEvent) -> Line:
    p = event.payload
    confidence, floor = _num(p.get("confidence")), _num(p.get("floor"))
    text = f"the supervisor's confidence {confidence or '?'} is below {floor or '?'}"
    how = _text(p.get("escalationKind"))
    worker = _text(p.get("workerId"))
    return (
        "warning",
        _with(text, how and f"asking to {how}", worker and f"for worker {worker}"),
        False,
    )


def _fanned_out(event: RunEvent) -> Line:
    p = event.payload
    count = _num(p.get("childCount"))
    most = _num(p.get("maxConcurrency"))
    text = f"dispatch fanned out to {count or '?'} child runs"
    return (
        "info",
        _with(text, _text(p.get("fanOutPolicy")), most and f"at most {most} at once"),
        False,
    )


def _joined(event: RunEvent) -> Line:
    p = event.payload
    counts = [
        f"{n} {what}"
        for key, what in (
            ("completedCount", "completed"),
            ("failedCount", "failed"),
            ("cancelledCount", "cancelled"),
        )
        if (n := _num(p.get(key))) is not None
    ]
    text = f"dispatch joined: {_text(p.get('joinOutcome')) or '?'}"
    return "info", _with(text, ", ".join(counts) or None), False


# ------------------------------------------------------------------- connectors, policy


def _connector_authorized(event: RunEvent) -> Line:
    p = event.payload
    scopes = listed(p.get("scopes"), 8)
    text = f"connector {_text(p.get('provider')) or '?'} signed in"
    return "info", _with(text, scopes and f"scopes {scopes}"), False


def _policy(event: RunEvent) -> Line:
    """The Postgres host's provider policy check (``permit`` / ``deny``)."""
    p = event.payload
    decision = _text(p.get("decision")) or "?"
    denied = decision == "deny"
    verdict = "denied" if denied else "permitted"
    text = f"provider {_text(p.get('provider')) or '?'} {verdict} by policy"
    mode = _text(p.get("mode"))
    return (
        "warning" if denied else "info",
        _with(text, mode and f"mode {mode}", _text(p.get("reason")), _node(event)),
        not denied,
    )


def _vote(event: RunEvent) -> Line:
    """The SQLite and Postgres hosts' quorum approvals: a vote counted, the quorum pending."""
    votes = event.payload.get("votes")
    count = len(votes) if isinstance(votes, list) else None
    shown = words(votes, 100) if votes else None
    text = f"vote counted {_node(event) or ''}".strip()
    return "info", _with(text, f"{count} so far" if count is not None else None, shown), False


def _mcp(event: RunEvent) -> Line:
    """The Postgres host's MCP call summary (content-free: sizes and a hash)."""
    return "info", _with("MCP tool invoked", _node(event), _fields(event)), True


# ------------------------------------------------------------------------------ voice


def _at(event: RunEvent) -> str | None:
    at = milliseconds(event.payload.get("atMs"))
    return f"at {at}" if at else None


def _voice(what: str) -> Callable[[RunEvent], Line]:
    def line(event: RunEvent) -> Line:
        return "info", _with(f"voice: {what}", _at(event), _text(event.payload.get("reason"))), True

    return line


def _transcript(event: RunEvent) -> Line:
    p = event.payload
    final = p.get("isFinal") is True
    text = _text(p.get("formatted")) or _text(p.get("text")) or "…"
    return "info", f"voice {'heard' if final else 'hearing'}: {text}", not final


def _turn_commit(event: RunEvent) -> Line:
    return "info", f"voice turn: {_text(event.payload.get('finalText')) or '…'}", False


def _synthesis(event: RunEvent) -> Line:
    p = event.payload
    took = milliseconds(p.get("durationMs"))
    text = f"voice reply chunk {words(p.get('seq'), 20)}"
    return (
        "info",
        _with(text, _text(p.get("mimeType")), took, "last" if p.get("final") else None),
        True,
    )


CATALOG_LINES: dict[str, Callable[[RunEvent], Line]] = {
    "memory.written": _memory_written,
    "memory.compacted": _memory_compacted,
    "agent.memory.consolidated": _consolidated,
    "commitment.fired": _commitment,
    "workspace.updated": _workspace,
    "context.summarized": _context_summarized,
    "prompt.composed": _prompt_composed,
    "agent.promptResolved": _prompt_resolved,
    "channel.written": _channel,
    "version.pinned": _version_pinned,
    "lease.acquired": _lease,
    "lease.renewed": _lease,
    "lease.lost": _lease,
    "lease.handed-off": _handed_off,
    "replay.diverged": _diverged,
    "replay.divergedAtRefusal": _diverged_refusal,
    "agent.invocation.started": _invocation,
    "agent.invocation.completed": _invocation,
    "agent.verified": described("agent verified"),
    "core.workflowChain.event": _chain,
    "core.workflowChain.confidence-escalated": _escalated,
    "core.dispatch.fanOut": _fanned_out,
    "core.dispatch.join": _joined,
    "connector.authorized": _connector_authorized,
    "policy.decision": _policy,
    "interrupt.vote": _vote,
    "mcp.invoked": _mcp,
    "eval.started": described("evaluation started"),
    "eval.scored": described("evaluation scored", verbose=False),
    "eval.completed": described("evaluation completed", verbose=False),
    "deployment.promoted": described("deployment promoted", verbose=False),
    "deployment.rolled-back": described("deployment rolled back", "warning", False),
    "deployment.canary.adjusted": described("deployment canary adjusted"),
    "deployment.state.changed": described("deployment state changed"),
    "roster.run.initiated": described("roster started a run", verbose=False),
    "tool.session.opened": described("tool session opened"),
    "tool.session.closed": described("tool session closed"),
    "egress.decided": described("network egress decided"),
    "trigger.subscription.state.changed": described("trigger subscription changed"),
    "trigger.delivery.attempted": described("trigger delivery attempted"),
    "budget.reserved": described("budget reserved"),
    "budget.consumed": described("budget consumed"),
    "budget.threshold.crossed": described("budget threshold crossed", "warning", False),
    "budget.exhausted": described("budget exhausted", "warning", False),
    "proposal.created": described("proposal created", verbose=False),
    "proposal.activated": described("proposal activated", verbose=False),
    "goal.evaluated": described("goal evaluated"),
    "goal.closed": described("goal closed", verbose=False),
    "import.applied": described("import applied", verbose=False),
    "voice.speech_start": _voice("speech started"),
    "voice.transcript": _transcript,
    "voice.endpoint_candidate": _voice("the speaker may have finished"),
    "voice.turn_commit": _turn_commit,
    "voice.synthesis_chunk": _synthesis,
    "voice.barge_in": _voice("the speaker interrupted the reply"),
    "voice.cancelled": _voice("cancelled"),
    "compensation.requested": described("compensation requested", "warning", False),
    "compensation.started": described("compensation started", verbose=False),
    "compensation.completed": described("compensation completed", verbose=False),
    "compensation.failed": described("compensation failed", "error", False),
    "compensation.paused": described("compensation paused", "warning", False),
    "compensation.manual_intervention_required": described(
        "compensation needs a person to step in", "error", False
    ),
}
