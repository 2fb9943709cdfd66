"""The fold's state and its public API: `Transcript` holds the items so far and what the fold
keeps between events (open replies, reasoning, tool calls and questions, usage, ids), adds
what the client itself knows (`add_user`, `add_notice`, answers to interrupts), keeps and
resumes its state across runs (`carried`, `resume`), and folds each event (`apply`) with the
handler of its family (`openwop_tui.core.fold._handlers`).

The handlers are functions that take the transcript, so they read and write its private
fields: those are private to this package, not to this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from openwop_tui.core.fold._common import made_line, text_of
from openwop_tui.core.fold._handlers import dispatch
from openwop_tui.core.fold._interrupts import interrupt_text, settle, take_request
from openwop_tui.core.fold._replies import close_replies
from openwop_tui.core.fold._run import close_turns
from openwop_tui.core.items import (
    Added,
    AssistantTurn,
    Attached,
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
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.interrupts import InterruptState, describe_value, request_from_snapshot
from openwop_tui.text.sanitize import HostText
from openwop_tui.text.split_keys import StreamMask
from openwop_tui.text.units import compact_json

#: How much of an unreadable event's JSON its error notice quotes.
UNREADABLE_EXCERPT = 300

#: Snapshot statuses (protocol.md §2.3) as the fold names them.
_STATUS_OF = {
    "pending": "running",
    "waiting-approval": "waiting",
    "waiting-input": "waiting",
    "waiting-external": "waiting",
    "cancelling": "running",
}


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
        item = Notice(self._next_id("notice"), level, made_line(text), verbose)
        return self._add(item)

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

    def add_user(self, text: HostText, attachments: tuple[Attached, ...] = ()) -> Added:
        """Record a user turn, with what it carried beside its text (the client knows it
        before any event does).

        Replies still open are settled: in a conversation (one run, many turns) the next reply
        is a new turn, not more of the last one.
        """
        self.usage_turn = Usage()
        # Compared without surrounding blanks: a host may trim the turn it echoes.
        self._own_turns = [*self._own_turns[-7:], text.strip()]
        close_replies(self)
        return self._add(UserTurn(self._next_id("user"), text, attachments))

    @property
    def own_turns(self) -> tuple[str, ...]:
        """The user turns added here that no conversation event has echoed back yet."""
        return tuple(self._own_turns)

    def add_envelope(self, envelope: Envelope) -> Added:
        """Record an envelope the client made (a user's own attachment,
        `openwop_tui.core.own_media`): drawn as a host's, its key seen like theirs."""
        self._seen_envelopes.add(envelope.key)
        return self._add(EnvelopeItem(self._next_id("envelope"), envelope))

    def add_notice(self, level: Level, text: HostText, *, verbose: bool = False) -> Added:
        """Record a line that did not come from a run event (stream trouble, client errors)."""
        return self._notice(level, text, verbose=verbose)

    def apply(self, event: RunEvent) -> list[Change]:
        """Fold one event in; return what changed (often nothing). Never raises.

        A handler that fails (a hand-built event of an unexpected shape, a bug) turns the event
        into an error `Notice` with its type and raw JSON, and the fold goes on.
        """
        try:
            return dispatch(self, event)
        except Exception as error:
            return [self._notice("error", _unreadable(event, error))]

    def close_open(self) -> list[Change]:
        """Settle every open item because the stream ended without a terminal event."""
        return close_turns(self)

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
            return settle(self, item, "answered", "you", describe_value(resume_value))
        if item.answered_by != "you" and item.state == "answered":
            # The host's node.resumed came in before its HTTP answer did: it was ours.
            item.answered_by = "you"
            item.text = interrupt_text(item)
            return [Updated(item)]
        return []

    def interrupt_closed(
        self, item: Interrupt, state: InterruptState, outcome: str, *, by: str | None = None
    ) -> list[Change]:
        """Close a form for what the host answered (409: ``answered`` elsewhere, 410:
        ``expired``, 404/422: ``closed``), with ``outcome`` in a few words.

        Args:
            item: The interrupt the form answers.
            state: What the host said became of it.
            outcome: What the host answered, in a few words.
            by: Who answered it, when the host said.
        """
        if item.state != "pending":
            return []
        return settle(self, item, state, by, outcome)

    def take_snapshot_question(
        self, snapshot: Mapping[str, Any], event: RunEvent | None = None
    ) -> list[Change]:
        """The status a run snapshot names and its open question: a pending interrupt, as if
        its events had been seen, when the run waits (``GET …/runs/{runId}`` for a client that
        attaches after it was asked, ``attach --from``; a ``values``-mode ``state.snapshot``
        ``event``); nothing when it has none."""
        status = text_of(snapshot.get("status"))
        if status:
            self.status = _STATUS_OF.get(status, status)
        request = request_from_snapshot(snapshot)
        if request is None or self.status != "waiting":
            return []
        if event is not None:
            request.run_id = request.run_id or event.run_id
        return take_request(self, request, event)
