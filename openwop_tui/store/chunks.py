"""Long entries kept as content-defined chunks, each stored once: what keeps the store linear.

A chat turn's ``run.started`` echoes the whole chat history (``inputs.messages``), so a log
that keeps every frame whole keeps the history again at every turn and grows as the square of
the session's length (compressed or not: a real history compresses 3-5 times, not 3,000). Here
an entry of `CHUNK_FROM` bytes or more is cut into chunks at content-defined places (`split`),
and each chunk is kept once in the ``chunks`` table, keyed by the SHA-256 of its bytes, with a
count of what refers to it: the history echoed again at the next turn cuts into the same
chunks up to where it grew, so only the new messages (and the frame's own head and tail) are
new chunks.

The places are content-defined so an echo shifted by a new message still shares its chunks:
each byte is mapped to a bit (a fixed, seeded table) and a cut may follow any place where the
last 11 bits spell `_ANCHOR` (about one place in 2-3 KiB of text, JSON, base64 alike), at
least `MIN_LEAF` after the last cut, and is forced at `MAX_LEAF`. Mapping and finding are
``bytes.translate`` and ``bytes.find``: C speed, unlike a rolling hash a byte at a time in
Python (a 1.8 MB history: 4 ms against half a second).

A long history is thousands of chunks, and a list of their keys in every entry would grow as
the square again (a 32-byte key per 3 KiB of history at every turn); so the keys are grouped
in lists, themselves cut where a key's last byte says (about 32 keys to a list) and kept as
chunks of their own: an entry's row holds `CHUNKED` and the keys of its lists, a list holds
`LIST` and the keys of its leaves. A turn adds a few leaves and a list or two.

Reading back (`read`) joins the leaves byte for byte and checks every key against the bytes it
names; a chunk that is missing, does not match its key, is of the wrong kind, or would take
the entry past its cap (`entry_bytes.ENTRY_BYTES`, each leaf inflated within `MAX_LEAF`) makes
the entry `Unread` with a sentence, never a crash. Counts are kept in the writing transaction:
`put` adds one to each chunk an entry refers to, `release` takes it away and removes what
nothing refers to any more (a deleted session, a rewritten row).
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from collections.abc import Iterable

from openwop_tui.store.entry_bytes import (
    DEFLATED,
    ENTRY_BYTES,
    Unread,
    compressed,
    encode,
    inflate,
)
from openwop_tui.store.sqlite_facts import has, user_version
from openwop_tui.text.units import human_size

__all__ = [
    "CHUNKED",
    "CHUNKED_SCHEMA",
    "CHUNKS_TABLE",
    "CHUNK_FROM",
    "chunked",
    "encode_for_chunks",
    "has_table",
    "put",
    "read",
    "release",
    "split",
    "stored",
]

#: Entries this long (UTF-8 bytes) or longer are kept as chunks; shorter ones as before
#: (`entry_bytes.encode`): a history this short is echoed a few turns at most.
CHUNK_FROM = 16384
#: What an entry's row kept as chunks begins with (0xFF is never a byte of UTF-8), followed
#: by the 32-byte keys of its lists.
CHUNKED = b"\xff\x02"
#: What a list of leaves begins with (in the ``chunks`` table), followed by their keys.
LIST = b"\xff\x03"
#: The schema (``PRAGMA user_version``) of a file that holds chunked entries.
CHUNKED_SCHEMA = 3
#: The fewest bytes in a leaf (but an entry's last) and the most.
MIN_LEAF = 1024
MAX_LEAF = 16384
#: The most keys in one list (a list is cut sooner where a key says: about every 32).
LIST_MAX = 128

CHUNKS_TABLE = """
CREATE TABLE chunks (
    key BLOB PRIMARY KEY,
    refs INTEGER NOT NULL,
    data BLOB NOT NULL
)
"""

_KEY = 32
#: Each byte's bit (seeded once, fixed forever: changing it only costs sharing, not reading).
_BITS = bytes(
    48 + (hashlib.sha256(b"openwop-tui chunks %d" % n).digest()[0] & 1) for n in range(256)
)
_ANCHOR = b"10010110001"
#: A list ends after a key whose last byte has these bits clear (one key in 32).
_LIST_MASK = 31


def chunked(data: object) -> bool:
    """Whether stored ``data`` is an entry kept as chunks."""
    return isinstance(data, bytes) and data.startswith(CHUNKED)


def has_table(db: sqlite3.Connection) -> bool:
    """Whether the database has the ``chunks`` table (a file from before it has not)."""
    return has(db, "table", "chunks")


def encode_for_chunks(text: str) -> bytes:
    """What an entry waits as before it is written: its UTF-8 when it is to be chunked (the
    write chunks it, `stored`), else what `entry_bytes.encode` keeps."""
    raw = text.encode("utf-8", "surrogatepass")
    return raw if len(raw) >= CHUNK_FROM else encode(text)


def split(raw: bytes) -> list[bytes]:
    """``raw`` cut at content-defined places (see the module's docstring); joined, the pieces
    are ``raw``."""
    bits = raw.translate(_BITS)
    pieces: list[bytes] = []
    last = 0
    found = bits.find(_ANCHOR, MIN_LEAF - len(_ANCHOR))
    while found >= 0:
        cut = found + len(_ANCHOR)
        while cut - last > MAX_LEAF:  # no anchor for a long way: forced cuts
            pieces.append(raw[last : last + MAX_LEAF])
            last += MAX_LEAF
        if cut - last >= MIN_LEAF:
            pieces.append(raw[last:cut])
            last = cut
        found = bits.find(_ANCHOR, max(found + 1, last + MIN_LEAF - len(_ANCHOR)))
    while len(raw) - last > MAX_LEAF:
        pieces.append(raw[last : last + MAX_LEAF])
        last += MAX_LEAF
    if last < len(raw):
        pieces.append(raw[last:])
    return pieces


def _lists(keys: list[bytes]) -> list[list[bytes]]:
    """Leaf keys grouped into lists: the first leaf and the last each a list of its own (an
    echo's head names its run and its tail ends the frame: new at every turn, and a list
    holding them would be new with them), the rest cut where a key says (content-defined
    too, so the lists of the history in between are the same at the next turn)."""
    if len(keys) <= 2:
        return [[key] for key in keys]
    groups: list[list[bytes]] = [[keys[0]], []]
    for key in keys[1:-1]:
        groups[-1].append(key)
        if key[-1] & _LIST_MASK == 0 or len(groups[-1]) >= LIST_MAX:
            groups.append([])
    groups.append([keys[-1]])
    return [group for group in groups if group]


def _add(db: sqlite3.Connection, key: bytes, data: bytes | None) -> bool:
    """One more reference to chunk ``key``; False when it is not stored and ``data`` is None
    (the caller stores it)."""
    if db.execute("UPDATE chunks SET refs = refs + 1 WHERE key = ?", (key,)).rowcount:
        return True
    if data is None:
        return False
    db.execute("INSERT INTO chunks (key, refs, data) VALUES (?, 1, ?)", (key, data))
    return True


def _packed(leaf: bytes) -> bytes:
    # Level 6: a chunk is compressed once however many entries share it.
    packed = DEFLATED + zlib.compress(leaf, 6)
    return packed if len(packed) < len(leaf) else leaf


def put(db: sqlite3.Connection, raw: bytes) -> bytes:
    """Keep ``raw`` (an entry's UTF-8) as chunks, in the caller's transaction; the row's data
    that stands for it. Marks the file with `CHUNKED_SCHEMA`."""
    leaves = split(raw)
    keys = [hashlib.sha256(leaf).digest() for leaf in leaves]
    by_key = dict(zip(keys, leaves, strict=True))
    top: list[bytes] = []
    for group in _lists(keys):
        listed = LIST + b"".join(group)
        list_key = hashlib.sha256(listed).digest()
        if not _add(db, list_key, None):
            # A new list: its leaves gain a reference each (a list that is already stored
            # holds its references already).
            for key in group:
                if not _add(db, key, None):
                    _add(db, key, _packed(by_key[key]))
            _add(db, list_key, listed)
        top.append(list_key)
    if user_version(db) < CHUNKED_SCHEMA:
        db.execute(f"PRAGMA user_version={CHUNKED_SCHEMA}")
    return CHUNKED + b"".join(top)


def stored(db: sqlite3.Connection, data: bytes) -> bytes:
    """What row data ``data`` (as an entry waits, `encode_for_chunks`) is written as: its
    chunks' keys when it is long enough to be chunked, else itself."""
    if len(data) >= CHUNK_FROM and not data.startswith(b"\xff"):
        return put(db, data)
    return data


def _keys(body: bytes) -> list[bytes] | None:
    if len(body) % _KEY:
        return None
    return [body[at : at + _KEY] for at in range(0, len(body), _KEY)]


def _drop(db: sqlite3.Connection, keys: Iterable[bytes]) -> list[bytes]:
    """One reference fewer to each of ``keys``; the data of those nothing refers to now,
    which are removed."""
    gone: list[bytes] = []
    for key in keys:
        db.execute("UPDATE chunks SET refs = refs - 1 WHERE key = ?", (key,))
        row = db.execute("SELECT refs, data FROM chunks WHERE key = ?", (key,)).fetchone()
        if row is not None and row[0] <= 0:
            db.execute("DELETE FROM chunks WHERE key = ?", (key,))
            gone.append(bytes(row[1]))
    return gone


def release(db: sqlite3.Connection, datas: Iterable[object]) -> None:
    """In the caller's transaction: the rows holding ``datas`` are going (deleted or
    rewritten), so the chunks they refer to lose a reference each, and a chunk nothing refers
    to any more is removed (a list's leaves with it). Data that is not chunked, or whose keys
    are damaged, refers to nothing."""
    for data in datas:
        if not chunked(data):
            continue
        assert isinstance(data, bytes)
        lists = _keys(data[len(CHUNKED) :]) or []
        for gone in _drop(db, lists):
            if gone.startswith(LIST):
                _drop(db, _keys(gone[len(LIST) :]) or [])


def _chunk(db: sqlite3.Connection, key: bytes) -> bytes | None:
    row = db.execute("SELECT data FROM chunks WHERE key = ?", (key,)).fetchone()
    return None if row is None or not isinstance(row[0], bytes) else row[0]


def _leaf(db: sqlite3.Connection, key: bytes) -> bytes | Unread:
    """The bytes of leaf ``key``, checked against it."""
    data = _chunk(db, key)
    if data is None:
        return Unread("a chunk of it is missing from the store")
    if data.startswith(LIST):
        return Unread("its chunks are damaged (a list where text belongs)")
    if compressed(data):
        inflated = inflate(data, MAX_LEAF)
        if isinstance(inflated, Unread):
            return Unread(f"a chunk of it is damaged: {inflated.why}")
        data = inflated
    if hashlib.sha256(data).digest() != key:
        return Unread("a chunk of it does not match its key (damaged)")
    return data


def read(db: sqlite3.Connection, data: bytes, cap: int | None = None) -> bytes | Unread:
    """The bytes the chunked row ``data`` stands for, at most ``cap`` (`ENTRY_BYTES` by
    default), each chunk checked against its key; `Unread` saying why when they cannot be
    read whole."""
    if cap is None:
        cap = ENTRY_BYTES
    lists = _keys(data[len(CHUNKED) :])
    if lists is None:
        return Unread("its list of chunks is damaged")
    out = bytearray()
    # Every leaf but an entry's last is at least MIN_LEAF: more leaves than the cap allows so
    # is a crafted table, refused before it is walked (empty leaves would cost no bytes).
    budget = cap // MIN_LEAF + 1
    for list_key in lists:
        listed = _chunk(db, list_key)
        if listed is None:
            return Unread("a chunk of it is missing from the store")
        if not listed.startswith(LIST) or hashlib.sha256(listed).digest() != list_key:
            return Unread("its list of chunks is damaged")
        leaves = _keys(listed[len(LIST) :])
        if leaves is None or len(leaves) > LIST_MAX:
            return Unread("its list of chunks is damaged")
        budget -= len(leaves)
        if budget < 0:
            return _over(cap)
        for key in leaves:
            leaf = _leaf(db, key)
            if isinstance(leaf, Unread):
                return leaf
            if len(out) + len(leaf) > cap:
                return _over(cap)
            out += leaf
    return bytes(out)


def _over(cap: int) -> Unread:
    return Unread(f"its chunks add up to more than the {human_size(cap)} a stored entry may hold")
