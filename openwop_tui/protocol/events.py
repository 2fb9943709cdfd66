"""One `RunEvent` type for every shape a real host sends.

Hosts disagree about the JSON of a run event (protocol.md §10):

* the Python reference host sends ``{eventId, runId, type, payload, timestamp, sequence, nodeId?}``;
* the TypeScript in-memory host sends ``{seq, runId, type, nodeId?, data?, timestamp}``;
* the SQLite and Postgres hosts send both spellings at once, with ``null`` for absent fields;
* in ``messages`` stream mode a frame's ``data:`` may be the *bare* ``outputChunk`` payload
  (``{nodeId, runId, chunk, isLast}``) with no ``type`` at all (protocol.md §3.4).

v2 hosts also rename event types to kebab case (``agent.tool-called`` for ``agent.toolCalled``).
`normalize` folds all of that into one frozen `RunEvent` whose ``type`` is always the v1
spelling, so nothing downstream has to care which host it is talking to.

Host data is cleaned here, where it enters: `normalize` passes the document through
`openwop_tui.protocol.hostdata.host_value`, so a `RunEvent`'s ``payload``, ``raw`` and string
fields are already safe to print (terminal controls visible, the API key masked, numbers
clamped, depth bounded). Only ``wire`` keeps the frame's text exactly as received.

This module is pure: no I/O, no Textual.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from openwop_tui.base.records import quick_init, quick_state
from openwop_tui.protocol.hostdata import host_piece, host_str, host_text, host_value
from openwop_tui.text.sanitize import HostText

#: Terminal run events: the stream ends after one of these (protocol.md §3.5).
TERMINAL_TYPES = frozenset({"run.completed", "run.failed", "run.cancelled"})

#: Event types that carry a piece of assistant text to append (protocol.md §3.6, last paragraph).
CHUNK_TYPES = frozenset({"output.chunk", "ai.message.chunk", "node.message"})

#: v2 kebab spellings mapped back to the v1 names the rest of the client uses: every row of
#: `spec/v2/event-codemap.json` (v2.0, 117 rows) whose two names differ (protocol.md §1.3, §3.6).
_V2_TO_V1: dict[str, str] = {
    "agent.tool-called": "agent.toolCalled",
    "agent.tool-returned": "agent.toolReturned",
    "agent.reasoning-delta": "agent.reasoning.delta",
    "agent.prompt-resolved": "agent.promptResolved",
    "agent.invocation-started": "agent.invocation.started",
    "agent.invocation-completed": "agent.invocation.completed",
    "run.dead-lettered": "run.dead_lettered",
    "run.resume-started": "run.resuming",
    "envelope.retry-attempted": "envelope.retry.attempted",
    "envelope.retry-exhausted": "envelope.retry.exhausted",
    "envelope.nl-to-format-engaged": "envelope.nlToFormat.engaged",
    "envelope.recovery-applied": "envelope.recovery.applied",
    "model.capability-substituted": "model.capability.substituted",
    "model.capability-insufficient": "model.capability.insufficient",
    "orchestrator.decided": "runOrchestrator.decided",
    "workflow-chain.event": "core.workflowChain.event",
    "connector.auth-expired": "connector.auth_expired",
    "replay.diverged-at-refusal": "replay.divergedAtRefusal",
    "agent.memory-consolidated": "agent.memory.consolidated",
    "workflow-chain.confidence-escalated": "core.workflowChain.confidence-escalated",
    "dispatch.fanned-out": "core.dispatch.fanOut",
    "dispatch.joined": "core.dispatch.join",
    "deployment.canary-adjusted": "deployment.canary.adjusted",
    "deployment.state-changed": "deployment.state.changed",
    "roster.run-initiated": "roster.run.initiated",
    "tool.session-opened": "tool.session.opened",
    "tool.session-closed": "tool.session.closed",
    "trigger.subscription-state-changed": "trigger.subscription.state.changed",
    "trigger.delivery-attempted": "trigger.delivery.attempted",
    "budget.threshold-crossed": "budget.threshold.crossed",
    "voice.speech-start": "voice.speech_start",
    "voice.endpoint-candidate": "voice.endpoint_candidate",
    "voice.turn-commit": "voice.turn_commit",
    "voice.synthesis-chunk": "voice.synthesis_chunk",
    "voice.barge-in": "voice.barge_in",
    "compensation.manual-intervention-required": "compensation.manual_intervention_required",
}


def chunk_text(event: RunEvent) -> str | None:
    """The text a chunk event appends to a reply: ``chunk`` (``output.chunk``, bare ``messages``
    chunks) or ``delta`` (``node.message``); ``None`` for other events."""
    if event.type not in CHUNK_TYPES:
        return None
    for key in ("chunk", "delta"):
        value = event.payload.get(key)
        if isinstance(value, str):
            return value
    return None


def canonical_type(name: str) -> str:
    """Return the v1 spelling of an event type name; unknown names pass through unchanged."""
    if name.endswith(".ai.message-chunk"):
        # The reference app's vendor chunk event (`openwop-app.ai.message-chunk`).
        return "ai.message.chunk"
    return _V2_TO_V1.get(name, name)


@quick_state
@quick_init
@dataclass(frozen=True, slots=True)
class RunEvent:
    """A run event as every layer above the wire sees it.

    ``payload`` is always a dict (``{}`` when the host sent ``null`` or nothing); ``raw`` is the
    whole document, cleaned like the payload (see `openwop_tui.protocol.hostdata`), so the
    inspector can show every field the host sent. ``wire`` is the frame's ``data:`` text exactly
    as received, for an event log: it is raw host text and must never be displayed.
    """

    type: HostText
    """The event type, in v1 spelling (see `canonical_type`)."""
    payload: Mapping[str, Any]
    sequence: int | None = None
    """Per-run ordering number; ``None`` when the frame had none (bare chunks without ``id:``)."""
    run_id: HostText | None = None
    node_id: HostText | None = None
    event_id: HostText | None = None
    timestamp: HostText | None = None
    causation_id: HostText | None = None
    frame_event: HostText | None = None
    """The SSE ``event:`` label the frame came with (a type, a stream mode, or ``batch``)."""
    raw: Any = field(default=None, compare=False, repr=False)
    wire: str | None = field(default=None, compare=False, repr=False)
    """The frame's data as received (uncleaned, unmasked): for storage only, never shown."""
    piece: HostText | None = field(default=None, compare=False, repr=False)
    """A chunk's or reasoning delta's text cleaned, with whole secrets masked but not the
    fragments at its edges: the fold joins pieces and masks a key split between them
    (`openwop_tui.text.split_keys`). ``None`` for other events."""

    @property
    def is_terminal(self) -> bool:
        """True for ``run.completed``, ``run.failed`` and ``run.cancelled``."""
        return self.type in TERMINAL_TYPES


