"""What the transcript is made of: its items, and the changes the fold reports.

Plain mutable objects (an item is itself, whatever its text: no value equality), shared by the
fold (`openwop_tui.core.fold`), the app's widgets and the print commands. Pure: no I/O.

Streamed text (replies, reasoning) lives in a `TextBuffer`: appending costs the delta, and past
the item's `Limits` the text is kept but not drawn, so no reply can freeze the app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# The caps live apart so the configuration reads them without importing the model; they are
# re-exported here (`from openwop_tui.core.items import Limits`).
from openwop_tui.base.records import quick_init
from openwop_tui.core.limits import EVENTS_SHOWN as EVENTS_SHOWN
from openwop_tui.core.limits import REASONING_BYTES as REASONING_BYTES
from openwop_tui.core.limits import REPLY_BYTES as REPLY_BYTES
from openwop_tui.core.limits import TOOL_BYTES as TOOL_BYTES
from openwop_tui.core.limits import KiB as KiB
from openwop_tui.core.limits import Limits as Limits
from openwop_tui.core.limits import MiB as MiB
from openwop_tui.protocol.envelopes import Envelope, Rendering
from openwop_tui.protocol.interrupts import InterruptRequest, InterruptState
from openwop_tui.text.sanitize import NO_TEXT as NO_TEXT
from openwop_tui.text.sanitize import HostLine, HostText
from openwop_tui.text.units import human_size

Level = Literal["info", "warning", "error"]


@dataclass(slots=True, eq=False)
class UserTurn:
    """Something the user typed (or, in a conversation, a user turn a host echoed): cleaned by
    whoever made it (`openwop_tui.core.fold.Transcript.add_user` for the user's own)."""

    id: str
    text: HostText
    attachments: tuple[Attached, ...] = ()
    """What the message carried beside its text (its bytes are in the log)."""


@dataclass(frozen=True, slots=True)
class Attached:
    """An attachment a user's message carried, as the transcript names it: what it is, not its
    bytes (the log keeps those, `openwop_tui.core.attachments.attached`)."""

    kind: str
    """``image``, ``file`` or ``audio``."""
    mime: HostText
    name: HostText
    size: int | None
    """Bytes (``None``: sent by ``url``, its size not kept in the message)."""
    duration: float | None = None
    """Seconds of sound."""
    url: HostText | None = None
    """Where the host keeps it (an upload's answer), for one not sent inline."""

    def describe(self) -> str:
        """``name (type, size)``: how a line names it."""
        size = f", {human_size(self.size)}" if self.size is not None else ""
        length = f", {self.duration:.1f} s" if self.duration is not None else ""
        return f"{self.name} ({self.mime}{size}{length})"


#: Parts a `TextBuffer` holds before it joins them: a delta of a few characters costs a string
#: object of fifty bytes, so a reply of 100,000 tokens would weigh ten times its text.
JOIN_PARTS = 1_024


class TextBuffer:
    """Text that grows by deltas in O(delta), drawn up to ``limit`` bytes, kept in full.

    Appending to one ``str`` copies everything before it on every token (100,000 tokens make
    that quadratic); the buffer keeps parts and joins them once, when the text is read, caching
    the result until the next change. Past ``limit`` the parts go to the overflow: still kept
    (`full`), never drawn (`shown`), and counted (`cut_bytes`).
    """

    __slots__ = ("_full", "_overflow", "_parts", "_shown", "cut_bytes", "limit", "shown_bytes")

    def __init__(self, text: str = "", limit: int = REPLY_BYTES) -> None:
        self.limit = max(0, limit)
        self._parts: list[str] = []
        self._overflow: list[str] = []
        self._shown: str | None = ""
        self._full: str | None = ""
        self.shown_bytes = 0
        """UTF-8 bytes of `shown`."""
        self.cut_bytes = 0
        """UTF-8 bytes kept but not shown (0 when nothing was cut)."""
        if text:
            self.append(text)

    def __bool__(self) -> bool:
        return self.shown_bytes > 0 or self.cut_bytes > 0

    @property
    def cut(self) -> bool:
        """Whether some of the text is past the limit."""
        return self.cut_bytes > 0

    def append(self, delta: str) -> str:
        """Add ``delta``; return the part of it that is shown ("" once past the limit)."""
        if not delta:
            return ""
        self._full = None
        if self.cut_bytes:
            self._overflow.append(delta)
            if len(self._overflow) >= JOIN_PARTS:
                self._overflow[:] = ["".join(self._overflow)]
            self.cut_bytes += len(delta.encode("utf-8", "surrogatepass"))
            return ""
        encoded = delta.encode("utf-8", "surrogatepass")
        room = self.limit - self.shown_bytes
        if len(encoded) <= room:
            self._parts.append(delta)
            if len(self._parts) >= JOIN_PARTS:
                # Memory stays the text's own size; joining every JOIN_PARTS deltas costs
                # the text once per that many (the limit bounds it).
                self._parts[:] = ["".join(self._parts)]
            self.shown_bytes += len(encoded)
            self._shown = None
            return delta
        # Cut on a character boundary at or below the limit (never half a UTF-8 sequence).
        cut = room
        while cut > 0 and encoded[cut] & 0xC0 == 0x80:  # a continuation byte: back off
            cut -= 1
        shown = encoded[:cut].decode("utf-8", "surrogatepass")
        shown_size = cut
        self._overflow.append(delta[len(shown) :])
        self.cut_bytes += len(encoded) - shown_size
        if shown:
            self._parts.append(shown)
            self.shown_bytes += shown_size
            self._shown = None
        return shown

    def replace(self, text: str) -> None:
        """Start again from ``text`` (an authoritative completion), with the same limit."""
        self._parts.clear()
        self._overflow.clear()
        self._shown = self._full = ""
        self.shown_bytes = self.cut_bytes = 0
        self.append(text)

    @property
    def shown(self) -> str:
        """The text up to the limit (joined on first read after a change)."""
        if self._shown is None:
            self._shown = "".join(self._parts)
            self._parts[:] = [self._shown]
        return self._shown

    @property
    def full(self) -> str:
        """Everything, the cut part too (for saving and exports)."""
        if not self.cut_bytes:
            return self.shown
        if self._full is None:
            self._full = self.shown + "".join(self._overflow)
        return self._full

    def tail(self, chars: int) -> str:
        """The last ``chars`` characters shown, read from the last parts only (O(chars))."""
        if self._shown is not None:
            return self._shown[-chars:]
        taken: list[str] = []
        count = 0
        for part in reversed(self._parts):
            taken.append(part)
            count += len(part)
            if count >= chars:
                break
        return "".join(reversed(taken))[-chars:]


class _Streamed:
    """An item whose text streams in: ``text`` reads and writes the `TextBuffer`, capped."""

    __slots__ = ("body", "saved_to")

    body: TextBuffer
    saved_to: str | None
    """Where the full text was written once the item was final and cut (shown by the item)."""

    @property
    def text(self) -> HostText:
        """What is drawn: the text up to the item's limit.

        `HostText`: the fold only ever appends cleaned pieces (`RunEvent.piece`, the payload's
        strings) and the part of them the directive reader leaves visible."""
        return HostText(self.body.shown)

    @text.setter
    def text(self, value: str) -> None:
        self.body.replace(value)

    @property
    def full_text(self) -> HostText:
        """All of the text, including what is past the limit (cleaned, like `text`)."""
        return HostText(self.body.full)


class AssistantTurn(_Streamed):
    """A reply, growing while chunks arrive; ``final`` once the node completed."""

    __slots__ = ("directives", "final", "finish_reason", "hint", "id", "model", "node_id")

    def __init__(
        self,
        id: str,
        node_id: HostText | None,
        text: str = "",
        final: bool = False,
        model: HostText | None = None,
        finish_reason: HostText | None = None,
        *,
        limit: int = REPLY_BYTES,
    ) -> None:
        """A reply, as far as it has streamed.

        Args:
            id: The item's id in the transcript.
            node_id: The node that replied; None when the host named none.
            text: The reply's text so far.
            final: True once the reply is complete.
            model: The model the host said replied; None when it did not say.
            finish_reason: Why the reply ended, as the host said; None when it did not say.
            limit: The most bytes of text kept in the transcript; the rest is saved to a file.
        """
        self.id = id
        self.node_id = node_id
        self.body = TextBuffer(text, limit)
        self.final = final
        self.model = model
        self.finish_reason = finish_reason
        self.saved_to = None
        self.directives: Any = None
        """The fold's OpenClaw directive state for this reply
        (`openwop_tui.core.directives.TurnDirectives`); the text holds what is left visible."""
        self.hint: Rendering | None = None
        """The rendering hint the host lifted beside this reply (``outputs.rendering`` with
        ``outputs.completion`` and no envelope object): the reply *is* the text it describes,
        so its ``title`` and ``alt`` are drawn with the reply, not as an envelope repeating it."""

    @property
    def settled(self) -> bool:
        """Whether the reply will not change any more."""
        return self.final


class Reasoning(_Streamed):
    """An agent's reasoning, streamed, then replaced by the authoritative ``agent.reasoned``."""

    __slots__ = ("agent_id", "done", "id")

    def __init__(
        self,
        id: str,
        agent_id: HostText,
        text: str = "",
        done: bool = False,
        *,
        limit: int = REASONING_BYTES,
    ) -> None:
        """An agent's reasoning, as far as it has streamed.

        Args:
            id: The item's id in the transcript.
            agent_id: The agent whose reasoning it is.
            text: The reasoning's text so far.
            done: True once the reasoning is complete.
            limit: The most bytes of text kept in the transcript; the rest is saved to a file.
        """
        self.id = id
        self.agent_id = agent_id
        self.body = TextBuffer(text, limit)
        self.done = done
        self.saved_to = None

    @property
    def settled(self) -> bool:
        """Whether the reasoning will not change any more."""
        return self.done


@dataclass(slots=True, eq=False)
class ToolCall:
    """A tool call and, once it returned, its outcome."""

    id: str
    call_id: HostText
    agent_id: HostText
    tool_name: HostText
    inputs: Any = None
    outcome: Any = None
    error: Any = None
    status: HostLine | None = None
    done: bool = False
    inputs_json: str = ""
    """The inputs as compact JSON, at most ``limit`` bytes of it (what is drawn)."""
    outcome_json: str = ""
    """The outcome (or the error) as compact JSON, at most ``limit`` bytes of it."""
    inputs_cut: int = 0
    """Bytes of the inputs' JSON past the limit (kept in ``inputs``, saved, not drawn)."""
    outcome_cut: int = 0
    """Bytes of the outcome's JSON past the limit."""
    json_limit: int = TOOL_BYTES
    """The cap the JSON fields were cut at."""
    saved_to: str | None = None
    """Where the full JSON was written once the call returned, if it was cut."""
    duration_ms: float | None = None
    """How long the call took, from ``agent.toolReturned.durationMs`` (or, as the Postgres host
    sends it, ``outcome.durationMs``); ``None`` when the host did not say."""
    inputs_text: HostLine = NO_TEXT
    """The inputs in words (``query: cats, limit: 3``: `openwop_tui.text.value_words.words`), made
    once by the fold, bounded, on one line (a newline in a value shows as ``␊``): what the
    transcript draws, on the call's own line."""
    outcome_text: HostLine = NO_TEXT
    """The outcome (or the error) in words, like the inputs; without the ``durationMs`` a host
    put inside the outcome (it is `duration_ms`, drawn on its own)."""

    @property
    def settled(self) -> bool:
        """Whether the call will not change any more."""
        return self.done


@dataclass(slots=True, eq=False)
class EnvelopeItem:
    """An envelope to draw through the renderer registry."""

    id: str
    envelope: Envelope


@dataclass(slots=True, eq=False)
class Notice:
    """A line about the run: lifecycle, failures, interrupts, stream trouble.

    ``verbose`` notices (node starts, usage figures) are the ones a chat view may hide and an
    inspector shows.
    """

    id: str
    level: Level
    text: HostLine
    """Made of cleaned host values and the client's own words (see `Transcript.add_notice`), on
    one line: a newline in a host value shows as ``␊``, so it cannot forge the next line."""
    verbose: bool = False
    # (No event: a notice is its text. 18,000 lifecycle lines of a 3,000-turn session each
    # kept one that nothing read, and a reopened session unpickled every one.)


@dataclass(slots=True, eq=False)
class Interrupt(Notice):
    """Something the run waits for a person to answer: the form's data, and where it stands.

    A `Notice` too, whose ``text`` is a one-line summary kept current with the state, so a view
    that draws no form still shows the question and what became of it. A view that draws forms
    checks for `Interrupt` before `Notice`.

    ``request`` holds what the host said (kind, questions, actions, confidence, schema, routes:
    `openwop_tui.protocol.interrupts.InterruptRequest`); the answer builders of that module turn
    what a person typed into the ``resumeValue`` to send.
    """

    request: InterruptRequest | None = None
    state: InterruptState = "pending"
    answered_by: str | None = None
    """``"you"`` once this client's answer was accepted, ``"elsewhere"`` when an event said it
    was resolved first; ``None`` while pending."""
    outcome: str | None = None
    """What the answer was or what closed it, in a few words (``accept``, ``q1=blue``,
    ``expired``, ``the run ended``)."""

    @property
    def settled(self) -> bool:
        """Whether the form is done with (it no longer takes input)."""
        return self.state != "pending"


@dataclass(slots=True, eq=False)
class ArtifactNotice(Notice):
    """An ``artifact.created``: what a view needs to fetch its body on demand, with
    ``GET …/runs/{run_id}/artifacts/{artifact_id}`` (protocol.md §2.1)."""

    artifact_id: HostText = NO_TEXT
    artifact_type: HostText | None = None
    run_id: HostText | None = None
    node_id: HostText | None = None
    version: Any = None
    summary: HostText | None = None


@dataclass(slots=True)
class Usage:
    """Token and cost totals from ``provider.usage`` events."""

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    """Summed ``costEstimateUsd`` (only events in USD, or with no currency, count)."""
    events: int = 0
    """How many usage events were summed (0: the host reported none)."""

    def add(self, inputs: int, outputs: int, total: int | None, cost: float | None) -> None:
        """Count one usage event.

        Args:
            inputs: Input tokens.
            outputs: Output tokens.
            total: Total tokens; None counts inputs + outputs.
            cost: Its cost in US dollars; None when the host gave none.
        """
        self.input_tokens += inputs
        self.output_tokens += outputs
        self.total_tokens += total if total is not None else inputs + outputs
        if cost is not None:
            self.cost_usd += cost
        self.events += 1

    def describe(self) -> str:
        """``1,200 in, 340 out`` with ``· $0.0123`` when a cost was reported."""
        text = f"{self.input_tokens:,} in, {self.output_tokens:,} out"
        return text + (f" · ${self.cost_usd:.4f}" if self.cost_usd else "")


Item = UserTurn | AssistantTurn | Reasoning | ToolCall | EnvelopeItem | Notice
"""Every item; `Interrupt` and `ArtifactNotice` are notices with more to them."""


@dataclass(frozen=True, slots=True)
class Added:
    """A new item at the end of the transcript."""

    item: Item


@quick_init
@dataclass(frozen=True, slots=True)
class Updated:
    """An existing item changed. ``delta`` is the appended text when the change was an append;
    ``None`` means the item's text was replaced (or it changed otherwise) and must be redrawn."""

    item: Item
    delta: str | None = None


Change = Added | Updated
