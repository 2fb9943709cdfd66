"""Every run event type the client knows by name, in v1 spelling.

`KNOWN_TYPES` is the union of the v1 enum (``schemas/run-event.schema.json#/$defs/RunEventType``,
84 values in the conformance 1.11.0 copy), every row of the v2 codemap
(``spec/v2/event-codemap.json`` v2.0, 117 rows, named here by their v1 spelling:
`openwop_tui.protocol.events.canonical_type` folds the v2 names onto them), the media envelope
events and ``state.snapshot`` of protocol.md §3.4/§4, and the types the
reference hosts of openwop-examples send outside the catalog (``policy.decision``,
``interrupt.vote`` and ``mcp.invoked`` from the SQLite and Postgres hosts).

A known type is drawn deliberately: as an item (reply, reasoning, tool call, envelope,
interrupt) or as a sentence of its own. Only a type outside this set gets the generic line that
quotes its payload (`openwop_tui.core.event_lines.generic`); the capture walk in the tests holds the
fold and the printer to that. Pure data.
"""

from __future__ import annotations

#: The 117 rows of the v2 codemap, by their v1 names (the v1 enum values among them).
CODEMAP_V1_NAMES: tuple[str, ...] = (
    "run.started", "run.completed", "run.failed", "run.cancelled", "run.resuming",
    "run.paused", "run.resumed", "run.restored-from-snapshot", "run.dead_lettered",
    "node.started", "node.completed", "node.failed", "node.suspended", "node.suspend-failed",
    "node.resumed", "node.retried", "node.skipped", "node.cancelled",
    "approval.requested", "approval.received", "approval.granted", "approval.rejected",
    "approval.overridden", "clarification.requested", "clarification.resolved",
    "interrupt.requested", "interrupt.resolved", "channel.written", "channel.presence",
    "context.summarized", "artifact.created", "output.chunk", "variable.changed",
    "log.appended", "version.pinned", "workflow.restored", "workflow.loopback-limit",
    "workflow.stalled", "cap.breached", "lease.acquired", "lease.renewed", "lease.lost",
    "lease.handed-off", "replay.diverged", "replay.divergedAtRefusal", "agent.reasoned",
    "agent.reasoning.delta", "provider.usage", "prompt.composed", "agent.promptResolved",
    "model.capability.substituted", "model.capability.insufficient",
    "envelope.retry.attempted", "envelope.retry.exhausted", "envelope.refusal",
    "envelope.truncated", "envelope.nlToFormat.engaged", "envelope.recovery.applied",
    "agent.toolCalled", "agent.toolReturned", "agent.handoff", "agent.decided",
    "agent.verified", "agent.invocation.started", "agent.invocation.completed",
    "eval.started", "eval.scored", "eval.completed", "deployment.promoted",
    "deployment.rolled-back", "deployment.canary.adjusted", "deployment.state.changed",
    "roster.run.initiated", "tool.session.opened", "tool.session.closed", "egress.decided",
    "trigger.subscription.state.changed", "trigger.delivery.attempted", "budget.reserved",
    "budget.consumed", "budget.threshold.crossed", "budget.exhausted",
    "runOrchestrator.decided", "node.dispatched", "core.dispatch.fanOut",
    "core.dispatch.join", "conversation.opened", "conversation.exchanged",
    "conversation.closed", "memory.compacted", "memory.written", "agent.memory.consolidated",
    "commitment.fired", "workspace.updated", "core.workflowChain.event",
    "core.workflowChain.confidence-escalated", "connector.authorized",
    "connector.auth_expired", "authorization.decided", "proposal.created",
    "proposal.activated", "goal.evaluated", "goal.closed", "import.applied",
    "voice.speech_start", "voice.transcript", "voice.endpoint_candidate", "voice.turn_commit",
    "voice.synthesis_chunk", "voice.barge_in", "voice.cancelled", "compensation.requested",
    "compensation.started", "compensation.completed", "compensation.failed",
    "compensation.paused", "compensation.manual_intervention_required",
)  # fmt: skip

#: Sent by the reference hosts (openwop-examples) though the catalog does not list them.
HOST_TYPES: tuple[str, ...] = ("policy.decision", "interrupt.vote", "mcp.invoked")

#: Carried by the streams themselves: values-mode snapshots, envelope events, chunk spellings.
STREAM_TYPES: tuple[str, ...] = (
    "state.snapshot",
    "media.image",
    "media.audio",
    "media.file",
    "ai.message.chunk",
    "node.message",
    "node.interrupt.resolved",
)

KNOWN_TYPES: frozenset[str] = frozenset(CODEMAP_V1_NAMES + HOST_TYPES + STREAM_TYPES)
"""Every type with a deliberate presentation (see the module docstring)."""
