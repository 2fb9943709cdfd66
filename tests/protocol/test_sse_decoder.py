"""The incremental SSE decoder against the WHATWG event-stream rules and the captured streams."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import TESTS

from openwop_tui.protocol.frames import FrameResult, decode_frame, events_from_frame
from openwop_tui.protocol.sse import SSEDecoder, SSEFrame, parse_sse_text

CAPTURES = TESTS / "data" / "captures"


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


# -- linear feeding and the line cap --------------------------------------------------------------


def feed_in_pieces(decoder: SSEDecoder, text: str, size: int) -> list[SSEFrame]:
    frames: list[SSEFrame] = []
    for i in range(0, len(text), size):
        frames.extend(decoder.feed(text[i : i + size]))
    return frames + decoder.close()


def test_four_megabyte_line_fed_in_4k_pieces() -> None:
    # Regression: every feed re-joined and re-scanned the whole pending text (quadratic time).
    big = "x" * (4 * 1024 * 1024)
    text = f"id: 1\ndata: {big}\n\nid: 2\ndata: after\n\n"
    frames = feed_in_pieces(SSEDecoder(), text, 4096)
    assert [(f.id, len(f.data), f.problem) for f in frames] == [
        ("1", len(big), None),
        ("2", 5, None),
    ]
    assert frames[0].data == big


def test_crlf_split_between_feeds_is_one_line_end_not_two() -> None:
    decoder = SSEDecoder()
    assert decoder.feed("data: a\r") == []  # the line has ended; the frame has not
    assert decoder.feed("\ndata: b\r\n\r") == [SSEFrame(event="message", data="a\nb")]
    assert decoder.feed("\n") == []  # the LF of the CRLF that ended the frame
    assert decoder.feed("data: c\r\r") == [SSEFrame(event="message", data="c")]
    assert decoder.close() == []


def test_over_long_data_line_skips_its_frame_and_decoding_resumes() -> None:
    decoder = SSEDecoder(max_line_chars=100)
    text = "id: 1\nevent: a\ndata: " + "y" * 500 + "\ndata: more\n\nid: 2\ndata: ok\n\n"
    frames = feed_in_pieces(decoder, text, 7)
    assert len(frames) == 2
    skipped, ok = frames
    assert skipped.data == "" and skipped.id == "1" and skipped.event == "a"
    assert skipped.problem == (
        "frame id 1 (event \"a\"): its 'data' line of 506 chars is longer than the "
        "100-char limit; the frame was skipped"
    )
    assert ok == SSEFrame(event="message", data="ok", id="2")
    assert decode_frame(skipped) == FrameResult(problems=[skipped.problem])


@pytest.mark.parametrize("size", [1, 3, 64, 10_000])
def test_line_cap_is_the_same_however_the_text_is_split(size: int) -> None:
    text = "data: " + "z" * 94 + "\n\ndata: " + "z" * 95 + "\r\n\r\ndata: end\n\n"
    frames = feed_in_pieces(SSEDecoder(max_line_chars=100), text, size)
    assert [(len(f.data), f.problem is not None) for f in frames] == [
        (94, False),
        (0, True),
        (3, False),
    ]


def test_over_long_unterminated_last_line_is_reported_at_close() -> None:
    decoder = SSEDecoder(max_line_chars=10)
    assert decoder.feed("data: " + "q" * 50) == []
    frames = decoder.close()
    assert len(frames) == 1 and frames[0].problem is not None
    assert "'data' line of 56 chars" in frames[0].problem


def test_over_long_comment_is_ignored_without_a_problem() -> None:
    frames = parse_sse_text(":" + "k" * 100 + "\ndata: x\n\n")  # default cap: kept and ignored
    decoder = SSEDecoder(max_line_chars=10)
    assert feed_in_pieces(decoder, ":" + "k" * 100 + "\ndata: x\n\n", 4) == frames
    assert frames == [SSEFrame(event="message", data="x")]


def test_huge_retry_value_is_ignored_not_raised() -> None:
    frames = parse_sse_text("retry: " + "9" * 5000 + "\ndata: x\n\nretry: ²\ndata: y\n\n")
    assert [(f.data, f.retry) for f in frames] == [("x", None), ("y", None)]


def test_stream_turns_a_skipped_frame_into_a_warning_notice() -> None:
    from openwop_tui.protocol.acceptance import StreamState
    from openwop_tui.protocol.stream_items import StreamNotice

    state = StreamState(run_id="r", modes=None, highest=None)
    decoder = SSEDecoder(max_line_chars=20)
    frames = decoder.feed("id: 3\ndata: " + "w" * 30 + "\n\n")
    items = [item for frame in frames for item in state.accept_frame(frame)]
    assert len(items) == 1 and isinstance(items[0], StreamNotice)
    assert items[0].level == "warning"
    assert items[0].message.startswith('Skipped a malformed frame: frame id 3 (event "message")')


def test_problem_sentences_show_a_hostile_id_and_event_cleaned() -> None:
    frames = parse_sse_text("id: 1\x1b[2J\nevent: e\u202ex\ndata: nope\n\n")
    problems = events_from_frame(frames[0].event, frames[0].data, frames[0].id).problems
    assert problems and problems[0].startswith('frame id 1␛[2J (event "e<U+202E>x")')
