"""Long entries kept as shared chunks (issue 26): read back byte for byte, each chunk stored
once and counted, freed with the last entry that refers to it, a crafted chunk table refused
in a sentence, and a session whose ``run.started`` echoes its history growing linearly.

Each test fails without its part: chunks not shared (the rows counted), a count not taken
back on delete (the rows left, or a shared one removed), a chunk read without checking its
key or its size, or a store keeping each echo whole (the growth ratio).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import pytest
from chunk_sessions import Talk, echo_session, stored_bytes

from openwop_tui.__main__ import main
from openwop_tui.store import chunks
from openwop_tui.store.database import default_path
from openwop_tui.store.entry_bytes import DEFLATED
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

KEY = "sk-chunked-0123456789abcdefXYZ"


def _history(talk: Talk, messages: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": talk.sentence()} for _ in range(messages)]


def _echo(history: list[dict[str, str]], run: str = "run_1") -> str:
    return json.dumps({"type": "run.started", "runId": run, "inputs": {"messages": history}})


def _rows(path: Path) -> list[tuple[bytes, int, bytes]]:
    with sqlite3.connect(path) as db:
        return [(bytes(k), int(r), bytes(d)) for k, r, d in db.execute("SELECT * FROM chunks")]


def _expected_refs(path: Path) -> dict[bytes, int]:
    """Each chunk's count as the rows referring to it say (entries to lists, lists to
    leaves): what the ``refs`` column must hold."""
    counts: dict[bytes, int] = {}
    with sqlite3.connect(path) as db:
        datas = [bytes(row[0]) for row in db.execute("SELECT data FROM entries")]
        datas += [bytes(row[0]) for row in db.execute("SELECT data FROM chunks")]
    for data in datas:
        if data[:2] in (chunks.CHUNKED, chunks.LIST):
            for at in range(2, len(data), 32):
                counts[data[at : at + 32]] = counts.get(data[at : at + 32], 0) + 1
    return counts


def _refs(path: Path) -> dict[bytes, int]:
    return {key: refs for key, refs, _ in _rows(path)}


@pytest.mark.parametrize("size", [100, chunks.CHUNK_FROM - 1, chunks.CHUNK_FROM, 300_000])
def test_entries_below_and_above_the_threshold_read_back_byte_for_byte(
    tmp_path: Path, size: int
) -> None:
    # Every kind of character, a lone surrogate, and a cut that may fall inside a character.
    unit = 'turn: ünïcödé ✓ 🌦 \udcff {"a": [1, 2]}\n'
    text = unit * (size // len(unit.encode("utf-8", "surrogatepass")) + 1)
    while len(text.encode("utf-8", "surrogatepass")) > size:
        text = text[:-1]
    text += "a" * (size - len(text.encode("utf-8", "surrogatepass")))  # (exactly ``size``)
    assert "\udcff" in text or size < 100
    path = tmp_path / "s.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", text, run="r"))
        store.append(session, Entry("frame", "after", run="r"))
    with Store(path) as store:
        assert [entry.data for entry in store.entries(session)] == [text, "after"]
    chunked = _rows(path)
    size_bytes = len(text.encode("utf-8", "surrogatepass"))
    assert bool(chunked) == (size_bytes >= chunks.CHUNK_FROM)


def test_split_joins_back_and_cuts_by_content() -> None:
    talk = Talk()
    history = _history(talk, 400)
    raw = _echo(history).encode()
    pieces = chunks.split(raw)
    assert b"".join(pieces) == raw
    assert all(chunks.MIN_LEAF <= len(p) <= chunks.MAX_LEAF for p in pieces[:-1])
    # A new message at the end and a different run id at the head: the history in between is
    # cut into the same pieces.
    again = chunks.split(_echo([*history, *_history(talk, 2)], run="run_2").encode())
    assert len(set(pieces) & set(again)) >= len(pieces) - 3


def test_a_shared_chunk_is_stored_once_and_counted(tmp_path: Path) -> None:
    text = _echo(_history(Talk(), 300))
    path = tmp_path / "s.db"
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", text, run="r"))
    once = _rows(path)
    with Store(path) as store:
        store.append(session, Entry("frame", text, run="r"))
        store.append(session, Entry("document", text, run="r"))
        assert [entry.data for entry in store.entries(session)] == [text] * 3
    rows = _rows(path)
    assert [key for key, _, _ in rows] == [key for key, _, _ in once]  # no new row
    assert _refs(path) == _expected_refs(path)
    lists = [refs for _, refs, data in rows if data.startswith(chunks.LIST)]
    assert lists and set(lists) == {3}  # each list: once in each of the three entries


def test_delete_frees_what_only_it_used_and_keeps_what_is_shared(tmp_path: Path) -> None:
    talk = Talk()
    history = _history(talk, 300)
    path, alone = tmp_path / "s.db", tmp_path / "alone.db"
    with Store(path) as store:
        first = store.create(host="h", workflow="w")
        store.append(first, Entry("frame", _echo(history), run="r"))
        second = store.create(host="h", workflow="w")
        longer = _echo([*history, *_history(talk, 40)], run="run_2")
        store.append(second, Entry("frame", longer, run="r"))
    with Store(alone) as store:
        only = store.create(host="h", workflow="w")
        store.append(only, Entry("frame", longer, run="r"))
    shared = {key for key, refs, _ in _rows(path) if refs > 1}
    assert shared  # the two sessions share the history's chunks
    with Store(path) as store:
        store.delete(first)
        assert [entry.data for entry in store.entries(second)] == [longer]
    # What is left is exactly what the second session alone needs, counted as it alone counts.
    assert {key: refs for key, refs, _ in _rows(path)} == _refs(alone)
    assert _refs(path) == _expected_refs(path)
    with Store(path) as store:
        store.delete(second)
    assert _rows(path) == []


def _leaf_keys(path: Path) -> list[bytes]:
    return [key for key, _, data in _rows(path) if not data.startswith(chunks.LIST)]


def _crafted(tmp_path: Path, change: str) -> list[Entry]:
    """A session of three entries whose middle one is chunked, its chunk table changed as
    ``change`` says; the entries read back."""
    path = tmp_path / "s.db"
    text = _echo(_history(Talk(), 200))
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        for data in ("before", text, "after"):
            store.append(session, Entry("frame", data, run="r"))
    leaf = _leaf_keys(path)[0]
    with sqlite3.connect(path) as db:
        if change == "bomb":  # a leaf that inflates to 64 MiB
            bomb = DEFLATED + zlib.compress(bytes(64 << 20), 9)
            db.execute("UPDATE chunks SET data = ? WHERE key = ?", (bomb, leaf))
        elif change == "missing":
            db.execute("DELETE FROM chunks WHERE key = ?", (leaf,))
        elif change == "wrong":
            db.execute("UPDATE chunks SET data = ? WHERE key = ?", (b"other text", leaf))
        else:  # one list named a million times: 64 MiB of real chunks and more
            (data,) = db.execute("SELECT data FROM entries WHERE seq = 1").fetchone()
            many = chunks.CHUNKED + bytes(data)[2:34] * 1_000_000
            db.execute("UPDATE entries SET data = ? WHERE seq = 1", (many,))
    with Store(path) as store:
        return list(store.entries(session))


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("bomb", "damaged"),
        ("missing", "missing"),
        ("wrong", "does not match its key"),
        ("repeated", "its chunks add up to more than"),
    ],
)
def test_a_crafted_chunk_table_is_said_and_the_rest_read(
    tmp_path: Path, change: str, why: str
) -> None:
    entries = _crafted(tmp_path, change)
    assert [e.kind for e in entries] == ["frame", "frame", "notice", "frame"]
    assert [entries[0].data, entries[1].data, entries[3].data] == ["before", "", "after"]
    assert "stored entry 2 (frame of run r) was not read" in entries[2].data
    assert why in entries[2].data, entries[2].data


def test_the_key_is_masked_in_chunked_entries_and_across_two(tmp_path: Path) -> None:
    filler = "x" * chunks.CHUNK_FROM
    half = len(KEY) // 2
    path = tmp_path / "s.db"
    with Store(path, secrets=[KEY]) as store:
        whole = store.create(host="h", workflow="w")
        store.append(whole, Entry("frame", json.dumps({"echo": f"{filler} {KEY}"}), run="r"))
        split = store.create(host="h", workflow="w")
        first = {"type": "output.chunk", "payload": {"chunk": filler + KEY[:half]}}
        store.append(split, Entry("frame", json.dumps(first), run="r"))
        second = {"type": "output.chunk", "payload": {"chunk": KEY[half:] + filler}}
        store.append(split, Entry("frame", json.dumps(second), run="r"))
        texts = [e.data for s in (whole, split) for e in store.entries(s)]
    assert all(KEY not in text for text in texts)
    assert "[api key]" in texts[0]
    held = [path.read_bytes()]
    for _, _, data in _rows(path):
        held.append(zlib.decompress(data[2:]) if data.startswith(DEFLATED) else data)
    assert KEY[:half].encode() not in b"".join(held)
    assert _refs(path) == _expected_refs(path)  # the rewritten row gave its chunks back


def test_export_sse_writes_chunked_frames_as_received(tmp_path: Path) -> None:
    with Store(default_path()) as store:
        session, frames = echo_session(store, 40)
    target = tmp_path / "out.sse"
    assert main(["export", session, "--format", "sse", "-o", str(target)]) == 0
    written = target.read_text(encoding="utf-8")
    long = [frame for frame in frames if len(frame.encode()) >= chunks.CHUNK_FROM]
    assert long
    for frame in frames:
        assert f"data: {frame}\n" in written


def test_a_session_echoing_its_history_grows_linearly(tmp_path: Path) -> None:
    sizes = {}
    for turns in (100, 300):
        path = tmp_path / f"{turns}.db"
        with Store(path) as store:
            session, frames = echo_session(store, turns)
            read = [e.data for e in store.entries(session) if e.kind == "frame"]
        assert read == frames
        sizes[turns] = stored_bytes(path)
    # Linear is 3 (2.95 here); each echo kept whole, compressed, was 7.9: the square.
    assert sizes[300] / sizes[100] < 3.5, sizes
