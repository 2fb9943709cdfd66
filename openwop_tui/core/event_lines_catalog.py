"""Sentences for the rest of the event catalog: memory, prompts, channels, leases, replay,
agent invocations, workflow chains and dispatch (the operational and v2-only families, and the
reference hosts' own types, are in `openwop_tui.core.event_lines_ops`).

`openwop_tui.core.event_lines` holds the sentences of the run's everyday events; this module holds
the ones a host sends less often, so that every type of `openwop_tui.core.event_catalog.KNOWN_TYPES`
reads as words, not as quoted JSON. Where the spec fixes a payload (``run-event-payloads.schema
.json`` ``$defs``; protocol.md §3.6) the sentence names its fields; where it does not (``eval.*``,
``deployment.*``, ``budget.*`` and the other families whose payloads the published schema leaves
open) the line says what happened in words and lists the payload's fields as ``key: value``
(`openwop_tui.text.value_words.words`), the way a tool's inputs are shown.

`CATALOG_LINES` maps each type to its line function; the helpers (`string_of`, `joined`,
`at_node`, `fields_of`, `described`) are shared with `openwop_tui.core.event_lines_ops`. Pure: no
I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openwop_tui.core.items import Level
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.value_words import listed, milliseconds, number_words, words

Line = tuple[Level, str, bool]

#: Characters of a payload's fields a worded line lists.
FIELDS_SHOWN = 160


def string_of(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _num(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return number_words(value)


def joined(text: str, *parts: str | None) -> str:
    return " · ".join([text, *(p for p in parts if p)])


def at_node(event: RunEvent) -> str | None:
    node = event.node_id or string_of(event.payload.get("nodeId"))
    return f"at node {node}" if node else None


def fields_of(event: RunEvent, *skip: str) -> str | None:
    """The payload's fields as ``key: value`` (``nodeId`` and ``skip`` left out)."""
    rest = {k: v for k, v in event.payload.items() if k not in ("nodeId", *skip)}
    return words(rest, FIELDS_SHOWN) if rest else None


def described(what: str, level: Level = "info", verbose: bool = True) -> Callable[[RunEvent], Line]:
    """A line for a type whose payload the spec leaves open: ``what`` and its fields."""

    def line(event: RunEvent) -> Line:
        return level, joined(what, at_node(event), fields_of(event)), verbose

    return line


# ------------------------------------------------------------------------ memory (RFC 0057…)


def _memory_written(event: RunEvent) -> Line:
    """RFC 0057: content-free, so the line says where it went and how it is tagged."""
    p = event.payload
    entry = string_of(p.get("memoryId")) or "an entry"
    where = string_of(p.get("memoryRef"))
    by = string_of(p.get("agentId"))
    # A tag naming this very run says nothing here (the Postgres and SQLite hosts add one).
    own = f"run-id:{event.run_id}" if event.run_id else None
    tags = (
        listed([t for t in p.get("tags") or () if t != own], 6)
        if isinstance(p.get("tags"), list)
        else None
    )
    return (
        "info",
        joined(
            f"remembered {entry}" + (f" in {where}" if where else ""),
            f"tagged {tags}" if tags else None,
            at_node(event),
            f"by {by}" if by else None,
        ),
        True,
    )


def _memory_compacted(event: RunEvent) -> Line:
    p = event.payload
    count, size = _num(p.get("sourceCount")), p.get("byteSize")
    text = f"memory {string_of(p.get('memoryRef')) or '?'} compacted"
    text += f": {count} entries into {string_of(p.get('outputId')) or '?'}" if count else ""
    kb = f"{size:,} bytes" if isinstance(size, int) and not isinstance(size, bool) else None
    return "info", joined(text, kb, string_of(p.get("trigger"))), True


def _consolidated(event: RunEvent) -> Line:
    p = event.payload
    before, after = _num(p.get("inputCount")), _num(p.get("outputCount"))
    counts = f"{before} entries → {after}" if before is not None and after is not None else None
    text = f"memory {string_of(p.get('memoryRef')) or '?'} consolidated"
    return "info", joined(text, counts, string_of(p.get("trigger"))), True


def _commitment(event: RunEvent) -> Line:
    p = event.payload
    run = string_of(p.get("enqueuedRunId"))
    text = f"commitment {string_of(p.get('commitmentId')) or '?'} fired"
    condition = string_of(p.get("condition"))
    return (
        "info",
        joined(text, f"on {condition}" if condition else None, run and f"started run {run}"),
        False,
    )


def _workspace(event: RunEvent) -> Line:
    p = event.payload
    version = p.get("version")
    shown = f"version {words(version, 40)}" if version is not None else None
    return "info", joined(f"workspace file {string_of(p.get('path')) or '?'} updated", shown), True


