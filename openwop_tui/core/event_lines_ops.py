"""Sentences for the operational and v2-only event families: connectors and the reference
hosts' own policy, vote and MCP events, evaluation, deployment, budgets, triggers, proposals,
goals, imports, compensation and voice.

Split from `openwop_tui.core.event_lines_catalog` (whose helpers it shares) to keep each module
short. Most of these payloads are left open by the published schema: their lines say what
happened in words and list the payload's fields as ``key: value`` (`described`). `OPS_LINES`
maps each type to its line function. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from openwop_tui.core.event_lines_catalog import (
    Line,
    at_node,
    described,
    fields_of,
    joined,
    string_of,
)
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.value_words import listed, milliseconds, words

# ------------------------------------------------------------------- connectors, policy


def _connector_authorized(event: RunEvent) -> Line:
    p = event.payload
    scopes = listed(p.get("scopes"), 8)
    text = f"connector {string_of(p.get('provider')) or '?'} signed in"
    return "info", joined(text, scopes and f"scopes {scopes}"), False


def _policy(event: RunEvent) -> Line:
    """The Postgres host's provider policy check (``permit`` / ``deny``)."""
    p = event.payload
    decision = string_of(p.get("decision")) or "?"
    denied = decision == "deny"
    verdict = "denied" if denied else "permitted"
    text = f"provider {string_of(p.get('provider')) or '?'} {verdict} by policy"
    mode = string_of(p.get("mode"))
    return (
        "warning" if denied else "info",
        joined(text, mode and f"mode {mode}", string_of(p.get("reason")), at_node(event)),
        not denied,
    )


def _vote(event: RunEvent) -> Line:
    """The SQLite and Postgres hosts' quorum approvals: a vote counted, the quorum pending."""
    votes = event.payload.get("votes")
    count = len(votes) if isinstance(votes, list) else None
    shown = words(votes, 100) if votes else None
    text = f"vote counted {at_node(event) or ''}".strip()
    return "info", joined(text, f"{count} so far" if count is not None else None, shown), False


def _mcp(event: RunEvent) -> Line:
    """The Postgres host's MCP call summary (content-free: sizes and a hash)."""
    return "info", joined("MCP tool invoked", at_node(event), fields_of(event)), True


# ------------------------------------------------------------------------------ voice


def _at(event: RunEvent) -> str | None:
    at = milliseconds(event.payload.get("atMs"))
    return f"at {at}" if at else None


def _voice(what: str) -> Callable[[RunEvent], Line]:
    def line(event: RunEvent) -> Line:
        return (
            "info",
            joined(f"voice: {what}", _at(event), string_of(event.payload.get("reason"))),
            True,
        )

    return line


def _transcript(event: RunEvent) -> Line:
    p = event.payload
    final = p.get("isFinal") is True
    text = string_of(p.get("formatted")) or string_of(p.get("text")) or "…"
    return "info", f"voice {'heard' if final else 'hearing'}: {text}", not final


def _turn_commit(event: RunEvent) -> Line:
    return "info", f"voice turn: {string_of(event.payload.get('finalText')) or '…'}", False


def _synthesis(event: RunEvent) -> Line:
    p = event.payload
    took = milliseconds(p.get("durationMs"))
    text = f"voice reply chunk {words(p.get('seq'), 20)}"
    return (
        "info",
        joined(text, string_of(p.get("mimeType")), took, "last" if p.get("final") else None),
        True,
    )


OPS_LINES: dict[str, Callable[[RunEvent], Line]] = {
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
