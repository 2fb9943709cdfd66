"""A stored entry is inflated within a bound (issue 23: a 1 MB entry that inflates to 1 GiB took
``export`` to 5.3 GB of memory and a MemoryError, a reopen in the app to 3.1 GB).

The bomb (`bomb_support`) is written into a real store file as the store writes a compressed
entry, between two chunks of a reply. The installed ``openwop-tui export`` (jsonl and md) and
the app reopening the session, each in a fresh process whose peak memory is measured, stay
under 200 MiB, say which entry was refused and why, and keep the rest of the session. Without
the bound each of them inflates the whole GiB (and fails against the address-space limit the
measurement sets, rather than take the machine's memory).

The write side keeps the same cap, so whatever the store writes it reads back: an entry over
it is kept as a notice saying so. A damaged (cut short) compressed entry is said too.
"""

from __future__ import annotations

import json
import sys
import textwrap
import tracemalloc
import zlib
from pathlib import Path

import pytest
from bomb_support import (
    AFTER,
    BEFORE,
    PEAK_BYTES,
    bomb,
    bomb_session,
    installed,
    measured,
)
from patience import PATIENCE

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import AssistantTurn, Notice
from openwop_tui.store import entry_bytes
from openwop_tui.store.database import default_path
from openwop_tui.store.entry_bytes import DEFLATED, Unread, encode, inflate
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

REFUSED = "inflates beyond the 67.1 MB cap of a stored entry"


@pytest.fixture(scope="module")
def bomb_data() -> bytes:
    return bomb()


def test_the_bomb_is_refused_holding_a_piece_of_it_not_the_cap(bomb_data: bytes) -> None:
    tracemalloc.start()
    try:
        got = inflate(bomb_data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(got, Unread)
    assert "1.1 MB of compressed data" in got.why and REFUSED in got.why
    assert peak < 8 << 20, peak  # a piece of 1 MiB at a time, not the 64 MiB cap


def test_an_entry_up_to_the_cap_is_read_and_one_byte_more_is_not() -> None:
    text = "y" * 50_000
    data = encode(text)
    assert data.startswith(DEFLATED)
    assert inflate(data, cap=50_000) == text.encode()
    over = inflate(data, cap=49_999)
    assert isinstance(over, Unread) and "50.0 KB cap" in over.why


def test_a_cut_short_or_foreign_compressed_entry_is_damaged_not_an_error() -> None:
    data = encode("z" * 50_000)
    for damaged in (data[:-10], DEFLATED + b"not zlib at all", DEFLATED):
        got = inflate(damaged)
        assert isinstance(got, Unread) and "damaged" in got.why, damaged[:20]


def test_the_store_reads_the_rest_of_the_session_and_says_which_entry(
    tmp_path: Path, bomb_data: bytes
) -> None:
    path = tmp_path / "s.db"
    session, place = bomb_session(path, bomb_data)
    with Store(path) as store:
        entries = list(store.entries(session))
    (notice,) = [e for e in entries if e.kind == "notice"]
    assert f"stored entry {place} (frame of run run_bomb) was not read" in notice.data
    assert REFUSED in notice.data and notice.meta == {"unread": place - 1}
    chat = Conversation.from_log(entries)
    (reply,) = [i for i in chat.transcript.items if isinstance(i, AssistantTurn)]
    assert reply.full_text == BEFORE + AFTER
    assert any(isinstance(i, Notice) and REFUSED in i.text for i in chat.transcript.items)


def test_an_entry_over_the_cap_is_not_written_and_a_notice_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entry_bytes, "ENTRY_BYTES", 40_000)
    with Store(tmp_path / "s.db") as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("frame", "é" * 30_000, run="r1"))  # 60,000 bytes
        store.append(session, Entry("frame", "a" * 30_000, run="r1"))
        first, second = store.entries(session)
    assert first.kind == "notice" and first.label == "warning"
    assert "(frame of run r1) was not kept" in first.data and "60.0 KB" in first.data
    assert second.data == "a" * 30_000