class EventShapeError(ValueError):
    """A frame's data is JSON but not anything a host could mean as a run event."""


_SIGNED_INT = re.compile(r"-?[0-9]+")
_UNSIGNED_INT = re.compile(r"[0-9]+")


def parse_int(text: str, *, signed: bool = True) -> int | None:
    """The integer an ASCII decimal string spells (``"-3"``, ``" 42 "``), or ``None``.

    Never raises: only ASCII digits count (``str.isdigit`` would take ``"²"`` or ``"٣"``), one
    optional minus sign (not with ``signed=False``), surrounding whitespace ignored; a number
    with more digits than Python converts (`sys.get_int_max_str_digits`) is ``None`` too.
    """
    digits = text.strip()
    if (_SIGNED_INT if signed else _UNSIGNED_INT).fullmatch(digits) is None:
        return None
    try:
        return int(digits)
    except ValueError:
        return None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return parse_int(value)
    return None


def normalize(
    doc: Any,
    *,
    frame_event: str | None = None,
    frame_id: str | None = None,
    secrets: Iterable[str] = (),
    wire: str | None = None,
    plain: bool = False,
) -> RunEvent:
    """Turn one decoded JSON event document into a `RunEvent` of cleaned host data.

    Raises `EventShapeError` for JSON that is not an object, or an object with no type that is not a
    bare chunk either; callers report it and carry on.

    Args:
        doc: One decoded JSON event document, as the host sent it.
        frame_event: The SSE ``event:`` line, used when the document lacks a type (bare ``messages``
            chunks); None when there was none.
        frame_id: The SSE ``id:`` line, used when the document lacks a sequence; None when there was
            none.
        secrets: Values (the API key) masked wherever they occur.
        wire: The frame's ``data:`` text exactly as received, kept as `RunEvent.wire`; None when not
            kept.
        plain: True when the document is one `openwop_tui.protocol.hostdata.plain_document` decoded
            (with these ``secrets``), so cleaning would copy it unchanged and it is taken as it is.
    """
    # Exact types first: the decoders make only dicts, and isinstance against the Mapping ABC
    # is among the slowest checks on the ingest path.
    if type(doc) is not dict and not isinstance(doc, Mapping):
        raise EventShapeError(f"expected a JSON object, got {type(doc).__name__}")
    secrets = tuple(secrets)
    source = doc  # as the host sent it: a chunk's piece is cleaned its own way (`_piece`)
    if not plain:
        doc = host_value(doc, secrets)
    if frame_event is not None:
        frame_event = host_text(frame_event, secrets)

    type_name = doc.get("type")
    if isinstance(type_name, str) and type_name:
        payload = doc.get("payload")
        if payload is None:
            payload = doc.get("data")
        if type(payload) is not dict and not isinstance(payload, Mapping):
            payload = {} if payload is None else {"value": payload}
        # A cleaned host name, or one of the table's own ASCII names.
        event_type = _shared(HostText(canonical_type(type_name)))
    elif "chunk" in doc:
        # A bare outputChunk payload, as `messages` mode sends it (protocol.md §3.4).
        payload = doc
        event_type = HostText("output.chunk")  # the client's own ASCII name
    else:
        label = f" (SSE event {frame_event!r})" if frame_event else ""
        raise EventShapeError(f"event has no 'type' and is not a bare chunk{label}")

    sequence = _int_or_none(doc.get("sequence"))
    if sequence is None:
        sequence = _int_or_none(doc.get("seq"))
    if sequence is None and frame_id is not None:
        sequence = _int_or_none(frame_id)

    node_id = _shared(host_str(doc.get("nodeId")) or host_str(payload.get("nodeId")))
    piece = _piece(source, event_type, secrets) if event_type in _PIECE_TYPES else None
    return RunEvent(
        type=event_type,
        payload=payload,
        sequence=sequence,
        run_id=_shared(host_str(doc.get("runId"))),
        node_id=node_id,
        event_id=host_str(doc.get("eventId")),
        timestamp=host_str(doc.get("timestamp")),
        causation_id=host_str(doc.get("causationId")),
        frame_event=frame_event,
        raw=doc,
        wire=wire,
        piece=piece,
    )


