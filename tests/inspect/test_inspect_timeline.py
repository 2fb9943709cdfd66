"""The timeline's rows and filter (`openwop_tui.inspect.timeline`), pure: every field of a row,
every kind of filter term, and rows made from a whole capture with its lint marks."""

from __future__ import annotations

from typing import Any

import pytest
from paths import TESTS

from openwop_tui.inspect.findings import Severity, finding
from openwop_tui.inspect.lint import Linter
from openwop_tui.inspect.log import observed_entries
from openwop_tui.inspect.timeline import Row, RowFilter, Timeline, summary, timeline_row
from openwop_tui.protocol.content_parts import media_part
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.store.record import read_recording

CAPTURES = TESTS / "data" / "captures"


def ev(seq: int, kind: str, payload: dict[str, Any], second: int, **extra: Any) -> RunEvent:
    return normalize(
        {
            "eventId": f"e{seq}",
            "runId": "r",
            "type": kind,
            "payload": payload,
            "sequence": seq,
            "timestamp": f"2026-12-01T10:00:{second:02d}Z",
            **extra,
        }
    )


def test_a_row_carries_what_the_timeline_shows() -> None:
    start = ev(0, "run.started", {"workflowId": "w"}, 0)
    done = ev(4, "node.completed", {"nodeId": "n", "durationMs": 12}, 3, nodeId="n")
    marks = [
        finding("OW110", "gap", 4, "$.sequence"),
        finding("OW214", "both", 4, "$.payload"),
        finding("OW110", "gap again", 4, "$.sequence"),
    ]
    timeline = Timeline()
    timeline.add(start)
    row = timeline.add(done, marks)
    assert (row.sequence, row.elapsed, row.type, row.node) == (4, 3.0, "node.completed", "n")
    assert row.marks == ("OW214", "OW110")  # worst first, each code once
    assert row.worst is Severity.ERROR
    assert row.key == ("r", 4)  # what the UI maps to the transcript item the event made
    assert "12 ms" in row.summary


def test_summaries_are_one_line() -> None:
    chunk = ev(1, "output.chunk", {"nodeId": "n", "chunk": "line one\nline two"}, 1)
    assert "\n" not in summary(chunk) and "line two" in summary(chunk)
    failed = ev(2, "node.failed", {"nodeId": "n", "error": {"code": "boom", "message": "x"}}, 1)
    assert summary(failed) == "boom: x"
    usage = ev(3, "provider.usage", {"model": "m", "inputTokens": 3, "outputTokens": 4}, 1)
    assert summary(usage) == "m · in 3 out 4"
    odd = ev(5, "acme.thing", {"a": 1, "b": 2}, 1)
    assert summary(odd) == "{a, b}"
    long = ev(6, "log.appended", {"level": "info", "message": "x" * 500}, 1)
    assert len(summary(long)) <= 160


def test_a_run_started_names_what_the_last_message_attached() -> None:
    picture = media_part("image", "image/png", "picture.png", data=bytes(120_000))
    notes = media_part("file", "text/markdown", "notes.md", data=bytes(2_000))
    voice = media_part("audio", "audio/ogg", "voice.ogg", data=bytes(9), duration=3.0)
    paper = media_part("file", "application/pdf", "paper.pdf", url="https://h.example/m/1")
    text = {"type": "text", "text": "look"}
    history = [
        {"role": "user", "content": [text, paper]},  # an earlier message: not this run's
        {"role": "assistant", "content": "sure"},
        {"role": "user", "content": [text, picture, notes, voice]},
    ]
    start = ev(0, "run.started", {"workflowId": "demo.chat", "inputs": {"messages": history}}, 0)
    assert summary(start) == (
        "demo.chat · 3 attached: picture.png (image/png, 120.0 KB), "
        "notes.md (text/markdown, 2.0 KB), voice.ogg (audio/ogg, 3.0 s)"
    )
    history[-1]["content"] = [paper]
    start = ev(0, "run.started", {"workflowId": "w", "inputs": {"messages": history}}, 0)
    assert summary(start) == "w · 1 attached: paper.pdf (application/pdf, uploaded)"
    history[-1]["content"] = [text]  # a list of parts, but nothing attached
    start = ev(0, "run.started", {"workflowId": "w", "inputs": {"messages": history}}, 0)
    assert summary(start) == "w"


