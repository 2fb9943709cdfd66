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
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from openwop_tui.core.directives import TurnDirectives, as_embed, structured_media
from openwop_tui.core.event_lines import line_for
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
    TextBuffer,
    ToolCall,
    Updated,
    Usage,
    UserTurn,
)
from openwop_tui.protocol.envelopes import Envelope, extract_envelopes, reply_completion
from openwop_tui.protocol.events import CHUNK_TYPES, RunEvent, chunk_text
from openwop_tui.protocol.hostdata import host_str
from openwop_tui.protocol.interrupts import (
    REQUEST_TYPES,
    InterruptRequest,
    InterruptState,
    describe_value,
    read_request,
    request_from_snapshot,
    summarize,
)
from openwop_tui.text.sanitize import HostLine, HostText, clean_own, one_line
from openwop_tui.text.split_keys import StreamMask
from openwop_tui.text.units import compact_json
from openwop_tui.text.value_words import milliseconds, words

# The item types are re-exported: `from openwop_tui.core.fold import Notice` reads naturally.
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


#: How much of an unreadable event's JSON its error notice quotes.
UNREADABLE_EXCERPT = 300

#: Characters of a tool call's inputs, and of its outcome, drawn in words (the JSON is kept).
TOOL_WORDS = 400


def _unreadable(event: RunEvent, error: Exception) -> str:
    """The sentence for an event a handler failed on: its type, what failed, its JSON."""
    try:
        # The event's type and documents were cleaned by `normalize`, so their JSON is too.
        kind = str(event.type)[:80]
        shown = compact_json(event.raw if event.raw is not None else event.payload, 10_000)
        excerpt = shown[:UNREADABLE_EXCERPT]
        more = "…" if len(shown) > UNREADABLE_EXCERPT else ""
    except Exception:  # the event itself is broken beyond showing
        kind, excerpt, more = "?", "(cannot be shown)", ""
    # The exception's type only: its message may quote host text, and says nothing to a user.
    return (
        f"could not read a {kind} event ({type(error).__name__}); the run goes on · {excerpt}{more}"
    )


def _is_lifted_hint(envelope: Envelope) -> bool:
    """An envelope that is only ``outputs.rendering`` on ``outputs.completion`` (no object)."""
    return envelope.kind == "completion" and envelope.document is None


def _text(value: Any) -> HostText | None:
    """A non-empty string of an event's payload (cleaned by `normalize`), or ``None``."""
    return host_str(value)


def _made(text: str) -> HostText:
    """Text the fold made of an event's cleaned fields and payload values (`normalize` cleaned
    them) and its own words: clean by construction, never cleaned again. The walk test
    (``tests/hostile/test_boundary_walk.py``) checks every string of every item it makes."""
    return HostText(text)


def _line(text: str) -> HostLine:
    """`_made` text the client draws as one line (a notice, a tool call's words): a newline in
    a host value shows as ``␊`` (`one_line`), so a reason, an error message or a tool's outcome
    cannot end the line and forge the client's next (``• run completed``)."""
    return one_line(_made(text))


