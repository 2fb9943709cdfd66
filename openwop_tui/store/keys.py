"""A key split across stored rows: found where the rows' chunks join, and masked in every row.

The session store keeps each event as it arrives, and a host may cut an echoed key between the
chunk events of one reply: no row holds the key whole, so masking row by row keeps every piece.
`SplitKeyRows` follows the chunk and reasoning texts of each stream (a run's node, or agent)
through a `openwop_tui.text.split_keys.PieceChain`, and when a row completes a key it says which
rows
to write again, the pieces masked. Used for every row the store appends, and again over the rows
an export reads (so a session stored before this existed is exported masked too).

A row rewritten this way is the host's document re-serialised (``json.dumps``) with the pieces
masked; every other row keeps the host's bytes.

`SplitKeyLines` does the same for lines written once and never again (NDJSON on stdout, the
JSONL export): since an earlier line cannot be rewritten, it holds lines back while a piece of
theirs could still be part of a key, and lets them go, masked, once the next piece of that
stream decides. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from openwop_tui.protocol.events import CHUNK_TYPES, TERMINAL_TYPES, canonical_type
from openwop_tui.protocol.hostdata import mask, probes_for, secrets_of
from openwop_tui.protocol.interrupts import REQUEST_TYPES
from openwop_tui.text.split_keys import Piece, PieceChain

if TYPE_CHECKING:  # the store imports this module
    from openwop_tui.store.records import Entry

__all__ = ["SplitKeyLines", "SplitKeyRows", "masked_entries"]

_REASONING = "agent.reasoning.delta"
#: Row kinds that hold host event documents.
_EVENT_KINDS = frozenset({"frame", "document"})


@dataclass
class _Row:
    """A row some stream's open tail still reaches into: its parsed document and pieces."""

    doc: Any
    slots: list[tuple[MutableMapping[str, Any], str, Piece]] = field(default_factory=list)
    """Where each piece sits: (the mapping holding it, its key, the piece)."""

    def text(self) -> str:
        for holder, key, piece in self.slots:
            holder[key] = piece.masked
        return json.dumps(self.doc, ensure_ascii=False)


#: What `_decoded` gives for a text that is not JSON.
_UNREADABLE = object()


def _decoded(data: str) -> Any:
    """The document JSON ``data`` holds (`_UNREADABLE` if none): by orjson, four times as fast
    as `json.loads` and the same values for what it takes; `json.loads` decides the rest
    (``NaN``, integers past 64 bits). A copy of the row's own: rewriting its pieces changes it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except ValueError:
        return _UNREADABLE


def _events(doc: Any) -> Iterator[Any]:
    if isinstance(doc, list):
        yield from doc
    elif isinstance(doc, dict):
        events = doc.get("events")
        if isinstance(events, list):
            yield from events
        else:
            yield doc


def _slot(event: Any) -> tuple[MutableMapping[str, Any], str, str] | None:
    """(holder, key, stream name) of an event's chunk or reasoning text, or ``None``."""
    if not isinstance(event, dict):
        return None
    kind = event.get("type")
    if isinstance(kind, str):
        kind = canonical_type(kind)
        if kind not in CHUNK_TYPES and kind != _REASONING:
            return None
        holder = event.get("payload")
        if holder is None:
            holder = event.get("data")
    else:
        kind, holder = "output.chunk", event  # a bare `messages` chunk
    if not isinstance(holder, dict):
        return None
    keys = ("delta",) if kind == _REASONING else ("chunk", "delta")
    for key in keys:
        if isinstance(holder.get(key), str):
            if kind == _REASONING:
                stream = f"reasoning:{holder.get('agentId')}"
            else:
                stream = f"reply:{event.get('nodeId') or holder.get('nodeId')}"
            return holder, key, stream
    return None


