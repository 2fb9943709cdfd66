"""The row model of the lazy JSON view (`openwop_tui.ui.widgets.json_rows`): what opening a
document costs (nodes counted, never timed), folding and unfolding, "more" rows, paths, the
copied JSON, and that host text is cleaned and cut before it is drawn."""

from __future__ import annotations

import json
from typing import Any

import pytest
from json_support import TEN_MB, big_document
from rich.cells import cell_len

from openwop_tui.protocol.hostdata import host_value
from openwop_tui.ui.widgets.json_pieces import plain
from openwop_tui.ui.widgets.json_rows import (
    CLOSE,
    HEAD,
    MORE,
    OPEN_BUDGET,
    PAGE,
    JsonRows,
    Node,
)

CONTROLS = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\u202e\x7f"


def texts(rows: JsonRows, width: int = 200) -> list[str]:
    return [plain(rows, i, width) for i in range(len(rows))]


def index_of(rows: JsonRows, text: str) -> int:
    """The first row whose text contains ``text``."""
    return next(i for i, line in enumerate(texts(rows)) if text in line)


def node_at(rows: JsonRows, path: str) -> Node:
    return next(row.node for row in rows.rows if rows.path(row.node) == path)


def test_opening_a_10_mb_document_makes_a_bounded_number_of_nodes() -> None:
    document = big_document()
    assert len(json.dumps(document)) >= TEN_MB
    rows = JsonRows(document)
    assert rows.built <= OPEN_BUDGET
    assert len(rows) <= 2 * OPEN_BUDGET + 2  # each node a head, a container its close (+ more)
    shown = texts(rows)
    assert shown[0] == "▾ {"
    assert any('"rows": [' in line for line in shown)
    assert any("more items (Enter shows 200 more)" in line for line in shown)


def test_the_budget_holds_for_any_shape_of_document() -> None:
    wide = {f"k{n}": {"a": [n, n]} for n in range(100_000)}
    deep: Any = "bottom"
    for _ in range(10_000):
        deep = [deep, {"x": 1}]
    for document in (wide, deep, list(range(1_000_000)), "a" * TEN_MB, {}):
        assert JsonRows(document).built <= OPEN_BUDGET


def test_unfolding_makes_one_page_and_a_more_row_makes_the_next() -> None:
    rows = JsonRows({"big": list(range(10_000))}, open_depth=1)
    big = index_of(rows, '"big"')
    assert plain(rows, big) == '  ▸ "big": […] 10,000 items'
    before = rows.built
    rows.unfold(big)
    assert rows.built - before == PAGE
    more = big + PAGE + 1
    assert rows.rows[more].part == MORE
    assert plain(rows, more).endswith("9,800 more items (Enter shows 200 more)")
    assert rows.unfold(more) == more  # the cursor lands on the first new item
    assert rows.built - before == 2 * PAGE
    assert plain(rows, more) == f"      {PAGE}: {PAGE}"
    assert rows.rows[big + 2 * PAGE + 1].part == MORE


def test_fold_and_unfold_give_back_the_same_rows() -> None:
    rows = JsonRows({"a": {"b": [1, 2, {"c": "d"}]}, "e": True})
    shown = texts(rows)
    a = index_of(rows, '"a"')
    assert rows.fold(a) == a
    assert plain(rows, a) == '  ▸ "a": {…} 1 key'
    assert len(rows) == len(shown) - 8
    assert rows.unfold(a) == a
    assert texts(rows) == shown


def test_fold_from_a_closing_row_and_left_from_a_leaf_go_to_the_head() -> None:
    rows = JsonRows({"a": {"b": 1, "c": 2}})
    a = index_of(rows, '"a"')
    close = next(i for i, row in enumerate(rows.rows) if row.part == CLOSE and row.node.key == "a")
    assert rows.fold(close) == a
    assert not rows.rows[a].node.open
    rows.unfold(a)
    c = index_of(rows, '"c"')
    assert rows.fold(c) == a  # a scalar: to its parent, nothing folded
    assert rows.rows[a].node.open
    assert rows.fold(0) == 0 and len(rows) == 1  # the root folds too
    assert rows.fold(0) == 0  # and a folded root stays where it is


def test_unfold_all_opens_everything_within_its_budget() -> None:
    document = {"a": {"b": {"c": {"d": {"e": {"f": [1, {"g": 2}]}}}}}}
    rows = JsonRows(document, open_depth=1)
    head, complete = rows.unfold_all(0)
    assert (head, complete) == (0, True)
    assert all(row.node.open for row in rows.rows if row.part == HEAD and row.node.size)
    assert '"g": 2' in "\n".join(texts(rows))
    assert rows.fold_all(index_of(rows, '"b"')) == index_of(rows, '"b"')
    rows.unfold(index_of(rows, '"b"'))
    assert not rows.rows[index_of(rows, '"c"')].node.open  # fold all folded the inside too


def test_unfold_all_on_a_cyclic_value_stops_at_the_budget() -> None:
    cyclic: dict[str, Any] = {"name": "loop"}
    cyclic["self"] = cyclic
    cyclic["list"] = [cyclic, cyclic]
    rows = JsonRows(cyclic)
    before = rows.built
    head, complete = rows.unfold_all(0, budget=1_000)
    assert head == 0 and not complete
    assert rows.built - before <= 1_000
    again = rows.built
    rows.unfold_all(0, budget=1_000)  # once more: further, still bounded
    assert 0 < rows.built - again <= 1_000
    copied = rows.copy_json(rows.root)  # cannot be dumped as it is: the bounded copy is
    assert '"name": "loop"' in copied