def _kept_source(envelope: Envelope) -> Envelope:
    """``envelope`` with its source event as an item keeps it: its place, not the frame's wire
    text (an item keeps its text and its place; the event itself is in the log)."""
    if envelope.source.wire is None:
        return envelope
    return replace(envelope, source=replace(envelope.source, wire=None))


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
    """The last run status the events told of: ``running``, ``paused``, ``waiting`` (for a
    person), ``completed``, ``failed``, ``cancelled``."""
    usage_turn: Usage = field(default_factory=Usage)
    """``provider.usage`` summed since the last user turn or run start."""
    usage_session: Usage = field(default_factory=Usage)
    """``provider.usage`` summed over everything this transcript saw."""
    secrets: tuple[str, ...] = ()
    """What is masked across the chunks of a reply or reasoning block (the API key): a key a
    host splits between two chunks is whole only once they are joined (`StreamMask`)."""
    _masks: dict[str, StreamMask] = field(default_factory=dict)
    """The stream mask of each open reply and reasoning block, by item id."""
    _counter: int = 0
    _interrupts: dict[str | None, Interrupt] = field(default_factory=dict)
    """Pending interrupts by node id (a node waits on one interrupt at a time)."""
    _settled_interrupts: dict[str | None, Interrupt] = field(default_factory=dict)
    """The last settled interrupt of each node: a host tells of one answer in several events
    (``interrupt.resolved``, ``clarification.resolved``, ``node.resumed``…), and those after
    the first are about an interrupt already settled, not news."""
    _moved_on: set[str | None] = field(default_factory=set)
    """Nodes resumed, completed or failed since this client's answer to them was accepted.
    Until a node moves on, a request event about it that names no interrupt (the reference
    hosts' ``node.suspended``) is history catching up with the answer (``attach --from`` answers
    the snapshot's question before the replay reaches its events), not a new question."""
    _open_turns: dict[str | None, AssistantTurn] = field(default_factory=dict)
    _reasoning: dict[str, Reasoning] = field(default_factory=dict)
    _calls: dict[str, ToolCall] = field(default_factory=dict)
    _seen_envelopes: set[str] = field(default_factory=set)
    _emissions: dict[str, EnvelopeItem] = field(default_factory=dict)
    """Streamed emissions still incomplete, by correlation id."""
    _own_turns: list[str] = field(default_factory=list)
    """User turns this client added that no ``conversation.exchanged`` has echoed yet."""
    _echo: dict[str | None, tuple[str, int]] = field(default_factory=dict)
    """A conversation reply already drawn from ``conversation.exchanged``, by node, and how much
    of it chunks have repeated since: chunks that repeat it are not drawn twice."""

    # ----------------------------------------------------------------- helpers

    def _next_id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}-{self._counter}"

    def _add(self, item: Item) -> Added:
        self.items.append(item)
        return Added(item)

    def _notice(self, level: Level, text: str, *, verbose: bool = False) -> Added:
        item = Notice(self._next_id("notice"), level, _line(text), verbose)
        return self._add(item)

    def _close_turns(self) -> list[Change]:
        """Settle everything still open: replies, reasoning, tool calls (the run ended).

        A tool call that never returned or reasoning that never got its ``agent.reasoned``
        will not change any more, and the view only moves settled items to its history.
        """
        changes = self._settle_replies()
        pending: list[Reasoning | ToolCall] = [*self._reasoning.values(), *self._calls.values()]
        for item in pending:
            if not item.done:
                if isinstance(item, Reasoning):
                    held = self._unmasked(item.id)
                    if held:
                        item.body.append(held)
                item.done = True
                changes.append(Updated(item))
        self._reasoning.clear()
        self._calls.clear()
        return changes

    def close_open(self) -> list[Change]:
        """Settle every open item because the stream ended without a terminal event."""
        return self._close_turns()

    # ------------------------------------------------------------ kept folds

    @property
    def at_rest(self) -> bool:
        """Whether nothing is left open (replies, reasoning, calls, questions, streamed
        emissions): the state a completed run leaves, the only one a kept fold is taken in
        (`openwop_tui.core.reopen`)."""
        return not (
            self._open_turns
            or self._reasoning
            or self._calls
            or self._emissions
            or any(item.state == "pending" for item in self._interrupts.values())
        )

    def carried(self) -> dict[str, Any]:
        """The state that carries from one run to the next (beside the items): ids, status,
        usage, the turns awaiting their echo. A copy: keeping it changes nothing here."""
        return {
            "counter": self._counter,
            "status": self.status,
            "usage_turn": replace(self.usage_turn),
            "usage_session": replace(self.usage_session),
            "own_turns": list(self._own_turns),
            "echo": dict(self._echo),
        }

    def carried_key(self) -> tuple[Any, ...]:
        """`carried` as plain values, cheap to compare (a fingerprint of the fold's state)."""
        turn, total = self.usage_turn, self.usage_session
        return (
            self._counter,
            self.status,
            (turn.input_tokens, turn.output_tokens, turn.total_tokens, turn.cost_usd, turn.events),
            (total.input_tokens, total.output_tokens, total.total_tokens, total.cost_usd),
            total.events,
            tuple(self._own_turns),
            tuple(sorted(self._echo.items(), key=repr)),
        )

    def resume(self, items: list[Item], carried: dict[str, Any]) -> None:
        """Continue after a run folded elsewhere (a kept fold): its ``items`` join the
        transcript and the state it left (`carried`) is this one's, as if its events had been
        folded here."""
        self.items.extend(items)
        self._counter = int(carried["counter"])
        self.status = carried["status"]
        self.usage_turn = carried["usage_turn"]
        self.usage_session = carried["usage_session"]
        self._own_turns = list(carried["own_turns"])
        self._echo = dict(carried["echo"])
        for item in items:
            if isinstance(item, EnvelopeItem):
                self._seen_envelopes.add(item.envelope.key)
            elif isinstance(item, Interrupt) and item.request is not None:
                self._settled_interrupts[item.request.node_id] = item

    # -------------------------------------------------------------- public API

    def add_user(self, text: HostText) -> Added:
        """Record a user turn (the client knows it before any event does).

        Replies still open are settled: in a conversation (one run, many turns) the next reply
        is a new turn, not more of the last one.
        """
        self.usage_turn = Usage()
        # Compared without surrounding blanks: a host may trim the turn it echoes.
        self._own_turns = [*self._own_turns[-7:], text.strip()]
        self._close_replies()
        return self._add(UserTurn(self._next_id("user"), text))

    def _settle_replies(self) -> list[Change]:
        """Every open reply is final: what its directive reader held back joins its text."""
        changes: list[Change] = []
        for turn in self._open_turns.values():
            if not turn.final:
                changes += self._finish_directives(turn, None)
                turn.final = True
                turn.directives = None  # settled: nothing more to read or de-duplicate
                changes.append(Updated(turn))
        self._open_turns.clear()
        return changes

    def _close_replies(self) -> None:
        """A user turn cuts the open replies short (the next reply is a new turn). Their
        changes are not returned: the view redraws a settled reply when it next draws it."""
        self._echo.clear()
        self._settle_replies()

    @property
    def own_turns(self) -> tuple[str, ...]:
        """The user turns added here that no conversation event has echoed back yet."""
        return tuple(self._own_turns)

    def add_notice(self, level: Level, text: HostText, *, verbose: bool = False) -> Added:
        """Record a line that did not come from a run event (stream trouble, client errors)."""
        return self._notice(level, text, verbose=verbose)

    def apply(self, event: RunEvent) -> list[Change]:
        """Fold one event in; return what changed (often nothing). Never raises.

        A handler that fails (a hand-built event of an unexpected shape, a bug) turns the event
        into an error `Notice` with its type and raw JSON, and the fold goes on.
        """
        try:
            if event.type in _MOVES_ON:
                self._moved_on.add(event.node_id)
            handler = _HANDLERS.get(event.type)
            if handler is not None:
                return handler(self, event)
            if event.type in CHUNK_TYPES:
                return self._on_chunk(event)
            if event.type in REQUEST_TYPES:
                return self._on_request(event)
            return self._on_line(event)
        except Exception as error:
            return [self._notice("error", _unreadable(event, error))]

    # ----------------------------------------------------------------- chunks

    def _masked(self, item_id: str, piece: str) -> str:
        """``piece`` of item ``item_id``'s stream as it may be shown (`StreamMask`)."""
        if not self.secrets:
            return piece
        stream = self._masks.get(item_id)
        if stream is None:
            stream = self._masks[item_id] = StreamMask(self.secrets)
        return stream.feed(piece)

    def _unmasked(self, item_id: str) -> str:
        """What item ``item_id``'s stream mask still holds, now that the stream ended."""
        stream = self._masks.pop(item_id, None)
        return stream.flush() if stream is not None else ""

    def _on_chunk(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        delta = chunk_text(event)
        if delta is None:
            return []
        if event.piece is not None:
            # The chunk as sent, only whole keys masked: a key cut between this chunk and the
            # next is masked once they are joined (the payload's copy masked its edge apart).
            delta = event.piece
        if event.node_id in self._echo:
            delta = self._unechoed(event.node_id, delta)
            if not delta:
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
        delta = self._masked(turn.id, delta)
        if delta:
            # O(delta): the buffer keeps parts. Past the limit nothing more is drawn, but the
            # (empty) delta still tells the view that the "cut" count grew. Directives are
            # taken out first (held back while incomplete), so none flashes as raw text.
            visible, added, updated = self._directives(turn).delta(delta, event, self._next_id)
            if visible:
                changes.append(Updated(turn, turn.body.append(visible)))
            if added or updated:
                changes += self._directive_changes(added, updated)
        # Structured media beside the text (OpenClaw's mediaUrl / mediaUrls), top level or meta.
        fields = [
            record
            for source in (payload, meta)
            if "mediaUrl" in source or "mediaUrls" in source
            for record in structured_media(source)
        ]
        if fields:
            state = self._directives(turn)
            changes += self._directive_changes(
                *state.items(fields, state.stream.found, event, self._next_id)
            )
        return changes

    def _unechoed(self, node_id: str | None, delta: str) -> str:
        """What of ``delta`` is new, given a reply of ``node_id`` already drawn in full: chunks
        that repeat it are dropped; from the first that does not, chunks draw again."""
        content, seen = self._echo[node_id]
        if content.startswith(delta, seen):
            seen += len(delta)
            if seen >= len(content):
                del self._echo[node_id]
            else:
                self._echo[node_id] = (content, seen)
            return ""
        del self._echo[node_id]
        return delta

    # ------------------------------------------------------------ conversations

    def _on_conversation(self, event: RunEvent) -> list[Change]:
        """RFC 0005 conversation events as turns: ``conversation.opened``'s ``initialTurn``,
        each ``conversation.exchanged`` turn, ``conversation.closed``'s ``finalTurn``. A user
        turn this client sent is not drawn again; an agent turn that chunks already streamed
        settles that reply instead of adding one."""
        p = event.payload
        name = event.type.rsplit(".", 1)[-1]
        key = {"opened": "initialTurn", "exchanged": "turn", "closed": "finalTurn"}.get(name)
        turn = p.get(key) if key else None
        changes: list[Change] = []
        if isinstance(turn, Mapping):
            changes += self._conversation_turn(event, turn)
        line = line_for(event)
        if line is not None:
            level, text, verbose = line
            changes.append(self._notice(level, text, verbose=verbose))
        return changes

    def _conversation_turn(self, event: RunEvent, turn: Mapping[str, Any]) -> list[Change]:
        node_id = event.node_id
        text = turn_text(turn.get("content"))
        if not text:
            return []
        role = _text(turn.get("role")) or ("user" if turn.get("from") == "user" else "agent")
        if role == "user":
            if text.strip() in self._own_turns:
                self._own_turns.remove(text.strip())
                return []
            # Someone else's turn (another client, or a history this client did not send).
            self._close_replies()
            return [self._add(UserTurn(self._next_id("user"), _made(text)))]
        if role == "system":
            return [self._notice("info", text)]
        open_turn = self._open_turns.get(node_id)
        if open_turn is not None and not open_turn.final:
            # Streamed already: the event settles it (its text is the authoritative one, its
            # directives read like a completion's).
            changes = self._final_directives(open_turn, text, {}, event)
            open_turn.final = True
            open_turn.directives = None
            del self._open_turns[node_id]
            return [Updated(open_turn), *changes]
        reply = self._new_turn(node_id)
        added = self._add(reply)
        changes = self._final_directives(reply, text, {}, event)
        reply.final = True
        reply.directives = None
        self._echo[node_id] = (text, 0)
        return [added, *changes]

    # ------------------------------------------------------------- directives

    def _directives(self, turn: AssistantTurn) -> TurnDirectives:
        if turn.directives is None:
            turn.directives = TurnDirectives(markdown_images=self.limits.markdown_images)
        state: TurnDirectives = turn.directives
        return state

    def _directive_changes(self, added: list[Item], updated: list[Item]) -> list[Change]:
        return [*(self._add(item) for item in added), *(Updated(item) for item in updated)]

    def _final_directives(
        self,
        turn: AssistantTurn,
        completion: str | None,
        outputs: Mapping[str, Any],
        event: RunEvent,
    ) -> list[Change]:
        """The final payload's directives: the completion is authoritative (it replaces what the
        deltas built, capped the same way, its directives taken out like the stream's); what
        it and the structured fields name that the stream did not is added."""
        self._masks.pop(turn.id, None)  # the completion replaces what the stream held
        visible, added, updated = self._directives(turn).final(
            completion, outputs, event, self._next_id
        )
        if visible is not None and turn.full_text != visible:
            turn.text = visible
        return self._directive_changes(added, updated)

    def _finish_directives(self, turn: AssistantTurn, event: RunEvent | None) -> list[Change]:
        """The turn is ending: the text its stream mask and directive reader held back, and its
        items."""
        held = self._unmasked(turn.id)
        if turn.directives is None and not held:
            return []
        source = event or RunEvent(type=_made("client.close"), payload={}, node_id=turn.node_id)
        changes: list[Change] = []
        if held:
            visible, added, updated = self._directives(turn).delta(held, source, self._next_id)
            if visible:
                changes.append(Updated(turn, turn.body.append(visible)))
            changes += self._directive_changes(added, updated)
        visible, added, updated = self._directives(turn).finish(source, self._next_id)
        if visible:
            changes.append(Updated(turn, turn.body.append(visible)))
        return changes + self._directive_changes(added, updated)

    def _new_turn(self, node_id: HostText | None) -> AssistantTurn:
        return AssistantTurn(self._next_id("assistant"), node_id, limit=self.limits.reply_bytes)

    def _new_reasoning(self, agent: HostText) -> Reasoning:
        return Reasoning(self._next_id("reasoning"), agent, limit=self.limits.reasoning_bytes)

    # ---------------------------------------------------------------- lifecycle

    def _on_run_started(self, event: RunEvent) -> list[Change]:
        self.status = "running"
        self.usage_turn = Usage()
        workflow = _text(event.payload.get("workflowId"))
        text = f"run started · {workflow}" if workflow else "run started"
        return [self._notice("info", text, verbose=True)]

    def _ended(self, event: RunEvent) -> list[Change]:
        """What every run ending settles: open items, pending interrupts, the turn's usage."""
        changes = self._close_turns()
        for item in list(self._interrupts.values()):
            changes += self._settle(item, "closed", None, "the run ended first")
        if self.usage_turn.events:
            text = f"usage this turn · {self.usage_turn.describe()}"
            if self.usage_session.events > self.usage_turn.events:
                text += f" · session {self.usage_session.describe()}"
            changes.append(self._notice("info", text))
        return changes

    def _on_run_completed(self, event: RunEvent) -> list[Change]:
        self.status = "completed"
        duration = event.payload.get("durationMs")
        suffix = f" in {duration / 1000:.2f} s" if isinstance(duration, int | float) else ""
        return [*self._ended(event), self._notice("info", f"run completed{suffix}")]

    def _on_run_failed(self, event: RunEvent) -> list[Change]:
        self.status = "failed"
        code, message = _error_of(event.payload)
        detail = ": ".join(part for part in (code, message) if part) or "no reason given"
        node = _text(event.payload.get("failedNodeId"))
        where = f" at node {node}" if node else ""
        return [*self._ended(event), self._notice("error", f"run failed{where} · {detail}")]

    def _on_run_cancelled(self, event: RunEvent) -> list[Change]:
        self.status = "cancelled"
        reason = _text(event.payload.get("reason"))
        text = f"run cancelled · {reason}" if reason else "run cancelled"
        return [*self._ended(event), self._notice("warning", text)]

    def _on_run_paused(self, event: RunEvent) -> list[Change]:
        self.status = "paused"
        p = event.payload
        reason = _text(p.get("reason"))
        node = _text(p.get("interruptedNodeId"))
        parts = ["run paused", reason, f"at node {node}" if node else None]
        return [self._notice("warning", " · ".join(x for x in parts if x))]

    def _on_run_resumed(self, event: RunEvent) -> list[Change]:
        # The SQLite and Postgres hosts also send run.resumed when they re-enter a run after an
        # interrupt was answered: said quietly then, since node.resumed already told of it.
        was_paused = self.status == "paused"
        if self.status not in TERMINAL_STATUSES:
            self.status = "running"
        return [self._notice("info", "run resumed", verbose=not was_paused)]

    def _on_snapshot(self, event: RunEvent) -> list[Change]:
        """A ``values``-mode ``state.snapshot``: the status it names, and its open interrupt."""
        changes = self.take_snapshot_question(event.payload, event)
        status = _text(event.payload.get("status"))
        text = f"snapshot · status {status}" if status else "snapshot"
        changes.append(self._notice("info", text, verbose=True))
        return changes

    def _on_node_started(self, event: RunEvent) -> list[Change]:
        node = event.node_id or "?"
        type_id = _text(event.payload.get("typeId"))
        text = f"node {node} started" + (f" · {type_id}" if type_id else "")
        return [self._notice("info", text, verbose=True)]

    def _on_node_completed(self, event: RunEvent) -> list[Change]:
        changes: list[Change] = []
        outputs = event.payload.get("outputs")
        outputs = outputs if isinstance(outputs, Mapping) else {}
        envelopes = extract_envelopes(event)
        turn = self._open_turns.pop(event.node_id, None)
        if turn is not None:
            # A hint lifted beside a streamed reply describes that reply: it is drawn with it
            # (title, alt), not as an envelope printing the same text a second time.
            lifted = [e for e in envelopes if _is_lifted_hint(e)]
            if lifted:
                turn.hint = lifted[0].rendering
                envelopes = [e for e in envelopes if not _is_lifted_hint(e)]
        completion = reply_completion(event, envelopes)

        if turn is not None:
            changes += self._finish_directives(turn, event)
        if turn is None and completion is not None:
            turn = self._new_turn(event.node_id)
            changes.append(self._add(turn))
        directive_items: list[Change] = []
        if turn is not None:
            directive_items = self._final_directives(turn, completion, outputs, event)
            turn.model = turn.model or _text(outputs.get("model"))
            turn.final = True
            changes.append(Updated(turn))
        changes += directive_items

        for envelope in envelopes:
            changes.extend(self._on_envelope(envelope, turn))
        if turn is not None:
            turn.directives = None  # settled: a long session keeps no reader per reply

        took = milliseconds(event.payload.get("durationMs"))
        suffix = f" in {took}" if took else ""
        outcome = _text(event.payload.get("outcome"))
        pending = self._interrupts.get(event.node_id)
        if pending is not None:
            # The reference hosts' rejected gate: node.completed {outcome: "rejected"}, no resume.
            changes += self._settle(pending, "answered", "elsewhere", outcome or "done")
        if outcome == "rejected":
            text = f"node {event.node_id or '?'} rejected: the run will not go on past it"
            changes.append(self._notice("warning", text))
        else:
            text = f"node {event.node_id or '?'} completed{suffix}"
            text += f" · {outcome}" if outcome else ""
            changes.append(self._notice("info", text, verbose=True))
        return changes

    def _on_envelope(self, envelope: Envelope, turn: AssistantTurn | None = None) -> list[Change]:
        """Add (or, for a fragment, update) the envelope's item; audio that comes with ``turn``
        is a voice note when the turn says ``[[audio_as_voice]]``."""
        if envelope.key in self._seen_envelopes:
            return []
        self._seen_envelopes.add(envelope.key)
        emission = envelope.correlation_id if envelope.partial is not None else None
        if emission is not None and emission in self._emissions:
            # A later fragment of a streamed emission (rule E1): it replaces the one drawn.
            item = self._emissions[emission]
            item.envelope = as_embed(_kept_source(envelope))
            if not envelope.partial:
                del self._emissions[emission]
            return [Updated(item)]
        item = EnvelopeItem(self._next_id("envelope"), as_embed(_kept_source(envelope)))
        if turn is not None:
            self._directives(turn).track_audio(item)
        if emission is not None and envelope.partial:
            self._emissions[emission] = item
        return [self._add(item)]

    def _on_media(self, event: RunEvent) -> list[Change]:
        changes: list[Change] = []
        turn = self._open_turns.get(event.node_id)
        for envelope in extract_envelopes(event):
            changes.extend(self._on_envelope(envelope, turn))
        return changes

    def _on_node_failed(self, event: RunEvent) -> list[Change]:
        code, message = _error_of(event.payload)
        detail = ": ".join(part for part in (code, message) if part) or "no reason given"
        turn = self._open_turns.pop(event.node_id, None)
        changes: list[Change] = []
        if turn is not None:
            changes += self._finish_directives(turn, event)
            turn.final = True
            turn.directives = None
            changes.append(Updated(turn))
        pending = self._interrupts.get(event.node_id)
        if pending is not None:
            changes += self._settle(pending, "closed", None, "the node failed")
        changes.append(self._notice("error", f"node {event.node_id or '?'} failed · {detail}"))
        return changes

    def _on_node_cancelled(self, event: RunEvent) -> list[Change]:
        changes: list[Change] = []
        pending = self._interrupts.get(event.node_id)
        if pending is not None:
            changes += self._settle(pending, "closed", None, "the node was cancelled")
        return changes + self._on_line(event)

    # ------------------------------------------------------------- interrupts

    def pending_interrupts(self) -> list[Interrupt]:
        """The interrupts still waiting for an answer, oldest first."""
        return [item for item in self._interrupts.values() if item.state == "pending"]

    def interrupt_answered(
        self, item: Interrupt, resume_value: Any, interrupt_id: str | None = None
    ) -> list[Change]:
        """Record that the host accepted this client's answer (call after a 2xx);
        ``interrupt_id`` is the id the host's answer named, for an item that had none (a
        ``node.suspended`` carries none): a later event about the same interrupt then finds
        it answered instead of asking again."""
        if interrupt_id and item.request is not None and not item.request.interrupt_id:
            item.request.interrupt_id = interrupt_id
        if item.state == "pending":
            self._moved_on.discard(item.request.node_id if item.request else None)
            return self._settle(item, "answered", "you", describe_value(resume_value))
        if item.answered_by != "you" and item.state == "answered":
            # The host's node.resumed came in before its HTTP answer did: it was ours.
            item.answered_by = "you"
            item.text = _interrupt_text(item)
            return [Updated(item)]
        return []

    def interrupt_closed(
        self, item: Interrupt, state: InterruptState, outcome: str, *, by: str | None = None
    ) -> list[Change]:
        """Close a form for what the host answered (409: ``answered`` elsewhere, 410:
        ``expired``, 404/422: ``closed``), with ``outcome`` in a few words."""
        if item.state != "pending":
            return []
        return self._settle(item, state, by, outcome)

    def _settle(
        self, item: Interrupt, state: InterruptState, by: str | None, outcome: str | None
    ) -> list[Change]:
        node = item.request.node_id if item.request else None
        if self._interrupts.get(node) is item:
            del self._interrupts[node]
        self._settled_interrupts[node] = item
        if item.state != "pending":
            return []
        item.state, item.answered_by, item.outcome = state, by, outcome
        item.level = "info" if state == "answered" else "warning"
        item.text = _interrupt_text(item)
        return [Updated(item)]

    def _on_request(self, event: RunEvent) -> list[Change]:
        request = read_request(
            event.type,
            event.payload,
            node_id=event.node_id,
            run_id=event.run_id,
            timestamp=event.timestamp,
        )
        if self.status not in TERMINAL_STATUSES:
            self.status = "waiting"
        return self._take_request(request, event)

    def take_snapshot_question(
        self, snapshot: Mapping[str, Any], event: RunEvent | None = None
    ) -> list[Change]:
        """The status a run snapshot names and its open question: a pending interrupt, as if
        its events had been seen, when the run waits (``GET …/runs/{runId}`` for a client that
        attaches after it was asked, ``attach --from``; a ``values``-mode ``state.snapshot``
        ``event``); nothing when it has none."""
        status = _text(snapshot.get("status"))
        if status:
            self.status = _STATUS_OF.get(status, status)
        request = request_from_snapshot(snapshot)
        if request is None or self.status != "waiting":
            return []
        if event is not None:
            request.run_id = request.run_id or event.run_id
        return self._take_request(request, event)

    def _take_request(self, request: InterruptRequest, event: RunEvent | None) -> list[Change]:
        """One pending item per node: a second event about it fills the first in."""
        changes: list[Change] = []
        settled = self._settled_interrupts.get(request.node_id)
        if (
            settled is not None
            and settled.request is not None
            and (
                (request.interrupt_id and settled.request.interrupt_id == request.interrupt_id)
                or (
                    not request.interrupt_id
                    and settled.answered_by == "you"
                    and request.node_id not in self._moved_on
                )
            )
        ):
            # A late event about an interrupt already answered (the host's answer to ours
            # named it, or it names none and the node has not moved on since): not a new
            # question.
            settled.request.merge(request)
            return []
        current = self._interrupts.get(request.node_id)
        if current is not None and current.request is not None:
            if current.request.same_as(request):
                current.request.merge(request)
                current.text = _interrupt_text(current)
                return [Updated(current)]
            # A new interrupt at the same node (the next conversation turn): the old one was
            # answered, even if no event said so.
            changes += self._settle(current, "answered", "elsewhere", "superseded")
        # A conversation turn is answered from the prompt, and its turns are drawn as turns:
        # the interrupt itself is bookkeeping, shown only with the verbose lines.
        quiet = request.kind == "conversation"
        item = Interrupt(self._next_id("interrupt"), "warning", _line(""), quiet, request=request)
        item.text = _interrupt_text(item)
        self._interrupts[request.node_id] = item
        changes.append(self._add(item))
        return changes

    def _resolved_at(self, node_id: str | None, interrupt_id: str | None) -> Interrupt | None:
        """The interrupt an answer event is about: pending first, else already settled."""
        for known in (self._interrupts, self._settled_interrupts):
            item = known.get(node_id)
            if item is None and interrupt_id:
                item = next(
                    (
                        i
                        for i in known.values()
                        if i.request and i.request.interrupt_id == interrupt_id
                    ),
                    None,
                )
            if item is not None:
                return item
        return None

    def _on_node_resumed(self, event: RunEvent) -> list[Change]:
        self.status = "running"
        p = event.payload
        value = p.get("resumeValue", p.get("action"))
        changes: list[Change] = []
        item = self._resolved_at(event.node_id, _text(p.get("interruptId")))
        if item is not None:
            outcome = describe_value(value) if value is not None else None
            changes += self._settle(item, "answered", "elsewhere", outcome)
        suffix = f" · {describe_value(value)}" if value is not None else ""
        quiet = (
            item is not None and item.request is not None and item.request.kind == "conversation"
        )
        text = f"node {event.node_id or '?'} resumed{suffix}"
        changes.append(self._notice("info", text, verbose=quiet))
        return changes

    def _on_resolved(self, event: RunEvent) -> list[Change]:
        """``interrupt.resolved``, ``clarification.resolved``, ``approval.received``: answered
        (a ``timeout`` action: expired). Says so in a line only for an interrupt not seen."""
        p = event.payload
        action = _text(p.get("action"))
        value = p.get("resumeValue")
        if value is None:
            value = {"answers": p["answers"]} if "answers" in p else action
        outcome = describe_value(value) if value is not None else None
        feedback = _text(p.get("feedback")) or _text(p.get("comment"))
        if feedback and outcome and "·" not in outcome:
            outcome += f" · {feedback}"
        item = self._resolved_at(event.node_id, _text(p.get("interruptId")))
        by = _text(p.get("resolvedBy")) or _text(p.get("decidedBy")) or _text(p.get("answeredBy"))
        if item is not None:
            if action == "timeout":
                return self._settle(item, "expired", None, "timed out")
            return self._settle(item, "answered", by or "elsewhere", outcome)
        level: Level = "warning" if action in ("reject", "timeout") else "info"
        text = f"the question at node {event.node_id or '?'} was answered"
        parts = [text, outcome, f"by {by}" if by else None]
        return [self._notice(level, " · ".join(x for x in parts if x))]

    def _on_gate(self, event: RunEvent) -> list[Change]:
        """RFC 0051 gates: ``approval.granted`` / ``.rejected`` / ``.overridden``."""
        p = event.payload
        verdict = event.type.split(".", 1)[1]
        gate = _text(p.get("gateId")) or event.node_id or "?"
        parts = [f"approval {gate} {verdict}"]
        principal = _text(p.get("principal"))
        parts += [f"by {principal}" if principal else "", _text(p.get("reason")) or ""]
        progress = p.get("quorumProgress")
        if progress is not None:
            parts.append(f"quorum {words(progress, 60)}")
        level: Level = "warning" if verdict == "rejected" else "info"
        changes: list[Change] = []
        item = self._resolved_at(event.node_id or _text(p.get("gateId")), None)
        if item is not None and (verdict != "granted" or progress is None):
            changes += self._settle(item, "answered", principal or "elsewhere", verdict)
        changes.append(self._notice(level, " · ".join(x for x in parts if x)))
        return changes

    # -------------------------------------------------------------- reasoning

    def _on_reasoning_delta(self, event: RunEvent) -> list[Change]:
        agent = _text(event.payload.get("agentId")) or _made("agent")
        delta = event.payload.get("delta")
        if not isinstance(delta, str):
            return []
        if event.piece is not None:
            delta = event.piece  # as in `_on_chunk`: masked across the join
        item = self._reasoning.get(agent)
        changes: list[Change] = []
        if item is None or item.done:
            item = self._new_reasoning(agent)
            self._reasoning[agent] = item
            changes.append(self._add(item))
        delta = self._masked(item.id, delta)
        if delta:
            changes.append(Updated(item, item.body.append(delta)))
        return changes

    def _on_reasoned(self, event: RunEvent) -> list[Change]:
        agent = _text(event.payload.get("agentId")) or _made("agent")
        text = event.payload.get("reasoning")
        item = self._reasoning.get(agent)
        changes: list[Change] = []
        if item is None or item.done:
            item = self._new_reasoning(agent)
            changes.append(self._add(item))
        self._reasoning[agent] = item
        held = self._unmasked(item.id)
        if isinstance(text, str) and text != item.full_text:
            item.text = text
        elif held:
            item.body.append(held)
        item.done = True
        changes.append(Updated(item))
        return changes

    # ------------------------------------------------------------------ tools

    def _on_tool_called(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        call_id = _text(payload.get("callId")) or _made(self._next_id("call"))
        call = ToolCall(
            id=self._next_id("tool"),
            call_id=call_id,
            agent_id=_text(payload.get("agentId")) or _made("agent"),
            tool_name=_text(payload.get("toolName")) or _made("tool"),
            inputs=payload.get("inputs"),
            json_limit=self.limits.tool_bytes,
        )
        if call.inputs is not None:
            call.inputs_json, call.inputs_cut = self._json_shown(call.inputs)
            call.inputs_text = _line(words(call.inputs, TOOL_WORDS))
        self._calls[call_id] = call
        return [self._add(call)]

    def _on_tool_returned(self, event: RunEvent) -> list[Change]:
        payload = event.payload
        call_id = _text(payload.get("callId")) or _made("")
        call = self._calls.get(call_id)
        changes: list[Change] = []
        if call is None:
            call = ToolCall(
                id=self._next_id("tool"),
                call_id=call_id,
                agent_id=_text(payload.get("agentId")) or _made("agent"),
                tool_name=_text(payload.get("toolName")) or _made("tool"),
                json_limit=self.limits.tool_bytes,
            )
            changes.append(self._add(call))
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
        call.status = _line(_text(payload.get("status")) or ("error" if call.error else "ok"))
        result = call.error if call.error is not None else call.outcome
        if result is not None:
            call.outcome_json, call.outcome_cut = self._json_shown(result)
        shown = call.error if call.error is not None else shown_outcome
        if shown is not None and shown != {}:
            call.outcome_text = _line(words(shown, TOOL_WORDS))
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

    def _on_line(self, event: RunEvent) -> list[Change]:
        """The one line `openwop_tui.core.event_lines` has for the event (none if it is silent)."""
        line = line_for(event)
        if line is None:
            return []
        level, text, verbose = line
        return [self._notice(level, text, verbose=verbose)]

    def _on_usage(self, event: RunEvent) -> list[Change]:
        p = event.payload
        inputs, outputs = _count(p.get("inputTokens")), _count(p.get("outputTokens"))
        total = _count(p.get("totalTokens")) if "totalTokens" in p else None
        cost = p.get("costEstimateUsd")
        currency = _text(p.get("currency"))
        usd = (
            float(cost)
            if isinstance(cost, int | float)
            and not isinstance(cost, bool)
            and currency in (None, "USD")
            and cost == cost
            and abs(cost) != float("inf")
            else None
        )
        for usage in (self.usage_turn, self.usage_session):
            usage.add(inputs, outputs, total, usd)
        text = (
            f"usage · {_text(p.get('provider')) or '?'}/{_text(p.get('model')) or '?'} · "
            f"{inputs:,} in, {outputs:,} out · turn so far {self.usage_turn.describe()}"
        )
        return [self._notice("info", text, verbose=True)]

    def _on_artifact(self, event: RunEvent) -> list[Change]:
        p = event.payload
        artifact_id = _text(p.get("artifactId")) or _made("?")
        kind = _text(p.get("artifactType"))
        summary = _text(p.get("summary"))
        text = f"artifact {artifact_id} ({kind or '?'})" + (f" · {summary}" if summary else "")
        item = ArtifactNotice(
            self._next_id("artifact"),
            "info",
            _line(text),
            False,
            artifact_id=artifact_id,
            artifact_type=kind,
            run_id=event.run_id,
            node_id=event.node_id,
            version=p.get("version"),
            summary=summary,
        )
        return [self._add(item)]


#: Statuses after which nothing more happens to a run.
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})