def test_an_attachment_summary_stays_one_bounded_line() -> None:
    long_name = "a\nname\twith\rbreaks " + "x" * 300
    many = [media_part("file", "text/plain", long_name, data=b"hi")] * 50
    odd = [{"type": "image", "alt": 42, "mimeType": ["x"], "durationSeconds": "long"}, None, 7]
    messages = [{"role": "user", "content": [*odd, *many]}]
    start = ev(0, "run.started", {"workflowId": "w", "inputs": {"messages": messages}}, 0)
    said = timeline_row(start).summary
    # Cleaned as the event is (a carriage return shown as its mark), then made one line.
    assert said.startswith("w · 51 attached: image, a name with␍breaks xxx")
    assert len(said) <= 160 and "\n" not in said and "\t" not in said and "\r" not in said
    assert said.count("xxxx…") >= 1  # each name cut before the line is


def test_without_a_timestamp_there_is_no_elapsed_time() -> None:
    bare = normalize({"nodeId": "n", "chunk": "hi"})
    assert timeline_row(bare, origin=0.0).elapsed is None


ROWS = [
    Row(1, 0.0, "node.started", "respond", "core.ai"),
    Row(2, 0.1, "node.completed", "respond", "media.image (image)", ("OW214",), Severity.ERROR),
    Row(3, 0.2, "output.chunk", "respond", "'hello world'", ("OW110",), Severity.INFO),
    Row(4, 0.3, "node.completed", "other", "done", ("OW303",), Severity.WARNING),
    Row(5, 0.4, "run.completed", None, ""),
]


@pytest.mark.parametrize(
    ("line", "sequences"),
    [
        ("", [1, 2, 3, 4, 5]),
        ("node.completed", [2, 4]),
        ("node.*", [1, 2, 4]),
        ("node.started run.*", [1, 5]),
        ("node:respond", [1, 2, 3]),
        ("node:oth*", [4]),
        ("hello", [3]),
        ("HELLO world", [3]),
        ("has:findings", [2, 3, 4]),
        ("has:warnings", [2, 4]),
        ("has:errors", [2]),
        ("code:ow303", [4]),
        ("node.completed node:respond", [2]),
        ("type:OUTPUT.CHUNK", [3]),
    ],
)
def test_filter(line: str, sequences: list[int]) -> None:
    chosen = RowFilter.parse(line)
    assert [row.sequence for row in chosen.apply(ROWS)] == sequences
    assert chosen.text == line and chosen.empty == (line == "")


def test_rows_of_a_capture_with_their_lint_marks() -> None:
    entries = read_recording((CAPTURES / "example-rich-envelopes.sse").read_text()).entries
    linter, timeline, rows = Linter(), Timeline(), []
    for observed in observed_entries(entries):
        if observed.event is not None:
            found = linter.feed(observed.event)
            rows.append(timeline.add(observed.event, found))
    marked = RowFilter.parse("has:warnings").apply(rows)
    assert marked and all(row.worst in (Severity.ERROR, Severity.WARNING) for row in marked)
    hologram = [row for row in rows if "OW300" in row.marks]
    assert len(hologram) == 1 and hologram[0].type == "node.completed"
    assert rows[0].elapsed == 0.0 and all(r.elapsed is not None for r in rows)


def test_the_inspector_feeds_all_three_folds_at_once() -> None:
    from openwop_tui.inspect.inspector import Inspector

    text = (CAPTURES / "example-rich-envelopes.sse").read_text()
    inspector = Inspector()
    for observed in observed_entries(read_recording(text).entries):
        inspector.observe(observed)
    inspector.finish()
    rows = inspector.rows
    assert len(rows) == len([r for r in rows if r.sequence is not None])
    (hologram,) = inspector.matching(RowFilter.parse("code:OW300"))
    assert [f.code for f in inspector.findings_for(hologram)] == ["OW300"]
    assert inspector.matching(RowFilter()) == rows
    (run,) = inspector.stats()
    assert run.events == len(rows) and run.status == "completed"