def test_deep_nesting_indents_up_to_a_point_then_says_the_depth() -> None:
    deep: Any = "bottom"
    for _ in range(100_000):
        deep = {"d": deep}
    rows = JsonRows(deep)
    rows.unfold_all(0, budget=2_000)  # no recursion anywhere: an explicit stack
    line = plain(rows, 1_500, width=120)
    assert "⋯1500 " in line
    assert line.startswith("  " * 24 + "⋯")
    assert rows.copy_json(rows.root).startswith('{\n  "d"')  # past the stack: the bounded copy


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ({"payload": {"outputs": {"envelope": {"meta": 1}}}}, "$.payload.outputs.envelope.meta"),
        ({"items": [0, 1, 2, {"x": 1}]}, "$.items[3].x"),
        ({"odd key": 1}, '$["odd key"]'),
        ({"a.b": 1}, '$["a.b"]'),
        ({"1st": 1}, '$["1st"]'),
        ({'say "hi"': 1}, '$["say \\"hi\\""]'),
        ({"": 1}, '$[""]'),
        ({"caf\u00e9": 1}, '$["caf\u00e9"]'),
        ({CONTROLS: 1}, '$["\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u009b31m\\u202e\\u007f"]'),
        ({7: 1}, '$["7"]'),
    ],
)
def test_paths_name_a_node_in_jsonpath(document: dict[Any, Any], path: str) -> None:
    rows = JsonRows(document)
    rows.unfold_all(0)
    found = [rows.path(row.node) for row in rows.rows if row.part == HEAD]
    assert found[0] == "$"
    assert path in found


def test_copied_json_is_whole_and_the_same_value_with_unsafe_characters_escaped() -> None:
    document = {
        "long": "x" * 100_000,
        CONTROLS: [CONTROLS, "\ud800 lone", "\u2028"],
        "n": [1, 2.5, None, True, False],
    }
    rows = JsonRows(document)
    copied = rows.copy_json(rows.root)
    assert json.loads(copied) == document
    for char in ("\x1b", "\x9b", "\u202e", "\x7f", "\ud800", "\u2028", "\x07"):
        assert char not in copied
    copied.encode("utf-8")  # a lone surrogate would not encode: the clipboard helper needs to
    long = node_at(rows, "$.long")
    assert json.loads(rows.copy_json(long)) == "x" * 100_000


def test_keys_and_strings_are_cleaned_and_cut_to_the_row() -> None:
    # As the trees are given documents: through the boundary (`host_value` cleans keys too).
    document = {CONTROLS: 1, "v": CONTROLS, "blob": "QUJD" * 250_000, "k" * 500: 1}
    cleaned_document = host_value(document)
    rows = JsonRows(cleaned_document)
    for line in texts(rows, width=80):
        for char in ("\x1b", "\x9b", "\u202e", "\x7f", "\x07"):
            assert char not in line
    control_key = next(key for key in cleaned_document if key.startswith("\u241b"))  # ␛
    for name in (control_key, "v"):  # as a key and as a string
        cleaned = plain(rows, next(i for i, r in enumerate(rows.rows) if r.node.key == name), 80)
        assert "<U+009B>" in cleaned and "<U+202E>" in cleaned and "\u241b" in cleaned
    blob = plain(rows, index_of(rows, '"blob"'), width=80)
    assert cell_len(blob) <= 80
    assert blob.endswith("… (1,000,000 chars)")
    long_key = plain(rows, index_of(rows, '"kkk'), width=80)
    assert "…: 1" in long_key and cell_len(long_key) < 80


def test_a_string_on_a_narrow_row_is_cut_to_the_row_without_its_length() -> None:
    rows = JsonRows({"k" * 20: "vendor.acme.table"})
    line = plain(rows, 1, width=40)
    assert line == '    "kkkkkkkkkkkkkkkkkkkk": "vendor.acm…'
    for width in range(20, 60):
        assert cell_len(plain(rows, 1, width=width)) <= max(width, 30)  # the key stays whole


def test_a_string_that_just_misses_its_row_is_cut_without_its_length() -> None:
    rows = JsonRows({"id": "x" * 60, "blob": "y" * 500})
    short = plain(rows, 1, width=50)
    assert short == '    "id": "' + "x" * 38 + "…"
    assert plain(rows, 2, width=50).endswith("… (500 chars)")


def test_wide_characters_are_cut_by_cells() -> None:
    rows = JsonRows({"t": "漢字" * 1_000})
    line = plain(rows, 1, width=60)
    assert cell_len(line) <= 60
    assert line.endswith("(2,000 chars)")


def test_values_that_are_not_json_are_shown_for_what_they_are() -> None:
    rows = JsonRows({"set": {1, 2}, "bytes": b"\x1b[2J", "tuple": (1, 2)})
    shown = "\n".join(texts(rows))
    assert "{1, 2}" in shown
    assert "\x1b" not in shown
    assert '"tuple": [' in shown  # a tuple is an array
    assert json.loads(rows.copy_json(rows.root))["tuple"] == [1, 2]


def test_a_scalar_document_is_one_row() -> None:
    rows = JsonRows("just text")
    assert texts(rows) == ['  "just text"']
    assert rows.unfold(0) == 0 and rows.fold(0) == 0 and rows.unfold_all(0) == (0, True)
    assert rows.path(rows.root) == "$"
