"""`openwop_tui.inspect.split_keys`: what a timeline may show of each piece of a stream that
cuts the API key, as the pieces come (issue 23, item 3)."""

from __future__ import annotations

import json
from typing import Any

from key_split import KEY, key_piece

from openwop_tui.inspect.split_keys import PENDING, EventPiece, SplitKeyEvents, with_piece
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.protocol.hostdata import MASK


def chunk(text: str, sequence: int, node: str = "a", kind: str = "output.chunk") -> RunEvent:
    payload: dict[str, Any] = {"nodeId": node, "chunk": text}
    if kind == "agent.reasoning.delta":
        payload = {"agentId": node, "delta": text}
    doc = {"type": kind, "runId": "r", "sequence": sequence, "nodeId": node, "payload": payload}
    wire = json.dumps(doc)
    return normalize(json.loads(wire), secrets=(KEY,), wire=wire)


def event(kind: str, sequence: int, node: str | None = "a") -> RunEvent:
    doc = {"type": kind, "runId": "r", "sequence": sequence, "nodeId": node, "payload": {}}
    return normalize(doc, secrets=(KEY,))


class Shown:
    """Follows a stream as a timeline does: each ref's `EventPiece` (its text as shown now),
    or, for a piece no key touches, its payload's text (cleaned, a whole key masked)."""

    def __init__(self) -> None:
        self.keys = SplitKeyEvents([KEY])
        self.pieces: list[tuple[EventPiece | None, str]] = []

    def add(self, event: RunEvent) -> list[object]:
        piece, changed = self.keys.add(event, len(self.pieces))
        payload = event.payload
        self.pieces.append((piece, str(payload.get("chunk", payload.get("delta", "")))))
        return changed

    def text(self, ref: int) -> str:
        piece, plain = self.pieces[ref]
        return piece.text if piece is not None else plain

    def joined(self) -> str:
        return "".join(self.text(ref) for ref in range(len(self.pieces)))


def test_a_key_cut_in_two_shows_as_the_mask_and_never_a_piece_meanwhile() -> None:
    shown = Shown()
    shown.add(chunk("Two: sk-keysplit-7Qm2V", 1))
    # The end could start the key: not shown until the next piece decides.
    assert shown.text(0) == f"Two: {PENDING}"
    changed = shown.add(chunk("x9Lp4Rt8Wn3Zc6Yb1Hd. ", 2))
    assert changed == [0]
    assert shown.text(0) == f"Two: {MASK}"
    assert shown.text(1) == ". "


def test_a_key_cut_in_three_masks_the_middle_piece_too() -> None:
    shown = Shown()
    for number, text in enumerate(["Three: sk-ke", "ysplit-7Qm2Vx9L", "p4Rt8Wn3Zc6Yb1Hd. "]):
        shown.add(chunk(text, number))
    assert [shown.text(n) for n in range(3)] == [f"Three: {MASK}", "", ". "]
    assert key_piece(shown.joined()) is None


def test_a_piece_that_only_looked_like_a_key_shows_its_end_when_the_next_comes() -> None:
    shown = Shown()
    shown.add(chunk("Skills sk-k", 1))
    assert shown.text(0) == f"Skills {PENDING}"
    assert shown.add(chunk("ip the rest.", 2)) == [0]
    assert shown.text(0) == "Skills sk-k"


def test_the_streams_end_shows_what_waited() -> None:
    """Its node says anything else, or the run ends: no piece comes to complete a key."""
    shown = Shown()
    shown.add(chunk("it works", 1))
    assert shown.text(0) == f"it work{PENDING}"
    assert shown.add(event("node.completed", 2)) == [0]
    assert shown.text(0) == "it works"
    shown.add(chunk("as is", 3, node="b"))
    assert shown.add(event("run.completed", 4, node=None)) == [2]
    assert shown.text(2) == "as is"


def test_streams_are_followed_apart_and_a_whole_key_is_masked() -> None:
    shown = Shown()
    shown.add(chunk("A: sk-keysplit-", 1, node="a"))
    shown.add(chunk("B: sk-keysplit-7Qm2Vx9Lp4", 2, node="b"))
    shown.add(chunk("7Qm2Vx9Lp4Rt8Wn3Zc6Yb1Hd.", 3, node="a"))
    shown.add(chunk("Rt8Wn3Zc6Yb1Hd.", 4, node="b"))
    shown.add(chunk(f"whole {KEY}", 5, kind="agent.reasoning.delta", node="x"))
    assert [shown.text(n) for n in range(5)] == [
        f"A: {MASK}",
        f"B: {MASK}",
        ".",
        ".",
        f"whole {MASK}",
    ]


def test_no_key_no_follow() -> None:
    keys = SplitKeyEvents([None])
    assert keys.add(chunk("Two: sk-keysplit-7Qm2V", 1), 0) == (None, [])


def test_with_piece_replaces_the_text_in_the_payload_and_the_document() -> None:
    cut = chunk("Two: sk-keysplit-7Qm2V", 1)
    masked = with_piece(cut, f"Two: {MASK}")
    assert masked.payload["chunk"] == f"Two: {MASK}"
    assert masked.raw["payload"]["chunk"] == f"Two: {MASK}"
    assert key_piece(json.dumps(masked.raw)) is None
    assert masked.sequence == 1 and masked.type == "output.chunk"
    bare = normalize({"chunk": "sk-keysplit-7Qm2V"}, secrets=(KEY,))
    assert with_piece(bare, PENDING).raw == {"chunk": PENDING}
