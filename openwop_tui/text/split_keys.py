"""A secret split across pieces: masked where the pieces join.

A host streams a reply in chunks, and a key it echoes can be cut anywhere between two of them
(or three). Each chunk on its own holds only a fragment, which per-string masking
(`openwop_tui.text.mask.mask`) cannot tell from ordinary text unless it is long; joined,
the pieces spell the key. Two followers of a stream of pieces live here, both built on one
rule (`_spans`: where in the joined text a secret lies):

* `StreamMask`, for what is drawn (the transcript fold): it holds back, at the end of each
  piece, any text that could still be the start of a secret, until the next piece decides; a
  secret completed across the join is masked whole, so the screen never shows the key nor a
  piece of it. At the end of the stream the held text is shown, unless it is a long fragment
  (`fragment_floor`): a reply ending in ``openwop-tui`` keeps its last word.
* `PieceChain`, for what is kept (the session store and the raw exports): each piece is written
  as it arrives, so when a later piece completes a secret, the chain says which earlier pieces
  to rewrite, and how.

Only the secrets themselves and long fragments are ever masked: never a word of the client's
own text. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from openwop_tui.text.mask import MASK, MIN_PREFIX, fragment_floor, secrets_of

__all__ = ["Piece", "PieceChain", "StreamMask"]


def _held(text: str, secrets: tuple[str, ...]) -> int:
    """How many characters at the end of ``text`` could start a secret (a proper prefix)."""
    best = 0
    for secret in secrets:
        first = secret[0]
        lowest = max(0, len(text) - len(secret) + 1)
        index = text.find(first, lowest)
        while index != -1:
            size = len(text) - index
            if size <= best:
                break
            if secret.startswith(text[index:]):
                best = size
                break
            index = text.find(first, index + 1)
    return best


def _lead(text: str, secrets: tuple[str, ...]) -> int:
    """How many characters at the start of ``text`` are a long piece of the end of a secret
    (a stream that begins mid-key: the host cut before it)."""
    for secret in secrets:
        for size in range(min(len(secret) - 1, len(text)), fragment_floor(secret) - 1, -1):
            if text.startswith(secret[-size:]):
                return size
    return 0


def _spans(text: str, secrets: tuple[str, ...], *, first: bool = False) -> list[tuple[int, int]]:
    """Where whole secrets lie in ``text``, merged and in order (longest secret first wins);
    with ``first`` (``text`` starts a stream), a long key suffix at its start too."""
    found: list[tuple[int, int]] = []
    lead = _lead(text, secrets) if first else 0
    if lead:
        found.append((0, lead))
    for secret in secrets:
        index = text.find(secret)
        while index != -1:
            found.append((index, index + len(secret)))
            index = text.find(secret, index + len(secret))
    found.sort()
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _masked(text: str, spans: Iterable[tuple[int, int, bool]]) -> str:
    """``text`` with each span cut out, and `MASK` in the place of those whose flag is set
    (overlapping or touching spans are one); the flag is clear on the continuation of a key
    whose mask an earlier piece shows, so the pieces joined read one `MASK`."""
    out: list[str] = []
    at = 0
    for start, end, shown in sorted(spans):
        if out and start <= at:
            at = max(at, end)  # overlaps or touches the last span: it grows
            continue
        out += [text[at:start], MASK if shown else ""]
        at = end
    out.append(text[at:])
    return "".join(out)


def _is_long_fragment(text: str, secrets: tuple[str, ...], before: str = "") -> bool:
    """Whether ``text`` (a secret's prefix left at the end of a stream) is masked on its own: it
    is long (`fragment_floor`), or follows ``Bearer `` (``before`` ends the text ahead of it),
    as `openwop_tui.text.mask.mask` has it."""
    bearer = before[-7:].lower() == "bearer " and len(text) >= MIN_PREFIX
    return any((bearer or len(text) >= fragment_floor(s)) and s.startswith(text) for s in secrets)


def _released(
    spans: list[tuple[int, int]],
    text: str,
    held: int,
    cut: int,
    secrets: tuple[str, ...],
    before: str,
) -> None:
    """Mask the ``held`` characters that start ``text`` if they are a cut-off prefix of a secret.

    They were a secret's prefix waiting for more; when the next piece does not complete one (nothing
    covers them, and what waits now starts later), they are a cut-off prefix: masked (added to
    ``spans``) if long or after Bearer.

    Args:
        spans: The spans of ``text`` masked so far, ``(start, stop)`` in order; added to in place.
        text: The held characters followed by the new piece.
        held: How many characters of ``text`` were held back.
        cut: Where the text still held back now starts.
        secrets: The values masked.
        before: The text ahead of ``text``, whose end may be ``Bearer ``.
    """
    broken = held and cut > 0 and not any(a == 0 for a, _ in spans)
    if broken and _is_long_fragment(text[:held], secrets, before):
        spans.insert(0, (0, held))


class StreamMask:
    """Masks secrets across the pieces of one stream of text (one reply, one reasoning block).

    `feed` returns what may be shown now; `flush`, at the end of the stream, what was held.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted(set(secrets_of(*secrets)), key=len, reverse=True))
        self._held = ""
        self._before = ""
        """The last characters shown ahead of the held text (``Bearer `` says a key follows)."""
        self._started = False

    @property
    def holding(self) -> bool:
        """Whether some text waits for the next piece."""
        return bool(self._held)

    def feed(self, piece: str) -> str:
        """The part of ``self``'s text so far that is safe to show, secrets masked."""
        if not self.secrets:
            return piece
        text = self._held + piece
        spans = _spans(text, self.secrets, first=not self._started)
        self._started = self._started or bool(text)
        after = spans[-1][1] if spans else 0
        keep = _held(text[after:], self.secrets)
        cut = len(text) - keep
        _released(spans, text, len(self._held), cut, self.secrets, self._before)
        self._held = text[cut:]
        shown = _masked(text[:cut], [(a, b, True) for a, b in spans])
        self._before = (self._before + shown)[-7:]
        return shown

    def flush(self) -> str:
        """The held text, at the end of the stream: shown, or masked when it is a long
        fragment of a secret (a reply cut mid-key)."""
        held, self._held = self._held, ""
        return MASK if held and _is_long_fragment(held, self.secrets, self._before) else held


