"""A key cut across chunk lines is masked in lines written once (NDJSON, the JSONL export).

Measured before (issue 23): ``render FILE --json`` with the key set printed each chunk as the
host cut it, so joining the ``chunk`` fields gave the key whole, three times; the screen, the
store and ``export --format jsonl`` of the same run held no piece of it. A line cannot be
rewritten once written, so `SplitKeyLines` holds a line back while its chunk could start the
key; these tests feed it the key cut at every point and check what comes out, that nothing is
lost or reordered, and that a line waits no longer than the stream's next piece, its end, or a
question of the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from key_split import KEY, PIECE, joined_texts, key_piece
from render_helpers import builtins

from openwop_tui.__main__ import main
from openwop_tui.core.updates import EventArrived
from openwop_tui.present.envelope import export_drawer
from openwop_tui.present.export import JsonlMask, export_session
from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.hostdata import MASK
from openwop_tui.store import keys
from openwop_tui.store.keys import SplitKeyLines
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.text.redact import Redactor

TEXT = f"here it is: {KEY} and that is all"
EXPECTED = TEXT.replace(KEY, MASK)


def chunk(piece: str, node: str = "n1", kind: str = "output.chunk") -> dict[str, Any]:
    field = "delta" if kind in ("node.message", "agent.reasoning.delta") else "chunk"
    payload = {"agentId": node} if kind == "agent.reasoning.delta" else {"nodeId": node}
    return {"type": kind, "runId": "r", "nodeId": node, "payload": {**payload, field: piece}}


def cuts(text: str, count: int) -> list[list[str]]:
    """``text`` cut into ``count`` pieces at every point (pair of points) around the key."""
    begin = text.index(KEY) - 1
    end = begin + len(KEY) + 2
    if count == 2:
        return [[text[:a], text[a:]] for a in range(begin, end + 1)]
    return [
        [text[:a], text[a:b], text[b:]]
        for a in range(begin, end + 1, 3)
        for b in range(a, end + 1, 2)
    ]


def lines_of(docs: Iterable[dict[str, Any]], *, finish: bool = True) -> list[dict[str, Any]]:
    """The JSONL lines of run events ``docs`` as `JsonlMask` lets them go."""
    mask = JsonlMask([KEY])
    out: list[dict[str, Any]] = []
    for doc in docs:
        out += mask.event(EventArrived(normalize(doc, secrets=(KEY,))))
    return out + (mask.finish() if finish else [])


def texts(lines: list[dict[str, Any]]) -> str:
    return joined_texts(json.dumps(line) for line in lines)


@pytest.mark.parametrize("count", [2, 3])
def test_a_key_cut_anywhere_is_in_no_line_nor_in_the_lines_joined(count: int) -> None:
    for pieces in cuts(TEXT, count):
        docs = [chunk(p) for p in pieces]
        lines = lines_of(docs)
        assert [line["payload"]["nodeId"] for line in lines] == ["n1"] * count  # none lost
        assert texts(lines) == EXPECTED, pieces
        for line in lines:
            assert key_piece(json.dumps(line)) is None, (pieces, line)


@pytest.mark.parametrize("kind", ["output.chunk", "node.message", "agent.reasoning.delta"])
def test_a_key_sent_a_character_at_a_time_is_masked(kind: str) -> None:
    docs = [chunk(char, kind=kind) for char in f"key {KEY}."]
    lines = lines_of(docs)
    assert len(lines) == len(docs)
    assert texts(lines) == f"key {MASK}."


def test_interleaved_streams_are_joined_each_on_its_own() -> None:
    # Two nodes' replies and an agent's reasoning, each cutting the key elsewhere, their
    # pieces taking turns: each stream is its own text.
    order = [
        chunk(f"a: {KEY[:5]}", "a"),
        chunk(f"b: {KEY[:20]}", "b"),
        chunk(f"x: {KEY[:PIECE]}", "x", "agent.reasoning.delta"),
        chunk(KEY[5:], "a"),
        chunk(f"{KEY[PIECE:]}.", "x", "agent.reasoning.delta"),
        chunk(f"{KEY[20:]}!", "b"),
    ]
    lines = lines_of(order)
    assert [line["nodeId"] for line in lines] == ["a", "b", "x", "a", "x", "b"]  # in order
    by_stream: dict[str, str] = {}
    for line in lines:
        by_stream[line["nodeId"]] = by_stream.get(line["nodeId"], "") + texts([line])
    assert by_stream == {"a": f"a: {MASK}", "b": f"b: {MASK}!", "x": f"x: {MASK}."}
    assert key_piece(json.dumps(lines)) is None


def test_a_key_cut_across_the_last_two_lines_of_a_stream_is_masked() -> None:
    # No terminal event: the output ends (`finish`) with the key's tail in the last line.
    lines = lines_of([chunk(f"last: {KEY[:13]}"), chunk(KEY[13:])])
    assert texts(lines) == f"last: {MASK}"
    # A long head left open at the end: masked, though nothing completes it.
    lines = lines_of([chunk("cut: "), chunk(KEY[:20])])
    assert texts(lines) == f"cut: {MASK}"


def test_lines_wait_only_while_a_piece_could_start_the_key() -> None:
    mask = SplitKeyLines([KEY])
    plain = {"kind": "event", "type": "output.chunk", "runId": "r", "nodeId": "a"}
    # Ordinary text goes at once, and so does a notice between pieces.
    assert len(mask.add({**plain, "payload": {"chunk": "hello "}})) == 1
    # Text that could start the key waits, and so does every line after it.
    assert mask.add({**plain, "payload": {"chunk": f"take {KEY[:3]}"}}) == []
    assert mask.add({"kind": "notice", "level": "info", "text": "reconnected"}) == []
    # The next piece decides: not the key, so all three go, in order, as they were.
    ready = mask.add({**plain, "payload": {"chunk": "xyz"}})
    assert [r.get("payload", {}).get("chunk", r.get("text")) for r in ready] == [
        f"take {KEY[:3]}",
        "reconnected",
        "xyz",
    ]
    assert mask.finish() == []


@pytest.mark.parametrize(
    "then",
    [
        {"type": "interrupt.requested", "nodeId": "gate", "payload": {"kind": "approval"}},
        {"type": "node.completed", "nodeId": "a", "payload": {"outputs": {}}},
        {"type": "run.completed", "payload": {}},
        {"type": "tool.called", "nodeId": "a", "payload": {"tool": "x"}},
    ],
)
def test_a_question_or_the_streams_end_lets_the_held_lines_go(then: dict[str, Any]) -> None:
    # `run --json | jq` must see a question when it is asked: a reply that ended on what
    # could start the key holds nothing back past it.
    mask = JsonlMask([KEY])
    assert mask.event(EventArrived(normalize(chunk(f"ends {KEY[:2]}", "a")))) == []
    ready = mask.event(EventArrived(normalize({**then, "runId": "r"}, secrets=(KEY,))))
    assert [line["type"] for line in ready] == ["output.chunk", then["type"]]
    assert ready[0]["payload"]["chunk"] == f"ends {KEY[:2]}"  # short: not a secret on its own


def test_a_stream_that_never_goes_on_holds_a_bounded_number_of_lines() -> None:
    mask = SplitKeyLines([KEY])
    plain = {"kind": "event", "type": "output.chunk", "runId": "r"}
    assert mask.add({**plain, "nodeId": "quiet", "payload": {"chunk": KEY[:2]}}) == []
    written = 0
    for number in range(keys.MAX_HELD + 5):
        written += len(mask.add({"kind": "notice", "level": "info", "text": str(number)}))
    assert written == keys.MAX_HELD + 6  # the waiting line and every notice
    assert mask.finish() == []


def test_without_a_key_every_line_goes_at_once() -> None:
    mask = SplitKeyLines([None])
    line = {"kind": "event", "type": "output.chunk", "payload": {"chunk": "s"}}
    assert mask.add(line) == [line]


def test_the_export_and_the_ndjson_of_one_stream_are_the_same_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One masking for both: the JSONL export of a stored session and `render --json` of the
    # same frames give the same event lines, the key masked alike, wherever it is cut.
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    for pieces in cuts(TEXT, 2)[::5] + cuts(TEXT, 3)[::37]:
        docs = [*(chunk(p) for p in pieces), {"type": "run.completed", "runId": "r"}]
        capture = tmp_path / "capture.sse"
        capture.write_text("".join(f"data: {json.dumps(d)}\n\n" for d in docs), "utf-8")
        assert main(["--api-key", KEY, "render", str(capture), "--json"]) == 0
        printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        with Store(tmp_path / "s.db") as raw:  # kept by a store that did not know the key
            session = raw.create(host="http://h", workflow="w")
            for doc in docs:
                raw.append(session, Entry("frame", json.dumps(doc), run="r"))
        with Store(tmp_path / "s.db", secrets=[KEY]) as store:
            target = tmp_path / "out.jsonl"
            drawer = export_drawer(builtins())
            export_session(store, session, "jsonl", target, redactor=Redactor(), drawer=drawer)
        exported = [json.loads(line) for line in target.read_text("utf-8").splitlines()]

        def events(lines: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
            return [(line["type"], line["payload"]) for line in lines if line["kind"] == "event"]

        assert events(printed) == events(exported), pieces
        assert texts(printed) == EXPECTED


def test_a_long_piece_of_the_key_without_its_head_is_masked_too() -> None:
    # A host that cut the key's head off: what is left is masked as in any string the host
    # sends (`mask`), though no earlier piece starts the key.
    lines = lines_of([chunk("hello "), chunk(f"{KEY[-20:]} rest"), chunk(f" and {KEY[:20]}")])
    assert texts(lines) == f"hello {MASK} rest and {MASK}"


def test_a_runs_end_lets_its_bare_chunks_go() -> None:
    # Bare `messages` chunks carry no run id; the run's end line ends their stream too.
    mask = SplitKeyLines([KEY])
    bare = {"kind": "event", "type": "output.chunk", "runId": None, "nodeId": None}
    assert mask.add({**bare, "payload": {"chunk": f"so {KEY[:2]}"}}) == []
    ready = mask.add({"kind": "end", "runId": "r1", "status": "completed"})
    assert [line["kind"] for line in ready] == ["event", "end"]
