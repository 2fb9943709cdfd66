"""The transcript fold: run events in, turns and envelopes out.

`Transcript.apply` takes one `RunEvent` at a time and returns what changed, as `Added` and
`Updated` records, so a view can draw incrementally: a streamed token is an `Updated` with the
delta, never a re-render of everything before it.

What the fold understands (protocol.md §3.6, §6):

* user turns, added by the client itself (`add_user`);
* assistant turns assembled from ``output.chunk`` / ``ai.message.chunk`` / ``node.message``
  deltas and finalised by ``node.completed.outputs.completion`` (authoritative: it replaces the
  streamed text when the two differ);
* reasoning: ``agent.reasoning.delta`` deltas, then ``agent.reasoned`` (authoritative);
* tool calls and their returns, matched on ``callId``;
* every envelope, in order, de-duplicated on its correlation id (re-emission rule E2);
* interrupts: ``interrupt.requested``, ``clarification.requested``, ``approval.requested`` and
  ``node.suspended`` become one `Interrupt` per node (merged, never drawn twice), answered by
  ``node.resumed``, ``interrupt.resolved``, ``approval.received``, a rejected gate's
  ``node.completed {outcome: "rejected"}``, or closed when the node or run ends;
* run status through pauses (``run.paused`` → ``paused``, ``run.resumed`` → ``running``) and
  waits (``waiting``), and ``provider.usage`` summed per turn and per session (`Usage`);
* every other type as one line (`openwop_tui.core.event_lines`): a sentence where the client knows
  the type, else a compact generic line.

The fold never raises on what a host sends: an event a handler fails on becomes an error
`Notice` naming its type and quoting its JSON (escaped, cut), and the run goes on
(`Transcript.apply`). Pure: no I/O.

One module per family of events, each of functions that take the transcript (``fold``) and
the event, all registered in one table (`openwop_tui.core.fold._handlers`):

* `openwop_tui.core.fold.transcript`: the state and the public API (`Transcript`);
* ``_run``: the run's lifecycle (``run.*``, ``state.snapshot``);
* ``_nodes``: a node's start and end (``node.started``, ``.completed``, ``.failed``,
  ``.cancelled``) and the envelopes nodes and ``media.*`` events carry;
* ``_replies``: streamed text, conversation turns and OpenClaw's directives;
* ``_interrupts``: requests, their answers (``node.resumed`` too) and approval gates;
* ``_agents``: reasoning, tool calls, usage and artifacts;
* ``_common``: what they share (payload text, errors, the generic one-line event).

The transcript and the item types it makes are re-exported here:
``from openwop_tui.core.fold import Notice`` reads naturally.
"""

from __future__ import annotations

from openwop_tui.core.fold.transcript import Transcript
from openwop_tui.core.items import (
    Added,
    ArtifactNotice,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Interrupt,
    Item,
    Level,
    Limits,
    Notice,
    Reasoning,
    ToolCall,
    Updated,
    Usage,
    UserTurn,
)

__all__ = [
    "Added",
    "ArtifactNotice",
    "AssistantTurn",
    "Change",
    "EnvelopeItem",
    "Interrupt",
    "Item",
    "Level",
    "Limits",
    "Notice",
    "Reasoning",
    "ToolCall",
    "Transcript",
    "Updated",
    "Usage",
    "UserTurn",
]