@dataclass
class Piece:
    """One piece of a chain: its text as received, and the spans of it masked so far."""

    ref: object
    """What the caller knows the piece by (a row number)."""
    text: str
    spans: list[tuple[int, int, bool]] = field(default_factory=list)
    """``(start, end, shown)``: the characters masked, and whether `MASK` stands there (the
    span starts a key) or nothing (it continues one an earlier piece shows masked)."""

    @property
    def masked(self) -> str:
        """The text with its spans masked."""
        return _masked(self.text, self.spans)


class PieceChain:
    """Follows the pieces of one stream that are kept as they arrive (rows of a store).

    `add` takes the next piece and returns every piece whose masking changed: the new one, and
    earlier ones whose end turns out to start a secret this piece completes. A long fragment
    left open at the end (``fragment_floor``) is masked at once, since no later piece may come.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted(set(secrets_of(*secrets)), key=len, reverse=True))
        self._open: list[Piece] = []
        """The pieces whose ends could still be part of a secret, oldest first."""
        self._open_from = 0
        """Where in the first open piece the text that could start a secret begins."""
        self._started = False

    @property
    def open_pieces(self) -> tuple[Piece, ...]:
        """The pieces a later piece may still change."""
        return tuple(self._open)

    def undecided(self, piece: Piece) -> int | None:
        """Where in ``piece``'s text the characters a later piece may still change begin (they
        could start a secret), or ``None`` when none of it waits."""
        for index, held in enumerate(self._open):
            if held is piece:
                return self._open_from if index == 0 else 0
        return None

    def passes(self, text: str) -> bool:
        """Whether ``text``, added next, would go through unchanged and leave nothing open:
        no earlier piece waits, the stream has begun, and it neither holds a secret nor ends in
        what could start one. `add` would then return the piece alone, unmasked, and change
        nothing here, so a caller may skip it (the store, for most of a long reply's chunks)."""
        return not self._open and self._started and not self._touches(text)

    def add(self, ref: object, text: str) -> list[Piece]:
        """Take the next piece; the pieces to write again (this one first)."""
        piece = Piece(ref, text)
        if not self.secrets:
            return [piece]
        if self.passes(text):
            return [piece]  # nothing waits, and this piece neither holds nor starts a secret
        # The joined text: the open tail of earlier pieces, then this one.
        parts: list[tuple[Piece, int]] = []
        offset = self._open_from
        for earlier in self._open:
            parts.append((earlier, offset))
            offset = 0
        parts.append((piece, 0))
        joined = "".join(p.text[start:] for p, start in parts)
        spans = _spans(joined, self.secrets, first=not self._started)
        self._started = self._started or bool(joined)
        after = spans[-1][1] if spans else 0
        keep = _held(joined[after:], self.secrets)
        ahead = parts[0][0].text[: parts[0][1]] if len(parts) > 1 else ""
        tail = len(joined) - len(text)
        _released(spans, joined, tail, len(joined) - keep, self.secrets, ahead)
        before = ahead + joined[: len(joined) - keep]
        if keep and _is_long_fragment(joined[len(joined) - keep :], self.secrets, before):
            spans.append((len(joined) - keep, len(joined)))
        changed = self._apply(parts, spans)
        self._reopen(parts, len(joined) - keep)
        return [piece, *(p for p in changed if p is not piece)]

    def _touches(self, text: str) -> bool:
        """Whether ``text`` holds a secret or ends in what could start one (what `add` would
        find in it when no earlier piece is open and the stream has begun)."""
        return any(secret in text for secret in self.secrets) or _held(text, self.secrets) > 0

    @staticmethod
    def _apply(parts: list[tuple[Piece, int]], spans: list[tuple[int, int]]) -> list[Piece]:
        """Add ``spans`` (in joined coordinates) to the pieces they cover."""
        changed: list[Piece] = []
        base = 0
        for piece, start in parts:
            length = len(piece.text) - start
            for a, b in spans:
                lo, hi = max(a, base), min(b, base + length)
                if lo < hi:
                    span = (lo - base + start, hi - base + start, lo == a)
                    if span not in piece.spans:
                        piece.spans.append(span)
                        if piece not in changed:
                            changed.append(piece)
            base += length
        return changed

    def _reopen(self, parts: list[tuple[Piece, int]], open_at: int) -> None:
        """Keep the pieces from joined position ``open_at`` on as the open tail."""
        base = 0
        self._open = []
        for piece, start in parts:
            length = len(piece.text) - start
            if base + length > open_at:
                if not self._open:
                    self._open_from = start + max(0, open_at - base)
                self._open.append(piece)
            base += length
