"""The incremental SSE decoder against the WHATWG event-stream rules and the captured streams."""

from __future__ import annotations

from pathlib import Path

import pytest

from openwop_tui.protocol.sse import SSEDecoder, SSEFrame, parse_sse_text

CAPTURES = Path(__file__).parent / "data" / "captures"


def feed_all(chunks: list[str]) -> list[SSEFrame]:
    decoder = SSEDecoder()
    frames: list[SSEFrame] = []
    for chunk in chunks:
        frames.extend(decoder.feed(chunk))
    return frames + decoder.close()


def test_one_frame() -> None:
    frames = parse_sse_text('id: 7\nevent: node.completed\ndata: {"a": 1}\n\n')
    assert frames == [SSEFrame(event="node.completed", data='{"a": 1}', id="7", retry=None)]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_ending(newline: str) -> None:
    text = newline.join(["id: 1", "event: a", "data: x", "", "id: 2", "data: y", "", ""])
    frames = parse_sse_text(text)
    assert [(f.id, f.event, f.data) for f in frames] == [("1", "a", "x"), ("2", "message", "y")]


def test_mixed_line_endings_in_one_stream() -> None:
    frames = parse_sse_text("data: a\r\n\r\ndata: b\r\rdata: c\n\n")
    assert [f.data for f in frames] == ["a", "b", "c"]


def test_crlf_split_across_feeds_is_one_line_end() -> None:
    # A CR at the end of one chunk and the LF at the start of the next must not make an empty
    # line (which would dispatch a frame early).
    frames = feed_all(["data: a\r", "\ndata: b\r", "\n\r", "\n"])
    assert [f.data for f in frames] == ["a\nb"]


def test_split_anywhere_gives_the_same_frames() -> None:
    text = (CAPTURES / "example-chat-markdown-debug.sse").read_text(encoding="utf-8")
    whole = parse_sse_text(text)
    for size in (1, 2, 3, 7, 64, 1000):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert feed_all(chunks) == whole


def test_comments_are_ignored() -> None:
    frames = parse_sse_text(": keepalive\n:another\ndata: x\n: in the middle\n\n:keepalive\n\n")
    assert [f.data for f in frames] == ["x"]


def test_multi_line_data_joined_with_newline() -> None:
    frames = parse_sse_text('data: {"a":\ndata:  1}\ndata\n\n')
    # Only one leading space is stripped; a bare `data` line is an empty data line.
    assert frames[0].data == '{"a":\n 1}\n'


def test_field_without_space_and_unknown_fields() -> None:
    frames = parse_sse_text("data:x\nfoo: bar\nevent:e\n\n")
    assert frames == [SSEFrame(event="e", data="x")]


def test_retry_digits_only() -> None:
    frames = parse_sse_text("retry: 3000\n\nretry: 3s\ndata: x\n\n")
    assert frames[0].retry == 3000
    assert frames[0].data == ""
    assert frames[1].retry is None


def test_decoder_remembers_latest_retry_and_last_event_id() -> None:
    decoder = SSEDecoder()
    decoder.feed("retry: 1500\n\nid: 4\ndata: x\n\ndata: no id\n\n")
    assert decoder.retry == 1500
    assert decoder.last_event_id == "4"


def test_id_with_nul_is_ignored() -> None:
    frames = parse_sse_text("id: 3\ndata: a\n\nid: 4\x005\ndata: b\n\n")
    assert frames[0].id == "3"
    assert frames[1].id is None


def test_frame_id_is_the_frames_own() -> None:
    # A batch frame without `id:` (the SQLite host) must not inherit the previous frame's id.
    frames = parse_sse_text("id: 9\ndata: a\n\nevent: batch\ndata: []\n\n")
    assert frames[1].id is None


def test_event_line_without_data_still_dispatches_empty_frame() -> None:
    frames = parse_sse_text("event: ping\n\n")
    assert frames == [SSEFrame(event="ping", data="")]


def test_blank_lines_alone_dispatch_nothing() -> None:
    assert parse_sse_text("\n\n\r\n\n") == []


def test_final_frame_without_blank_line_is_flushed_by_close() -> None:
    decoder = SSEDecoder()
    assert decoder.feed("id: 1\ndata: last") == []
    assert decoder.close() == [SSEFrame(event="message", data="last", id="1")]


def test_final_frame_ending_in_lone_cr_is_flushed() -> None:
    decoder = SSEDecoder()
    assert decoder.feed("data: last\r") == []
    assert decoder.close() == [SSEFrame(event="message", data="last")]


def test_leading_bom_is_dropped() -> None:
    assert parse_sse_text("\ufeffdata: x\n\n")[0].data == "x"


def test_empty_capture_has_no_frames() -> None:
    text = (CAPTURES / "python-host-noop-messages.sse").read_text(encoding="utf-8")
    assert parse_sse_text(text) == []


@pytest.mark.parametrize("path", sorted(CAPTURES.glob("*.sse")), ids=lambda p: p.name)
def test_every_capture_decodes_into_frames_with_ids(path: Path) -> None:
    frames = [f for f in parse_sse_text(path.read_text(encoding="utf-8")) if f.data]
    for frame in frames:
        assert frame.id is not None and frame.id.isdigit()
        assert frame.data.startswith("{")