def _mask_strings(doc: Any, secrets: tuple[str, ...], skip: set[tuple[int, str]]) -> bool:
    """Mask every string and key in ``doc`` in place (but the ``skip`` slots); whether any
    changed. Iterative: a stored document may be deep."""
    changed = False
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in list(item.items()):
                if isinstance(value, str) and (id(item), key) not in skip:
                    masked = mask(value, secrets)
                    if masked != value:
                        item[key], changed = masked, True
                elif isinstance(value, dict | list):
                    stack.append(value)
                masked_key = mask(key, secrets)
                if masked_key != key:
                    item[masked_key], changed = item.pop(key), True
        elif isinstance(item, list):
            for index, value in enumerate(item):
                if isinstance(value, str):
                    masked = mask(value, secrets)
                    if masked != value:
                        item[index], changed = masked, True
                elif isinstance(value, dict | list):
                    stack.append(value)
    return changed


class SplitKeyRows:
    """Follows the chunk texts of a session's rows; see the module docstring."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = secrets_of(*secrets)
        self._chains: dict[tuple[str, str | None, str], PieceChain] = {}
        self._rows: dict[object, _Row] = {}
        self._probes = probes_for(self.secrets)  # (shared with the decoder: see its memo)
        self.plain = False
        """The text `row` returned last holds nothing `mask` changes (`KeyProbes` said so): it
        needs no masking of the keys, only of URL credentials and Bearer tokens."""

    def row(
        self, session: str, ref: object, kind: str, run: str | None, data: str
    ) -> tuple[str, list[tuple[object, str]]]:
        """The text to store for one row, and ``(ref, text)`` for each earlier row to write again.

        Args:
            session: The session the row belongs to (empty for a single log file).
            ref: What names the row to the caller (a sequence number, an index), echoed back for
                rows to write again.
            kind: The row's kind; only event rows are masked, and ``end`` closes the run's streams.
            run: The run the row belongs to; None for none.
            data: The row's text as it would be stored.
        """
        if kind == "end":  # the run's streams are over: their chains go
            for name in [c for c in self._chains if c[:2] == (session, run)]:
                del self._chains[name]
        self.plain = False
        if not self.secrets or kind not in _EVENT_KINDS:
            return data, []
        chunky = '"chunk"' in data or '"delta"' in data
        # Whether any string of the row may hold what `mask` masks (`KeyProbes.may_change`:
        # the rule the decoder's plain path follows, so a reply's line breaks, or a run's
        # inputs echoing a long history, are not decoded and walked again here).
        maybe = self._probes.may_change(data)
        if not chunky and not maybe:
            self.plain = True
            return data, []
        doc = _decoded(data)
        if doc is _UNREADABLE:
            return data, []
        if not maybe and self._passes(session, run, doc):
            # One chunk its stream's chain takes unchanged, leaving nothing open (most of a
            # long reply's): the row as it is, with nothing made for it.
            self.plain = True
            if self._rows:  # (as below: rows a run's end left unreachable)
                self._forget()
            return data, []
        row = _Row(doc)
        changed: list[object] = []
        held = False  # a piece of this row is still open in its chain (a later row may change it)
        for event in _events(doc) if chunky else ():
            slot = _slot(event)
            if slot is None:
                continue
            holder, key, stream = slot
            chain = self._chains.get((session, run, stream))
            if chain is None:  # (not setdefault: that would make a chain for every row)
                chain = self._chains[session, run, stream] = PieceChain(self.secrets)
            pieces = chain.add((ref, len(row.slots)), holder[key])
            row.slots.append((holder, key, pieces[0]))  # the new piece comes first
            held = held or chain.undecided(pieces[0]) is not None
            for piece in pieces:
                owner = piece.ref[0] if isinstance(piece.ref, tuple) else None
                if piece.spans and owner not in changed:
                    changed.append(owner)
        # Every other string: the key whole, or a long fragment at its edge (`mask`), as the
        # protocol layer masks it when the row is read; the chain decides the pieces.
        edged = maybe and _mask_strings(doc, self.secrets, {(id(h), k) for h, k, _ in row.slots})
        if held:  # (a row no open tail reaches is never written again: not kept)
            self._rows[ref] = row
        earlier = [(owner, self._rows[owner].text()) for owner in changed if owner != ref]
        here = row.text() if ref in changed or edged else data
        self.plain = here is data and not maybe
        if self._rows:  # (most rows of a stream keep nothing open: nothing to forget)
            self._forget()
        return here, earlier

    def _passes(self, session: str, run: str | None, doc: Any) -> bool:
        """Whether ``doc`` is one event whose chunk or reasoning text its stream's chain would
        take unchanged, leaving nothing open (`PieceChain.passes`): then `row` has nothing to
        mask, keep or write again for it (a stream's first piece always goes to `add`)."""
        events = _events(doc)  # (the row's events as `row` walks them: one, alone)
        event = next(events, None)
        if event is None or next(events, None) is not None:
            return False
        slot = _slot(event)
        if slot is None:
            return False
        holder, key, stream = slot
        chain = self._chains.get((session, run, stream))
        return chain is not None and chain.passes(holder[key])

    def waiting(self) -> set[object]:
        """The rows a later row may still rewrite: some stream's open tail reaches into them
        (what could start a key waits for the stream's next piece, or its run's end)."""
        return {
            piece.ref[0]
            for chain in self._chains.values()
            for piece in chain.open_pieces
            if isinstance(piece.ref, tuple)
        }

    def _forget(self) -> None:
        """Drop the rows no stream's open tail reaches into any more."""
        live = self.waiting()
        for ref in [r for r in self._rows if r not in live]:
            del self._rows[ref]


def masked_entries(entries: Iterable[Entry], secrets: Iterable[str | None]) -> list[Entry]:
    """``entries`` (a session's log, in order) with keys split across rows masked in each."""
    rows = SplitKeyRows(secrets)
    out: list[Entry] = []
    for index, entry in enumerate(entries):
        data, earlier = rows.row("", index, entry.kind, entry.run, entry.data)
        out.append(entry if data is entry.data else dataclasses.replace(entry, data=data))
        for ref, text in earlier:
            if isinstance(ref, int):
                out[ref] = dataclasses.replace(out[ref], data=text)
    return out


#: Event types after which a run's streams of text go no further: the run ended, or it waits
#: for an answer (a reader of the lines must see the question now, not after the answer).
_RUN_PAUSES = TERMINAL_TYPES | REQUEST_TYPES | {"run.paused"}
#: The most lines held back: past it the oldest waiting stream is taken as ended, so a stream
#: that never goes on (a node that streamed its last chunk and said nothing more) cannot hold
#: a long run's lines in memory and away from their reader.
MAX_HELD = 1000


@dataclass
class _Held:
    """A line waiting to be written, and where its pieces sit."""

    line: dict[str, Any]
    slot: tuple[str, Piece, PieceChain] | None = None
    """(the payload's key, the piece, its stream's chain), for a line that carries text."""
    stream: tuple[object, ...] = ()
    """The name of the piece's stream."""

    def masked(self, secrets: tuple[str, ...]) -> dict[str, Any]:
        """The line as written: its piece with what the chain found masked, and what `mask`
        masks in any string (a long fragment at the piece's edge), as the export's rows are."""
        if self.slot is None or not self.slot[1].spans:
            # Nothing found across the joins: the payload's own text, which the protocol layer
            # masked as it masks any string, is the piece masked.
            return self.line
        key, piece, _ = self.slot
        payload = {**self.line["payload"], key: mask(piece.masked, secrets)}
        return {**self.line, "payload": payload}


class SplitKeyLines:
    """Masks a key split across the text of JSONL lines (`openwop_tui.present.export.jsonl_lines`)
    written as they come: `add` takes a line and returns those that may be written now, in
    order; `finish`, at the end of the output, the rest.

    An ``event`` line of a chunk or reasoning delta is a piece of its stream (a run's node's
    reply, an agent's reasoning), followed by a `PieceChain` as the store follows rows: when
    its end could start the key, it and every line after it wait for the stream's next piece.
    A stream's pieces stop waiting when it cannot go on: its node completed or failed, its
    agent's reasoning ended, the run ended or waits for an answer (so ``run --json | jq`` sees
    a question when it is asked), or the output ends.
    """

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = secrets_of(*secrets)
        self._chains: dict[tuple[object, ...], PieceChain] = {}
        self._held: list[_Held] = []

    def add(self, line: dict[str, Any], piece: str | None = None) -> list[dict[str, Any]]:
        """Take the next ``line``; the lines to write now. ``piece``: an event line's text as
        `openwop_tui.protocol.events.RunEvent.piece` has it (whole keys masked, not the
        fragments at its edges, which a later piece may complete); else the payload's."""
        if not self.secrets:
            return [line]
        held = _Held(line)
        stream = _stream(line)
        if stream is not None:
            name, key = stream
            chain = self._chains.get(name)
            if chain is None:
                chain = self._chains[name] = PieceChain(self.secrets)
            text = piece if piece is not None else line["payload"][key]
            held.slot, held.stream = (key, chain.add(len(self._held), text)[0], chain), name
        else:
            self._end_streams(line)
        self._held.append(held)
        if len(self._held) > MAX_HELD and self._held[0].slot is not None:
            self._chains.pop(self._held[0].stream, None)
        return self._ready()

    def finish(self) -> list[dict[str, Any]]:
        """The lines still held, at the end of the output: no piece comes after them."""
        self._chains.clear()
        lines, self._held = [h.masked(self.secrets) for h in self._held], []
        return lines

    def _ready(self) -> list[dict[str, Any]]:
        """The held lines up to the first one a later piece may still change."""
        count = next((i for i, h in enumerate(self._held) if self._waiting(h)), len(self._held))
        ready, self._held = self._held[:count], self._held[count:]
        return [h.masked(self.secrets) for h in ready]

    def _waiting(self, held: _Held) -> bool:
        """Whether a later piece of its stream may still change ``held``."""
        if held.slot is None:
            return False
        _, piece, chain = held.slot
        if self._chains.get(held.stream) is not chain:
            return False  # the stream ended
        return any(p is piece for p in chain.open_pieces)

    def _end_streams(self, line: dict[str, Any]) -> None:
        """Forget the streams ``line`` (not a piece) says cannot go on."""
        run = line.get("runId")
        event = canonical_type(line["type"]) if isinstance(line.get("type"), str) else ""
        payload = line.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        node = line.get("nodeId") or payload.get("nodeId")
        if line.get("kind") == "end" or event in _RUN_PAUSES:
            # (Bare chunks carry no run id: a run's end ends them too.)
            ended = [name for name in self._chains if name[1] in (run, None)]
        elif event == "agent.reasoned":
            ended = [("reasoning", run, payload.get("agentId"))]
        elif node is not None:
            # Any other event of the node (its completion, a tool call, progress): a reply is
            # streamed in consecutive chunks (as every recorded host does), so a key is never
            # cut around one, and a reader of the lines sees the event now.
            ended = [("reply", run, node)]
        else:
            return
        for name in ended:
            self._chains.pop(name, None)


def _stream(line: dict[str, Any]) -> tuple[tuple[object, ...], str] | None:
    """The stream an ``event`` line's text belongs to, and the payload key holding the text;
    ``None`` for a line that is not a piece (as `_slot` tells a stored row's)."""
    kind = line.get("type")
    payload = line.get("payload")
    if line.get("kind") != "event" or not isinstance(kind, str) or not isinstance(payload, dict):
        return None
    kind = canonical_type(kind)
    if kind == _REASONING:
        if isinstance(payload.get("delta"), str):
            return ("reasoning", line.get("runId"), payload.get("agentId")), "delta"
        return None
    if kind not in CHUNK_TYPES:
        return None
    node = line.get("nodeId") or payload.get("nodeId")
    for key in ("chunk", "delta"):
        if isinstance(payload.get(key), str):
            return ("reply", line.get("runId"), node), key
    return None