#: Snapshot statuses (protocol.md §2.3) as the fold names them.
_STATUS_OF = {
    "pending": "running",
    "waiting-approval": "waiting",
    "waiting-input": "waiting",
    "waiting-external": "waiting",
    "cancelling": "running",
}


def turn_text(content: Any) -> str | None:
    """A conversation turn's ``content`` (any JSON) as text: a string as it is, text parts
    joined, anything else as compact JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") if isinstance(part, Mapping) else part for part in content]
        texts = [part for part in parts if isinstance(part, str)]
        if texts:
            return "\n".join(texts)
    if content is None:
        return None
    return compact_json(content, 2000)


def _count(value: Any) -> int:
    """A token count from host data: non-negative ints only (anything else counts 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


#: Events after which a node's next request is a new question (see `Transcript._moved_on`).
_MOVES_ON = frozenset({"node.resumed", "node.completed", "node.failed"})


def _interrupt_text(item: Interrupt) -> HostLine:
    """The one-line summary of an interrupt, as it stands: the request's cleaned fields, and
    the outcome, which may be the user's own answer (`describe_value` of what they typed)."""
    request = item.request
    if request is None:
        return item.text
    if item.state == "pending":
        return _line(" · ".join(summarize(request)))
    where = f" at node {request.node_id}" if request.node_id else ""
    what = {
        "clarification": "the question",
        "approval": "the approval",
        "low-confidence": "the low-confidence pause",
        "conversation": "the conversation turn",
    }.get(request.kind, "the wait")
    how = item.state
    by = " here" if item.answered_by == "you" else ""
    if item.state == "answered" and item.answered_by not in (None, "you", "elsewhere"):
        by = f" by {item.answered_by}"
    return one_line(
        clean_own(f"{what}{where} {how}{by}" + (f" · {item.outcome}" if item.outcome else ""))
    )


_HANDLERS = {
    "run.started": Transcript._on_run_started,
    "run.completed": Transcript._on_run_completed,
    "run.failed": Transcript._on_run_failed,
    "run.cancelled": Transcript._on_run_cancelled,
    "run.paused": Transcript._on_run_paused,
    "run.resumed": Transcript._on_run_resumed,
    "state.snapshot": Transcript._on_snapshot,
    "node.started": Transcript._on_node_started,
    "node.completed": Transcript._on_node_completed,
    "node.failed": Transcript._on_node_failed,
    "node.cancelled": Transcript._on_node_cancelled,
    "node.resumed": Transcript._on_node_resumed,
    "interrupt.resolved": Transcript._on_resolved,
    "node.interrupt.resolved": Transcript._on_resolved,
    "clarification.resolved": Transcript._on_resolved,
    "approval.received": Transcript._on_resolved,
    "approval.granted": Transcript._on_gate,
    "approval.rejected": Transcript._on_gate,
    "approval.overridden": Transcript._on_gate,
    "media.image": Transcript._on_media,
    "media.audio": Transcript._on_media,
    "media.file": Transcript._on_media,
    "agent.reasoning.delta": Transcript._on_reasoning_delta,
    "agent.reasoned": Transcript._on_reasoned,
    "agent.toolCalled": Transcript._on_tool_called,
    "agent.toolReturned": Transcript._on_tool_returned,
    "provider.usage": Transcript._on_usage,
    "artifact.created": Transcript._on_artifact,
    "conversation.opened": Transcript._on_conversation,
    "conversation.exchanged": Transcript._on_conversation,
    "conversation.closed": Transcript._on_conversation,
}
