"""A key split across the pieces of events a view keeps and shows again (the timeline).

Each chunk or reasoning delta is cleaned on its own, with whole keys masked
(`openwop_tui.protocol.events.RunEvent.piece`); a key a host cut between two chunks is whole
only when they are joined. The session store masks its rows with a
`openwop_tui.text.split_keys.PieceChain` per stream (`openwop_tui.store.keys.SplitKeyRows`);
`SplitKeyEvents` follows the events a view keeps through the same chains, one per stream (a
run's node's reply, an agent's reasoning), and gives each piece that a key touches, or that
could still start one, an `EventPiece`: what of it may be shown now. Its text changes as later
pieces come, so `add` says which earlier pieces changed, for the view to draw them again.

While the end of a piece could start a key, that end is not shown (`PENDING` stands there)
until the next piece of its stream decides, or the stream ends: its node completes or says
anything else, its agent's reasoning ends, the run ends or waits for an answer. So a view
never shows a piece of the key, not even for one frame. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from openwop_tui.protocol.events import TERMINAL_TYPES, RunEvent
from openwop_tui.protocol.hostdata import mask, secrets_of
from openwop_tui.protocol.interrupts import REQUEST_TYPES
from openwop_tui.text.split_keys import Piece, PieceChain

__all__ = ["PENDING", "EventPiece", "SplitKeyEvents", "with_piece"]

#: What stands for the end of a piece that a later piece may still make part of a key.
PENDING = "…"
_REASONING = "agent.reasoning.delta"
#: Event types after which none of a run's streams goes on (as `openwop_tui.store.keys`).
_RUN_PAUSES = TERMINAL_TYPES | REQUEST_TYPES | {"run.paused"}

_Stream = tuple[str, str | None, str | None]


@dataclasses.dataclass(slots=True, eq=False)
class EventPiece:
    """One piece of a stream, as its chain has decided it so far."""

    piece: Piece
    chain: PieceChain
    follower: SplitKeyEvents

    @property
    def text(self) -> str:
        """The piece as it may be shown now: every key masked, what its stream's next piece
        may still make part of one left out (`PENDING` in its place)."""
        piece, secrets = self.piece, self.follower.secrets
        cut = self.chain.undecided(piece) if self.follower.live(self.chain) else None
        if cut is None or any(end > cut for _, end, _ in piece.spans):
            # Decided, or the undecided end is a long fragment the chain masked at once.
            return mask(piece.masked, secrets)
        head = Piece(piece.ref, piece.text[:cut], list(piece.spans)).masked
        return mask(head, secrets) + PENDING

    @property
    def plain(self) -> bool:
        """Whether the piece shows as the host sent it (nothing masked, nothing waiting)."""
        cut = self.chain.undecided(self.piece) if self.follower.live(self.chain) else None
        return cut is None and not self.piece.spans


class SplitKeyEvents:
    """Follows the pieces of a view's events (see the module docstring)."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        self.secrets = secrets_of(*secrets)
        self._chains: dict[_Stream, PieceChain] = {}

    def live(self, chain: PieceChain) -> bool:
        """Whether ``chain``'s stream may still go on."""
        return any(c is chain for c in self._chains.values())

    def add(self, event: RunEvent, ref: object) -> tuple[EventPiece | None, list[object]]:
        """Take the next event (known to the caller as ``ref``): its `EventPiece` (``None``
        when it carries no piece a key touches or may touch: it shows as it is), and the refs
        of earlier events whose piece now shows otherwise."""
        if not self.secrets:
            return None, []
        name = _stream(event)
        if name is None or event.piece is None:
            return None, self._end(event)
        chain = self._chains.get(name)
        if chain is None:
            chain = self._chains[name] = PieceChain(self.secrets)
        before = chain.open_pieces
        pieces = chain.add(ref, event.piece)
        piece = pieces[0]
        changed: list[object] = []
        if before:
            changed = [p.ref for p in pieces[1:]]
            # An earlier piece that no longer waits shows its end now.
            changed += [
                p.ref
                for p in before
                if not any(p is q for q in pieces) and chain.undecided(p) is None
            ]
        if not piece.spans and chain.undecided(piece) is None:
            return None, changed  # nothing of it masked, nothing waiting (most pieces)
        return EventPiece(piece, chain, self), changed

    def _end(self, event: RunEvent) -> list[object]:
        """Forget the streams ``event`` (not a piece) says cannot go on; the refs of their
        pieces that were waiting (they show their end now)."""
        if not self._chains:
            return []
        run = event.run_id
        if event.type in _RUN_PAUSES:
            # (Bare chunks carry no run id: a run's end ends them too.)
            ended = [name for name in self._chains if name[1] in (run, None)]
        elif event.type == "agent.reasoned":
            ended = [("reasoning", run, _agent(event.payload))]
        elif event.node_id is not None:
            # Any other event of the node: a reply is streamed in consecutive chunks.
            ended = [("reply", run, event.node_id)]
        else:
            return []
        refs: list[object] = []
        for name in ended:
            chain = self._chains.pop(name, None)
            if chain is not None:
                refs += [p.ref for p in chain.open_pieces]
        return refs


def _agent(payload: Mapping[str, Any]) -> str | None:
    agent = payload.get("agentId")
    return agent if isinstance(agent, str) else None


def _stream(event: RunEvent) -> _Stream | None:
    """The stream a piece event belongs to (as `openwop_tui.store.keys` names them)."""
    if event.type == _REASONING:
        return "reasoning", event.run_id, _agent(event.payload)
    if event.piece is not None:
        return "reply", event.run_id, event.node_id
    return None


def with_piece(event: RunEvent, text: str) -> RunEvent:
    """``event`` (a chunk or reasoning delta) with its text, in the payload and in the whole
    document, replaced by ``text`` (its piece as shown: `EventPiece.text`)."""
    keys = ("delta",) if event.type == _REASONING else ("chunk", "delta")
    key = next((k for k in keys if isinstance(event.payload.get(k), str)), None)
    if key is None:
        return event
    old = event.payload
    payload = {**old, key: text}
    raw = event.raw
    if raw is old:
        raw = payload  # a bare chunk: the document is the payload
    elif isinstance(raw, Mapping):
        raw = dict(raw)
        for name in ("payload", "data"):
            if raw.get(name) is old or (
                isinstance(raw.get(name), Mapping) and raw[name].get(key) == old.get(key)
            ):
                raw[name] = payload
                break
    return dataclasses.replace(event, payload=payload, raw=raw)