@pytest.mark.parametrize("fmt", ["jsonl", "md"])
def test_export_stays_small_says_the_entry_and_exports_the_rest(
    fmt: str, tmp_path: Path, bomb_data: bytes
) -> None:
    session, place = bomb_session(default_path(), bomb_data)
    out = tmp_path / f"out.{fmt}"
    command = [*installed(), "export", session, "--format", fmt, "-o", str(out)]
    done, peak = measured(command, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    assert peak < PEAK_BYTES, f"{peak / 2**20:.0f} MiB"
    said = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(said) == 1, done.stderr
    assert f"session {session}: stored entry {place} (frame of run run_bomb)" in said[0]
    assert REFUSED in said[0] and "Traceback" not in done.stderr
    text = out.read_text(encoding="utf-8")
    assert BEFORE in text and AFTER in text and REFUSED in text
    if fmt == "jsonl":
        lines = [json.loads(line) for line in text.splitlines()]
        (notice,) = [line for line in lines if line["kind"] == "notice"]
        assert notice["level"] == "warning" and REFUSED in notice["text"]


#: The app reopening a stored session, headless (Pilot), in its own process: it prints the
#: transcript's items once the session is on screen.
_REOPEN = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from openwop_tui.config import Config
    from openwop_tui.core.fold import AssistantTurn, Notice
    from openwop_tui.renderers.base import AudioSupport
    from openwop_tui.ui.app import ChatApp
    from openwop_tui.ui.options import AppOptions

    async def main() -> None:
        config = Config(host="http://127.0.0.1:9", audio=False, images="none")
        app = ChatApp(
            config, AppOptions(session_id=sys.argv[1]), audio_support=AudioSupport(False, "test")
        )
        deadline = time.monotonic() + float(sys.argv[2])
        async with app.run_test(size=(120, 50)) as pilot:
            def shown() -> bool:
                items = app.transcript.items
                return any(isinstance(i, AssistantTurn) for i in items) and any(
                    isinstance(i, Notice) and "was not read" in i.text for i in items
                )
            while not shown() and time.monotonic() < deadline:
                await pilot.pause(0.05)
            items = [
                {"kind": type(i).__name__, "text": getattr(i, "full_text", None) or i.text}
                for i in app.transcript.items
            ]
            drawn = " ".join(app.view.text_of(i.id) for i in app.transcript.items)
        print(json.dumps({"items": items, "drawn": " ".join(drawn.split())}))

    asyncio.run(main())
    """
)


def test_reopening_in_the_app_stays_small_and_shows_the_notice_in_place(
    bomb_data: bytes,
) -> None:
    session, place = bomb_session(default_path(), bomb_data)
    command = [sys.executable, "-c", _REOPEN, session, str(PATIENCE)]
    done, peak = measured(command, timeout=PATIENCE * 2)
    assert done.returncode == 0, done.stderr[-2000:]
    assert peak < PEAK_BYTES, f"{peak / 2**20:.0f} MiB"
    shown = json.loads(done.stdout)
    kinds = [item["kind"] for item in shown["items"]]
    assert kinds[0] == "UserTurn" and "AssistantTurn" in kinds, kinds
    (notice,) = [i["text"] for i in shown["items"] if "was not read" in (i["text"] or "")]
    assert f"stored entry {place} (frame of run run_bomb)" in notice and REFUSED in notice
    (reply,) = [i["text"] for i in shown["items"] if i["kind"] == "AssistantTurn"]
    assert reply == BEFORE + AFTER  # the rest of the session opened
    assert "was not read" in shown["drawn"] and "cap of a stored entry" in shown["drawn"]


def test_a_compressed_entry_the_store_wrote_reads_back(tmp_path: Path) -> None:
    """The bound does not refuse what the store itself writes: a long entry that compresses
    well (past the direct-inflate size, so through the counting pass) reads back exactly."""
    text = "".join(f"line {n} of a long echoed history\n" for n in range(200_000))
    packed = encode(text)
    assert len(packed) * 1032 > entry_bytes.ENTRY_BYTES  # (through the counting pass)
    assert inflate(packed) == text.encode()
    assert zlib.decompress(packed[2:]) == text.encode()
