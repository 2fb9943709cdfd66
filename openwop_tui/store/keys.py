"""A key split across stored rows: found where the rows' chunks join, and masked in every row.

The session store keeps each event as it arrives, and a host may cut an echoed key between the
chunk events of one reply: no row holds the key whole, so masking row by row keeps every piece.
`SplitKeyRows` follows the chunk and reasoning texts of each stream (a run's node, or agent)
through a `openwop_tui.text.split_keys.PieceChain`, and when a row completes a key it says which
rows
to write again, the pieces masked. Used for every row the store appends, and again over the rows
an export reads (so a session stored before this existed is exported masked too).

A row rewritten this way is the host's document re-serialised (``json.dumps``) with the pieces
masked; every other row keeps the host's bytes. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openwop_tui.protocol.events import CHUNK_TYPES, canonical_type
from openwop_tui.protocol.hostdata import KeyProbes, mask, secrets_of
from openwop_tui.text.split_keys import Piece, PieceChain

if TYPE_CHECKING:  # the store imports this module
    from openwop_tui.store.sessions import Entry

__all__ = ["SplitKeyRows", "masked_entries"]

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
        self._probes = KeyProbes(self.secrets)

    def row(
        self, session: str, ref: object, kind: str, run: str | None, data: str
    ) -> tuple[str, list[tuple[object, str]]]:
        """Row ``ref`` (``kind``, of ``run``) with text ``data``: the text to store for it,
        and ``(ref, text)`` for each earlier row to write again."""
        if kind == "end":  # the run's streams are over: their chains go
            for name in [c for c in self._chains if c[:2] == (session, run)]:
                del self._chains[name]
        if not self.secrets or kind not in _EVENT_KINDS:
            return data, []
        chunky = '"chunk"' in data or '"delta"' in data
        # Whether any string of the row may hold what `mask` masks (`KeyProbes.may_change`:
        # the rule the decoder's plain path follows, so a reply's line breaks, or a run's
        # inputs echoing a long history, are not decoded and walked again here).
        maybe = self._probes.may_change(data)
        if not chunky and not maybe:
            return data, []
        try:
            doc = json.loads(data)
        except ValueError:
            return data, []
        row = _Row(doc)
        changed: list[object] = []
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
            for piece in pieces:
                owner = piece.ref[0] if isinstance(piece.ref, tuple) else None
                if piece.spans and owner not in changed:
                    changed.append(owner)
        # Every other string: the key whole, or a long fragment at its edge (`mask`), as the
        # protocol layer masks it when the row is read; the chain decides the pieces.
        slots = {(id(holder), key) for holder, key, _ in row.slots}
        edged = maybe and _mask_strings(doc, self.secrets, slots)
        if not row.slots and not edged:
            return data, []
        if row.slots:
            self._rows[ref] = row
        earlier = [(owner, self._rows[owner].text()) for owner in changed if owner != ref]
        here = row.text() if ref in changed or edged else data
        self._forget()
        return here, earlier

    def _forget(self) -> None:
        """Drop the rows no stream's open tail reaches into any more."""
        live = {
            piece.ref[0]
            for chain in self._chains.values()
            for piece in chain.open_pieces
            if isinstance(piece.ref, tuple)
        }
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
