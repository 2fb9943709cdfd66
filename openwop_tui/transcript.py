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
* run and node lifecycle, failures, interrupts and anything else worth a line.

Unknown event types are ignored, and the fold never raises on what a host sends: an event a
handler fails on becomes an error `Notice` naming its type and quoting its JSON (escaped, cut),
and the run goes on (`Transcript.apply`). Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.items import (
    Added,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Item,
    Level,
    Limits,
    Notice,
    Reasoning,
    TextBuffer,
    ToolCall,
    Updated,
    UserTurn,
)
from openwop_tui.protocol.envelopes import Envelope, extract_envelopes, reply_completion
from openwop_tui.protocol.events import CHUNK_TYPES, RunEvent, chunk_text
from openwop_tui.sanitize import clean
from openwop_tui.units import compact_json

# The item types are re-exported: `from openwop_tui.transcript import Notice` reads naturally.
__all__ = [
    "Added",
    "AssistantTurn",
    "Change",
    "EnvelopeItem",
    "Item",
    "Level",
    "Limits",
    "Notice",
    "Reasoning",
    "ToolCall",
    "Transcript",
    "Updated",
    "UserTurn",
]


#: How much of an unreadable event's JSON its error notice quotes.
UNREADABLE_EXCERPT = 300


def _unreadable(event: RunEvent, error: Exception) -> str:
    """The sentence for an event a handler failed on: its type, what failed, its JSON."""
    try:
        kind = clean(str(event.type))[:80]
        shown = compact_json(event.raw if event.raw is not None else event.payload, 10_000)
        # Cleaned first, then cut: the excerpt shows every control as its visible form.
        excerpt = clean(shown)[:UNREADABLE_EXCERPT]
        more = "…" if len(shown) > UNREADABLE_EXCERPT else ""
    except Exception:  # the event itself is broken beyond showing
        kind, excerpt, more = "?", "(cannot be shown)", ""
    # The exception's type only: its message may quote host text, and says nothing to a user.
    return (
        f"could not read a {kind} event ({type(error).__name__}); the run goes on · {excerpt}{more}"
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _error_of(payload: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(code, message)`` from ``payload.error{}``, else from the top level (protocol.md §8.4)."""
    error = payload.get("error")
    if isinstance(error, Mapping):
        return _text(error.get("code")), _text(error.get("message"))
    if isinstance(error, str):
        return error, _text(payload.get("message"))
    return _text(payload.get("code")), _text(payload.get("message"))


@dataclass
class Transcript:
    """The fold's state: the items so far, and the run status it has seen."""

    items: list[Item] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    """How much of a reply, reasoning block or tool call is drawn (the rest is kept)."""
    status: str | None = None
    """The last run status the events told of (``running``, ``completed``, ``failed``…)."""
    _counter: int = 0
    _open_turns: dict[str | None, AssistantTurn] = field(default_factory=dict)
    _reasoning: dict[str, Reasoning] = field(default_factory=dict)
    _calls: dict[str, ToolCall] = field(default_factory=dict)
    _seen_envelopes: set[str] = field(default_factory=set)
    _emissions: dict[str, EnvelopeItem] = field(default_factory=dict)
    """Streamed emissions still incomplete, by correlation id."""

    # ----------------------------------------------------------------- helpers

    def _next_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter}"

    def _add(self, item: Item) -> Added:
        self.items.append(item)
        return Added(item)

    def _notice(
        self, level: Level, text: str, event: RunEvent | None = None, *, verbose: bool = False
    ) -> Added:
        return self._add(Notice(self._next_id("notice"), level, text, verbose, event))

    def _close_turns(self) -> list[Change]:
        """Settle everything still open: replies, reasoning, tool calls (the run ended).

        A tool call that never returned or reasoning that never got its ``agent.reasoned``
        will not change any more, and the view only moves settled items to its history.
        """
        changes: list[Change] = []
        for turn in self._open_turns.values():
            if not turn.final:
                turn.final = True
                changes.append(Updated(turn))
        self._open_turns.clear()
        pending: list[Reasoning | ToolCall] = [*self._reasoning.values(), *self._calls.values()]
        for item in pending:
            if not item.done:
                item.done = True
                changes.append(Updated(item))
        self._reasoning.clear()
        self._calls.clear()
        return changes

    def close_open(self) -> list[Change]:
        """Settle every open item because the stream ended without a terminal event."""
        return self._close_turns()

    # -------------------------------------------------------------- public API

    def add_user(self, text: str) -> Added:
        """Record a user turn (the client knows it before any event does)."""
        return self._add(UserTurn(self._next_id("user"), text))

    def add_notice(self, level: Level, text: str, *, verbose: bool = False) -> Added:
        """Record a line that did not come from a run event (stream trouble, client errors)."""
        return self._notice(level, text, verbose=verbose)

    def apply(self, event: RunEvent) -> list[Change]:
        """Fold one event in; return what changed (often nothing). Never raises.

        A handler that fails (a hand-built event of an unexpected shape, a bug) turns the event
        into an error `Notice` with its type and raw JSON, and the fold goes on.
        """
        try:
            handler = _HANDLERS.get(event.type)
            if handler is not None:
                return handler(self, event)
            if event.type in CHUNK_TYPES:
                return self._on_chunk(event)
            return []
        except Exception as error:
            return [self._notice("error", _unreadable(event, error), event)]

    # ----------------------------------------------------------------- chunks

    def _on_chunk(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        delta = chunk_text(event)
        if delta is None:
            return []
        meta = payload.get("meta")
        meta = meta if isinstance(meta, Mapping) else {}
        turn = self._open_turns.get(event.node_id)
        changes: list[Change] = []
        if turn is None or turn.final:
            turn = self._new_turn(event.node_id)
            self._open_turns[event.node_id] = turn
            changes.append(self._add(turn))
        turn.model = turn.model or _text(meta.get("model"))
        turn.finish_reason = _text(meta.get("finishReason")) or turn.finish_reason
        if delta:
            # O(delta): the buffer keeps parts. Past the limit nothing more is drawn, but the
            # (empty) delta still tells the view that the "cut" count grew.
            changes.append(Updated(turn, turn.body.append(delta)))
        return changes

    def _new_turn(self, node_id: str | None) -> AssistantTurn:
        return AssistantTurn(self._next_id("assistant"), node_id, limit=self.limits.reply_bytes)

    def _new_reasoning(self, agent: str) -> Reasoning:
        return Reasoning(self._next_id("reasoning"), agent, limit=self.limits.reasoning_bytes)

    # ---------------------------------------------------------------- lifecycle

    def _on_run_started(self, event: RunEvent) -> list[Change]:
        self.status = "running"
        workflow = _text(event.payload.get("workflowId"))
        text = f"run started · {workflow}" if workflow else "run started"
        return [self._notice("info", text, event, verbose=True)]

    def _on_run_completed(self, event: RunEvent) -> list[Change]:
        self.status = "completed"
        duration = event.payload.get("durationMs")
        suffix = f" in {duration / 1000:.2f} s" if isinstance(duration, int | float) else ""
        return [*self._close_turns(), self._notice("info", f"run completed{suffix}", event)]

    def _on_run_failed(self, event: RunEvent) -> list[Change]:
        self.status = "failed"
        code, message = _error_of(event.payload)
        detail = ": ".join(part for part in (code, message) if part) or "no reason given"
        node = _text(event.payload.get("failedNodeId"))
        where = f" at node {node}" if node else ""
        return [*self._close_turns(), self._notice("error", f"run failed{where} · {detail}", event)]

    def _on_run_cancelled(self, event: RunEvent) -> list[Change]:
        self.status = "cancelled"
        reason = _text(event.payload.get("reason"))
        text = f"run cancelled · {reason}" if reason else "run cancelled"
        return [*self._close_turns(), self._notice("warning", text, event)]

    def _on_node_started(self, event: RunEvent) -> list[Change]:
        node = event.node_id or "?"
        type_id = _text(event.payload.get("typeId"))
        text = f"node {node} started" + (f" · {type_id}" if type_id else "")
        return [self._notice("info", text, event, verbose=True)]

    def _on_node_completed(self, event: RunEvent) -> list[Change]:
        changes: list[Change] = []
        outputs = event.payload.get("outputs")
        outputs = outputs if isinstance(outputs, Mapping) else {}
        envelopes = extract_envelopes(event)
        completion = reply_completion(event, envelopes)
        turn = self._open_turns.pop(event.node_id, None)

        if completion is not None:
            if turn is None:
                turn = self._new_turn(event.node_id)
                changes.append(self._add(turn))
            if turn.full_text != completion:
                # The completion is authoritative: it replaces whatever the deltas built, and
                # is capped the same way.
                turn.text = completion
            turn.model = turn.model or _text(outputs.get("model"))
        if turn is not None:
            turn.final = True
            changes.append(Updated(turn))

        for envelope in envelopes:
            changes.extend(self._on_envelope(envelope))

        duration = event.payload.get("durationMs")
        suffix = f" in {duration} ms" if isinstance(duration, int | float) else ""
        changes.append(
            self._notice(
                "info", f"node {event.node_id or '?'} completed{suffix}", event, verbose=True
            )
        )
        return changes

    def _on_envelope(self, envelope: Envelope) -> list[Change]:
        if envelope.key in self._seen_envelopes:
            return []
        self._seen_envelopes.add(envelope.key)
        emission = envelope.correlation_id if envelope.partial is not None else None
        if emission is not None and emission in self._emissions:
            # A later fragment of a streamed emission (rule E1): it replaces the one drawn.
            item = self._emissions[emission]
            item.envelope = envelope
            if not envelope.partial:
                del self._emissions[emission]
            return [Updated(item)]
        item = EnvelopeItem(self._next_id("envelope"), envelope)
        if emission is not None and envelope.partial:
            self._emissions[emission] = item
        return [self._add(item)]

    def _on_media(self, event: RunEvent) -> list[Change]:
        changes: list[Change] = []
        for envelope in extract_envelopes(event):
            changes.extend(self._on_envelope(envelope))
        return changes

    def _on_node_failed(self, event: RunEvent) -> list[Change]:
        code, message = _error_of(event.payload)
        detail = ": ".join(part for part in (code, message) if part) or "no reason given"
        turn = self._open_turns.pop(event.node_id, None)
        changes: list[Change] = []
        if turn is not None:
            turn.final = True
            changes.append(Updated(turn))
        changes.append(
            self._notice("error", f"node {event.node_id or '?'} failed · {detail}", event)
        )
        return changes

    def _on_node_suspended(self, event: RunEvent) -> list[Change]:
        self.status = "waiting"
        payload = event.payload
        kind = _text(payload.get("kind")) or "input"
        config = payload.get("config")
        config = config if isinstance(config, Mapping) else {}
        title = _text(config.get("title")) or _text(payload.get("title"))
        description = _text(config.get("description"))
        parts = [f"run is waiting for {kind} at node {event.node_id or '?'}"]
        parts += [part for part in (title, description) if part]
        parts.append("this client cannot answer interrupts yet: resolve it elsewhere or cancel")
        return [self._notice("warning", " · ".join(parts), event)]

    def _on_node_resumed(self, event: RunEvent) -> list[Change]:
        self.status = "running"
        return [self._notice("info", f"node {event.node_id or '?'} resumed", event)]

    # -------------------------------------------------------------- reasoning

    def _on_reasoning_delta(self, event: RunEvent) -> list[Change]:
        agent = _text(event.payload.get("agentId")) or "agent"
        delta = event.payload.get("delta")
        if not isinstance(delta, str):
            return []
        item = self._reasoning.get(agent)
        changes: list[Change] = []
        if item is None or item.done:
            item = self._new_reasoning(agent)
            self._reasoning[agent] = item
            changes.append(self._add(item))
        changes.append(Updated(item, item.body.append(delta)))
        return changes

    def _on_reasoned(self, event: RunEvent) -> list[Change]:
        agent = _text(event.payload.get("agentId")) or "agent"
        text = event.payload.get("reasoning")
        item = self._reasoning.get(agent)
        changes: list[Change] = []
        if item is None or item.done:
            item = self._new_reasoning(agent)
            changes.append(self._add(item))
        self._reasoning[agent] = item
        if isinstance(text, str) and text != item.full_text:
            item.text = text
        item.done = True
        changes.append(Updated(item))
        return changes

    # ------------------------------------------------------------------ tools

    def _on_tool_called(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        call_id = _text(payload.get("callId")) or self._next_id("call")
        call = ToolCall(
            id=self._next_id("tool"),
            call_id=call_id,
            agent_id=_text(payload.get("agentId")) or "agent",
            tool_name=_text(payload.get("toolName")) or "tool",
            inputs=payload.get("inputs"),
            json_limit=self.limits.tool_bytes,
        )
        if call.inputs is not None:
            call.inputs_json, call.inputs_cut = self._json_shown(call.inputs)
        self._calls[call_id] = call
        return [self._add(call)]

    def _on_tool_returned(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        call_id = _text(payload.get("callId")) or ""
        call = self._calls.get(call_id)
        changes: list[Change] = []
        if call is None:
            call = ToolCall(
                id=self._next_id("tool"),
                call_id=call_id,
                agent_id=_text(payload.get("agentId")) or "agent",
                tool_name=_text(payload.get("toolName")) or "tool",
                json_limit=self.limits.tool_bytes,
            )
            changes.append(self._add(call))
        call.outcome = payload.get("outcome")
        call.error = payload.get("error")
        call.status = _text(payload.get("status")) or ("error" if call.error else "ok")
        result = call.error if call.error is not None else call.outcome
        if result is not None:
            call.outcome_json, call.outcome_cut = self._json_shown(result)
        call.done = True
        changes.append(Updated(call))
        return changes

    def _json_shown(self, value: Any) -> tuple[str, int]:
        """A tool value as compact JSON cut at the tool limit, and how many bytes were cut.

        Serialised once here, so drawing the call (every refresh) never walks a huge value.
        """
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
        except (TypeError, ValueError, RecursionError):  # a cycle, or nesting too deep
            text = repr(value)
        buffer = TextBuffer(text, self.limits.tool_bytes)
        return buffer.shown, buffer.cut_bytes

    # ------------------------------------------------------------ other lines

    def _on_handoff(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = (
            f"{_text(p.get('fromAgentId')) or '?'} handed off to {_text(p.get('toAgentId')) or '?'}"
        )
        reason = _text(p.get("reason"))
        return [self._notice("info", text + (f" · {reason}" if reason else ""), event)]

    def _on_decided(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = (
            f"{_text(p.get('agentId')) or 'agent'} decided {compact_json(p.get('decision'), 160)}"
        )
        confidence = p.get("confidence")
        if isinstance(confidence, int | float):
            text += f" · confidence {confidence:.2f}"
        return [self._notice("info", text, event)]

    def _on_usage(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = (
            f"usage · {_text(p.get('provider')) or '?'}/{_text(p.get('model')) or '?'} · "
            f"{p.get('inputTokens', '?')} in, {p.get('outputTokens', '?')} out"
        )
        return [self._notice("info", text, event, verbose=True)]

    def _on_artifact(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = (
            f"artifact {_text(p.get('artifactId')) or '?'} ({_text(p.get('artifactType')) or '?'})"
        )
        summary = _text(p.get("summary"))
        return [self._notice("info", text + (f" · {summary}" if summary else ""), event)]

    def _on_log(self, event: RunEvent) -> list[Change]:
        p = event.payload
        level = _text(p.get("level")) or "info"
        mapped: Level = "error" if level == "error" else "warning" if level == "warn" else "info"
        text = f"log {level} · {_text(p.get('message')) or compact_json(p, 160)}"
        return [self._notice(mapped, text, event, verbose=mapped == "info")]

    def _on_refusal(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = _text(p.get("refusalText")) or "no refusal text given"
        return [self._notice("warning", f"the model refused · {text}", event)]

    def _on_truncated(self, event: RunEvent) -> list[Change]:
        reason = _text(event.payload.get("stopReason")) or "unknown reason"
        return [self._notice("warning", f"the model's output was truncated · {reason}", event)]

    def _on_retry(self, event: RunEvent) -> list[Change]:
        p = event.payload
        text = f"envelope retry {p.get('attempt', '?')} · {_text(p.get('reason')) or '?'}"
        return [self._notice("warning", text, event, verbose=True)]


_HANDLERS = {
    "run.started": Transcript._on_run_started,
    "run.completed": Transcript._on_run_completed,
    "run.failed": Transcript._on_run_failed,
    "run.cancelled": Transcript._on_run_cancelled,
    "node.started": Transcript._on_node_started,
    "node.completed": Transcript._on_node_completed,
    "node.failed": Transcript._on_node_failed,
    "node.suspended": Transcript._on_node_suspended,
    "node.resumed": Transcript._on_node_resumed,
    "media.image": Transcript._on_media,
    "media.audio": Transcript._on_media,
    "media.file": Transcript._on_media,
    "agent.reasoning.delta": Transcript._on_reasoning_delta,
    "agent.reasoned": Transcript._on_reasoned,
    "agent.toolCalled": Transcript._on_tool_called,
    "agent.toolReturned": Transcript._on_tool_returned,
    "agent.handoff": Transcript._on_handoff,
    "agent.decided": Transcript._on_decided,
    "provider.usage": Transcript._on_usage,
    "artifact.created": Transcript._on_artifact,
    "log.appended": Transcript._on_log,
    "envelope.refusal": Transcript._on_refusal,
    "envelope.truncated": Transcript._on_truncated,
    "envelope.retry.attempted": Transcript._on_retry,
}
