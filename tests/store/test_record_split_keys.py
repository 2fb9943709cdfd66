"""A recording (``--record``) masks a key a host cut across the chunks of several frames.

Measured before (issue 23): ``run --record FILE`` and ``attach --record FILE`` wrote each frame
as it came, the key masked in each alone, so the file's chunks joined gave the key whole; the
session store of the same run held none of it. The recorder now masks as the store does
(`openwop_tui.store.keys.SplitKeyRows`) and, since it never rewrites what it wrote, holds a
frame back while its chunk could start the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from key_split import KEY, joined_texts, key_piece

from openwop_tui.protocol.hostdata import MASK
from openwop_tui.store import record
from openwop_tui.store.record import Recorder, read_recording
from openwop_tui.store.records import Entry

TEXT = f"here it is: {KEY} and that is all"


def frame(piece: str, node: str = "n1") -> Entry:
    doc = {"type": "output.chunk", "runId": "r", "nodeId": node, "payload": {"chunk": piece}}
    return Entry("frame", json.dumps(doc), run="r")


@pytest.mark.parametrize("count", [2, 3])
def test_a_key_cut_across_frames_is_not_in_the_recording(tmp_path: Path, count: int) -> None:
    start = TEXT.index(KEY)
    for a in range(start - 1, start + len(KEY) + 1, 2):
        b = min(len(TEXT), a + 9)
        pieces = [TEXT[:a], TEXT[a:]] if count == 2 else [TEXT[:a], TEXT[a:b], TEXT[b:]]
        path = tmp_path / "r.sse"
        recorder = Recorder(path, secrets=[KEY])
        for piece in pieces:
            recorder.append(frame(piece))
        recorder.append(Entry("end", "", run="r", meta={"status": "completed"}))
        recorder.close()
        written = path.read_text(encoding="utf-8")
        assert key_piece(written) is None, (pieces, written)
        assert joined_texts(written.splitlines()) == TEXT.replace(KEY, MASK), pieces
        kinds = [entry.kind for entry in read_recording(written).entries]
        assert kinds == ["frame"] * count + ["end"]  # none lost, in order


def test_a_frame_waits_only_while_its_chunk_could_start_the_key(tmp_path: Path) -> None:
    path = tmp_path / "r.sse"
    recorder = Recorder(path, secrets=[KEY])
    recorder.append(frame("plain words "))
    assert "plain words" in path.read_text(encoding="utf-8")  # written at once
    recorder.append(frame(f"and {KEY[:6]}"))
    recorder.append(Entry("user", "hello"))
    assert "and " not in path.read_text(encoding="utf-8")
    assert "hello" not in path.read_text(encoding="utf-8")  # in order: it waits too
    recorder.append(frame(f"{KEY[6:]} done"))
    written = path.read_text(encoding="utf-8")
    assert "hello" in written and "done" in written
    assert joined_texts(written.splitlines()) == f"plain words and {MASK} done"
    recorder.close()


def test_a_stream_that_never_goes_on_holds_a_bounded_number_of_entries(tmp_path: Path) -> None:
    path = tmp_path / "r.sse"
    recorder = Recorder(path, secrets=[KEY])
    recorder.append(frame(KEY[:3], "quiet"))
    for number in range(record.MAX_HELD + 1):
        recorder.append(Entry("notice", f"note {number}", label="info"))
    assert f"note {record.MAX_HELD}" in path.read_text(encoding="utf-8")
    recorder.close()


def test_what_waits_is_written_at_close(tmp_path: Path) -> None:
    path = tmp_path / "r.sse"
    recorder = Recorder(path, secrets=[KEY])
    recorder.append(frame(f"last {KEY[:13]}"))
    recorder.append(frame(KEY[13:]))
    recorder.close()
    written = path.read_text(encoding="utf-8")
    assert joined_texts(written.splitlines()) == f"last {MASK}"
    assert key_piece(written) is None