def _context_summarized(event: RunEvent) -> Line:
    p = event.payload
    before, after = _num(p.get("tokensBefore")), _num(p.get("tokensAfter"))
    turns = _num(p.get("replacedTurns"))
    return (
        "info",
        joined(
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
    return "info", joined(text, at_node(event), string_of(p.get("kind"))), True


def _prompt_resolved(event: RunEvent) -> Line:
    p = event.payload
    resolved = string_of(p.get("resolved"))
    chain = p.get("chain")
    layer = (
        next(
            (
                string_of(entry.get("layer"))
                for entry in chain
                if isinstance(entry, Mapping) and entry.get("applied") is True
            ),
            None,
        )
        if isinstance(chain, list)
        else None
    )
    text = f"prompt resolved to {resolved}" if resolved else "no prompt template applied"
    return "info", joined(text, at_node(event), f"from the {layer} layer" if layer else None), True


def _channel(event: RunEvent) -> Line:
    p = event.payload
    name = string_of(p.get("channelName")) or string_of(p.get("channel")) or "?"
    reducer = string_of(p.get("reducer"))
    entry = p.get("entry")
    shown = words(entry, 80) if entry is not None else None
    return "info", joined(f"channel {name} written", reducer and f"by {reducer}", shown), True


def _version_pinned(event: RunEvent) -> Line:
    p = event.payload
    change = string_of(p.get("changeId")) or "?"
    text = f"change {change} pinned to version {words(p.get('version'), 20)}"
    return "info", joined(text, at_node(event)), True


# ------------------------------------------------------------------- leases and replay


def _lease(event: RunEvent) -> Line:
    p = event.payload
    verb = event.type.split(".", 1)[1]
    host = string_of(p.get("host"))
    until = string_of(p.get("expiresAt"))
    text = f"lease {string_of(p.get('leaseId')) or '?'} {verb}" + (
        f" by the {host} host" if host else ""
    )
    level: Level = "warning" if verb == "lost" else "info"
    return level, joined(text, until and f"until {until}"), verb != "lost"


def _handed_off(event: RunEvent) -> Line:
    p = event.payload
    lease = string_of(p.get("leaseId")) or "?"
    was, now = string_of(p.get("fromHost")) or "?", string_of(p.get("toHost")) or "?"
    text = f"lease {lease} handed from the {was} host to the {now} host"
    return "info", joined(text, string_of(p.get("reason"))), False


def _diverged(event: RunEvent) -> Line:
    p = event.payload
    text = (
        f"the replay diverged from run {string_of(p.get('sourceRunId')) or '?'} "
        f"at event {words(p.get('atSequence'), 20)}"
    )
    return (
        "warning",
        joined(text, string_of(p.get("divergenceKind")), string_of(p.get("divergencePoint"))),
        False,
    )


def _diverged_refusal(event: RunEvent) -> Line:
    p = event.payload
    was, now = string_of(p.get("originalEnvelopeKind")), string_of(p.get("replayEnvelopeKind"))
    text = (
        f"the replay diverged from run {string_of(p.get('sourceRunId')) or '?'} at a refusal "
        f"(event {words(p.get('atSequence'), 20)})"
    )
    return (
        "warning",
        joined(
            text,
            f"{was} then, {now} now" if was and now else None,
            string_of(p.get("refusalReason")),
        ),
        False,
    )


# ---------------------------------------------------------------- agents, chains, dispatch


def _invocation(event: RunEvent) -> Line:
    p = event.payload
    state = event.type.rsplit(".", 1)[1]
    agent = string_of(p.get("agentId")) or "agent"
    took = milliseconds(p.get("durationMs"))
    return (
        "info",
        joined(f"{agent} invocation {state}", at_node(event), took and f"in {took}"),
        True,
    )


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
    phase = string_of(p.get("phase")) or "?"
    worker = string_of(p.get("workerId")) or "?"
    child = string_of(p.get("childRunId"))
    error = p.get("error")
    failed = phase.endswith("failed") or phase.endswith("cancelled")
    text = f"workflow chain: {_PHASES.get(phase, phase)} worker {worker}"
    reason = string_of(error.get("message")) if isinstance(error, Mapping) else None
    keys = listed(p.get("harvestedKeys"), 6)
    return (
        "warning" if failed else "info",
        joined(text, child and f"child run {child}", keys and f"into {keys}", reason),
        not failed,
    )


def _escalated(event: RunEvent) -> Line:
    p = event.payload
    confidence, floor = _num(p.get("confidence")), _num(p.get("floor"))
    text = f"the supervisor's confidence {confidence or '?'} is below {floor or '?'}"
    how = string_of(p.get("escalationKind"))
    worker = string_of(p.get("workerId"))
    return (
        "warning",
        joined(text, how and f"asking to {how}", worker and f"for worker {worker}"),
        False,
    )


def _fanned_out(event: RunEvent) -> Line:
    p = event.payload
    count = _num(p.get("childCount"))
    most = _num(p.get("maxConcurrency"))
    text = f"dispatch fanned out to {count or '?'} child runs"
    return (
        "info",
        joined(text, string_of(p.get("fanOutPolicy")), most and f"at most {most} at once"),
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
    text = f"dispatch joined: {string_of(p.get('joinOutcome')) or '?'}"
    return "info", joined(text, ", ".join(counts) or None), False


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
}