@overload
def _shared(text: HostText) -> HostText: ...
@overload
def _shared(text: None) -> None: ...
def _shared(text: HostText | None) -> HostText | None:
    """One string object for a type, run or node id however many events repeat it: what
    keeps an event's summary (a timeline row holds all three) from holding copies of them.

    Held here, not by `sys.intern`: an interned string leaves the interpreter's table when the
    last event holding it goes, and the next event's puts it back, so a stream of chunks that
    nothing keeps churned that table (shared with every module's names) until it was copied
    whole again, 1.8 MB at a time in a large process."""
    if text is None or len(text) > 64:
        return text
    shared = _SHARED.get(text)
    if shared is None:
        if len(_SHARED) >= _SHARED_MAX:  # (ids of runs long gone: a bound all the same)
            _SHARED.clear()
        shared = _SHARED[text] = text
    return shared


#: The strings `_shared` hands out.
_SHARED: dict[str, HostText] = {}
_SHARED_MAX = 4096


#: Event types whose text the fold joins piece by piece (replies and reasoning).
_PIECE_TYPES = CHUNK_TYPES | {"agent.reasoning.delta"}


def _piece(doc: Mapping[str, Any], event_type: str, secrets: tuple[str, ...]) -> HostText | None:
    """`RunEvent.piece` (see there) of an ``event_type`` event (one of `_PIECE_TYPES`) whose
    document, as the host sent it, is ``doc``; ``None`` when it carries no text."""
    type_name = doc.get("type")
    if isinstance(type_name, str) and type_name:  # (as `normalize` tells the two apart)
        payload = doc.get("payload")
        if payload is None:
            payload = doc.get("data")
    else:
        payload = doc  # a bare `messages` chunk
    if type(payload) is not dict and not isinstance(payload, Mapping):
        return None
    keys = ("delta",) if event_type == "agent.reasoning.delta" else ("chunk", "delta")
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str):
            return host_piece(value, secrets)
    return None


@dataclass(frozen=True, slots=True)
class KeptEvent:
    """An event of a one-event frame kept for later at the cost of its frame's text alone.

    A view that keeps every event of a run (the timeline: Enter shows the event) would hold,
    per event, the decoded document, its cleaned copy and the `RunEvent` besides the frame's
    text (which the event holds too, as `RunEvent.wire`): about 600 bytes more a chunk of a
    reply, 90 MB over a flood of 150,000 chunks; and a run's start echoes its inputs, a chat's
    whole history with many hosts, so a long chat kept every history it sent again, decoded
    (issue 26: the square of the chat's length). `event` decodes the text again, as it was
    decoded when it came (`normalize`: the same cleaning, the same secrets masked), only when
    it is asked for.
    """

    wire: str
    frame_event: HostText | None
    sequence: int | None
    secrets: tuple[str, ...]

    def event(self) -> RunEvent:
        """The event, decoded again."""
        frame_id = None if self.sequence is None else str(self.sequence)
        return normalize(
            json.loads(self.wire),
            frame_event=self.frame_event,
            frame_id=frame_id,  # the sequence it had (read from the document or the frame)
            secrets=self.secrets,
            wire=self.wire,
        )


def keep(event: RunEvent, secrets: Iterable[str] = ()) -> RunEvent | KeptEvent:
    """``event`` in the smaller form a long-lived view may hold: an event decoded from a
    one-event frame becomes a `KeptEvent` (``secrets``: those it was decoded with); any other
    event stays as it is (a batch frame's, a snapshot's, one read without its frame)."""
    wire = event.wire
    if wire is None or not wire.lstrip().startswith("{"):
        return event  # a batch frame's text holds other events too
    raw = event.raw
    if event.piece is None and not (isinstance(raw, Mapping) and isinstance(raw.get("type"), str)):
        return event  # a bare snapshot (`frames.snapshot_event`): not `normalize`'s to decode
    return KeptEvent(wire, event.frame_event, event.sequence, tuple(secrets))
