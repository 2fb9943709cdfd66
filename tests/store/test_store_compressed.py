"""Long entries are kept compressed and read back byte for byte (issue 13: a host that echoes
the chat's history in every ``run.started`` made the store grow with the square of the turns,
33 MB at 200 turns of the demo host; 8 MB now).

Each test fails without its part: an entry not compressed (its bytes on disk), not inflated
exactly (surrogates, every character), a file not marked with the schema that reads it (an
older openwop-tui would show the entries as damaged), a damaged one failing the whole read, or
the key masking (within an entry, and across two: the earlier one rewritten) skipped for a
compressed entry. Secrets are looked for in the inflated entries, not only in the raw file.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest

from openwop_tui.protocol.hostdata import MASK
from openwop_tui.store import chunks, database
from openwop_tui.store.database import StoreError
from openwop_tui.store.entry_bytes import COMPRESS_FROM
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

KEY = "sk-compressed-0123456789abcdefXYZ"
LONG = "".join(f"turn {n}: the weather is fine, ünïcödé ✓ 🌦 \udcff\n" for n in range(2000))
#: Long enough to be compressed, too short to be kept as chunks (`openwop_tui.store.chunks`).
MEDIUM = LONG[:8000]


def _raw_rows(path: Path) -> list[bytes]:
    with sqlite3.connect(path) as db:
        return [bytes(row[0]) for row in db.execute("SELECT data FROM entries ORDER BY seq")]


def _inflated(path: Path) -> bytes:
    """Everything the file holds, its compressed entries inflated."""
    out = [path.read_bytes()]
    for data in _raw_rows(path):
        if data.startswith(b"\xff\x01"):
            out.append(zlib.decompress(data[2:]))
    return b"\n".join(out)


def _version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_a_long_entry_is_kept_compressed_and_read_back_exactly(tmp_path: Path) -> None:
    size = len(MEDIUM.encode("utf-8", "surrogatepass"))
    assert COMPRESS_FROM <= size < chunks.CHUNK_FROM
    path = tmp_path / "s.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", MEDIUM, run="r"))
        store.append(session, Entry("frame", "short", run="r"))
        assert [entry.data for entry in store.entries(session)] == [MEDIUM, "short"]
    long_row, short_row = _raw_rows(path)
    assert long_row.startswith(b"\xff\x01")
    assert len(long_row) < size // 10
    assert short_row == b"short"
    with Store(path) as store:  # and from a new store on the file
        assert [entry.data for entry in store.entries(session)] == [MEDIUM, "short"]


def test_an_entry_just_below_the_threshold_is_kept_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    text = "a" * (COMPRESS_FROM - 1)
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", text, run="r"))
    assert _raw_rows(path) == [text.encode()]
    assert _version(path) == 1  # nothing an older openwop-tui cannot read


def test_the_file_is_marked_for_the_schema_that_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", "hello"))
        assert _version(path) == 1
        store.append(session, Entry("frame", MEDIUM, run="r"))
        store.flush()
        assert _version(path) == 2  # compressed: what an openwop-tui that reads 2 reads
        store.append(session, Entry("frame", LONG, run="r"))
        store.flush()
        assert _version(path) == database.SCHEMA_VERSION == 3  # chunked
    # An openwop-tui that reads schema 2 refuses it in a sentence (it cannot read chunks).
    monkeypatch.setattr(database, "SCHEMA_VERSION", 2)
    with pytest.raises(StoreError, match="newer openwop-tui"):
        Store(path)


def test_a_damaged_compressed_entry_is_said_and_the_rest_read(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", MEDIUM, run="r"))
        store.append(session, Entry("frame", "after", run="r"))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET data = ? WHERE seq = 0", (b"\xff\x01not zlib at all",))
    with Store(path) as store:
        entries = list(store.entries(session))
    assert [e.kind for e in entries] == ["frame", "notice", "frame"]
    assert entries[0].data == "" and "entry 1 (frame of run r) was not read" in entries[1].data
    assert "damaged" in entries[1].data
    assert entries[2].data == "after"


def _chunk(piece: str) -> str:
    return json.dumps({"type": "output.chunk", "nodeId": "n", "payload": {"chunk": piece}})


def test_the_key_is_masked_in_a_compressed_entry_and_across_two(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    half = len(KEY) // 2
    filler = "x" * COMPRESS_FROM
    with Store(path, secrets=[KEY]) as store:
        whole = store.create(host="h", workflow="w")
        store.append(whole, Entry("frame", json.dumps({"echo": f"{filler} {KEY}"}), run="r"))
        split = store.create(host="h", workflow="w")
        # The key cut between a long chunk (kept compressed) and the next: the earlier row is
        # written again, masked, once the next one completes the key.
        store.append(split, Entry("frame", _chunk(f"{filler} {KEY[:half]}"), run="r"))
        store.append(split, Entry("frame", _chunk(f"{KEY[half:]} and after"), run="r"))
        store.flush()
        [echo] = list(store.entries(whole))
        assert KEY not in echo.data and MASK in echo.data
        chunks = [json.loads(e.data)["payload"]["chunk"] for e in store.entries(split)]
        assert "".join(chunks) == f"{filler} {MASK} and after"
    rows = _raw_rows(path)
    assert sum(row.startswith(b"\xff\x01") for row in rows) == 2  # both long ones compressed
    on_disk = _inflated(path)
    assert KEY.encode() not in on_disk
    assert KEY[:half].encode() not in on_disk and KEY[half:].encode() not in on_disk
