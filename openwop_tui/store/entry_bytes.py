"""What an entry's text is kept as in the store, and reading it back within a bound.

An entry's text is kept as its UTF-8, compressed (zlib, behind a marker) when it is long. Read
back, a compressed entry is inflated, and inflating is where a stored file can cost far more
than it holds: a 1 MB row of zlib inflates to 1 GiB, and reading it whole took an export to
5.3 GB and a MemoryError, a reopen in the app to 3.1 GB. So every entry, written or read, is
held to `ENTRY_BYTES`: an entry over it is not written (`fits`), and a compressed one that
inflates past it is not read (`inflate` says why, in a sentence the reader shows in its place).

The bound costs nothing for what the store writes: zlib inflates at most about 1,032 times
its input, so data under ``ENTRY_BYTES / 1032`` (65 KB) cannot go past it and is inflated at
once. Longer data is first inflated a piece at a time and thrown away, only counted, so a bomb
is refused holding one piece in memory, never the cap; only then is it inflated for keeps
(with the cap as ``max_length`` all the same).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from openwop_tui.protocol.sse import MAX_LINE_CHARS
from openwop_tui.text.units import human_size

__all__ = [
    "COMPRESS_FROM",
    "DEFLATED",
    "ENTRY_BYTES",
    "Unread",
    "compressed",
    "encode",
    "fits",
    "inflate",
    "too_large",
]

#: The most UTF-8 bytes one entry holds, written or read: the longest line the SSE decoder
#: keeps (`MAX_LINE_CHARS`) at four bytes a character, so any frame a host sends on one line
#: (every host's) fits; the download ceiling's 16 MB inlined as base64 is a third of it.
ENTRY_BYTES = 4 * MAX_LINE_CHARS
#: Entries this long (UTF-8 bytes) or longer are kept compressed: a host that echoes the chat's
#: history in every ``run.started`` sends it again whole at each turn (250 KB at turn 200 of the
#: demo host), and the log keeps every frame. Compressed, those frames take 1-2 % of that.
COMPRESS_FROM = 8192
#: What a compressed entry begins with: 0xFF is never a byte of UTF-8, so no text begins so.
DEFLATED = b"\xff\x01"
#: The most zlib inflates one byte of input to (deflate's longest match per code, rounded up).
_MAX_RATIO = 1032
#: What the counting pass inflates at a time (and so the most it holds).
_PIECE = 1 << 20


@dataclass(frozen=True, slots=True)
class Unread:
    """A stored entry that was not read: ``why`` says so in a sentence (no position: the
    reader knows where it is)."""

    why: str


def compressed(data: bytes) -> bool:
    """Whether stored ``data`` is a compressed entry (`encode`)."""
    return data.startswith(DEFLATED)


def encode(text: str) -> bytes:
    """The bytes ``text`` is kept as: its UTF-8 (lone surrogates included, so any string a
    host or a user produced is kept), compressed when long (`COMPRESS_FROM`); `inflate` and a
    UTF-8 decode read it back exactly."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) < COMPRESS_FROM:
        return raw
    # (Level 1: a quarter of level 6's time for nearly its size on what hosts echo.)
    packed = DEFLATED + zlib.compress(raw, 1)
    return packed if len(packed) < len(raw) else raw


def fits(text: str) -> int | None:
    """``None`` when ``text`` is within `ENTRY_BYTES`; else its size in UTF-8 bytes."""
    if len(text) * 4 <= ENTRY_BYTES:  # (the common case, without encoding it)
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > ENTRY_BYTES else None


def too_large(size: int) -> str:
    """Why an entry of ``size`` UTF-8 bytes is not kept."""
    return (
        f"it holds {human_size(size)}, over the {human_size(ENTRY_BYTES)} a stored entry may hold"
    )


def inflate(data: bytes, cap: int | None = None) -> bytes | Unread:
    """The bytes compressed ``data`` (`encode`'s, marker included) stands for, at most
    ``cap`` of them (`ENTRY_BYTES` by default); `Unread` when it inflates past ``cap`` or
    does not inflate at all."""
    if cap is None:
        cap = ENTRY_BYTES
    body = memoryview(data)[len(DEFLATED) :]
    if len(body) * _MAX_RATIO > cap:
        counted = _count(body, cap)
        if isinstance(counted, Unread):
            return counted
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(body, cap + 1)
    except zlib.error as error:
        return _damaged(error)
    if len(out) > cap or inflater.unconsumed_tail:
        return _over(len(body), cap)
    if not inflater.eof:
        return Unread("its compressed data is damaged (cut short)")
    return out


def _count(body: memoryview, cap: int) -> Unread | None:
    """Inflate ``body`` a piece at a time, keeping nothing: `Unread` when it is over ``cap``
    or damaged."""
    inflater = zlib.decompressobj()
    total, rest = 0, body
    try:
        while not inflater.eof:
            piece = inflater.decompress(rest, _PIECE)
            total += len(piece)
            if total > cap:
                return _over(len(body), cap)
            rest = memoryview(inflater.unconsumed_tail)
            if not piece and not rest:
                break  # the input ran out before the end: the inflating pass says so
    except zlib.error as error:
        return _damaged(error)
    return None


def _over(size: int, cap: int) -> Unread:
    return Unread(
        f"its {human_size(size)} of compressed data inflates beyond the {human_size(cap)} cap "
        "of a stored entry"
    )


def _damaged(error: zlib.error) -> Unread:
    return Unread(f"its compressed data is damaged ({error})")
