"""The ``card`` renderer: a titled panel of markdown, or of the payload's fields: nested objects
fold below two levels, arrays of objects are tables, everything bounded and cleaned."""

from __future__ import annotations

import re
from typing import Any

from render_helpers import NASTY, envelope, render, shown, terminal_output

from openwop_tui.draw.palette import Palette
from openwop_tui.renderers import RenderContext, Rendered
from openwop_tui.renderers.card import fields


def test_card_with_text_draws_markdown_under_the_title() -> None:
    env = envelope(
        "vendor.acme.summary.card",
        {"headline": "Deploy succeeded"},
        {"display": "card", "title": "Deployment summary"},
        completion="**Deploy succeeded**\n\n- 3 services updated\n- 0 errors",
    )
    result = render(env, RenderContext())
    assert result.title == "card · Deployment summary"
    text = shown(result)
    lines = text.splitlines()
    assert lines[1].startswith("╭─ Deployment summary ─")
    assert "Deploy succeeded" in text and "• 3 services updated" in text
    assert "**" not in text


def card(payload: Any, title: str | None = None) -> Rendered:
    hint: dict[str, Any] = {"display": "card"}
    if title is not None:
        hint["title"] = title
    return render(envelope("vendor.x", payload, hint), RenderContext())


def row_of(text: str, *cells: str) -> bool:
    """Some line holds ``cells`` in order (a table row, whatever its spacing)."""
    return any(re.search(".*".join(map(re.escape, cells)), line) for line in text.splitlines())


def test_card_without_text_shows_the_payload_as_fields() -> None:
    payload = {"status": "green", "items": ["a", "b"], "nested": {"k": [1, 2]}}
    result = card(payload)
    assert result.title == "card" and result.detail == "fields"
    text = shown(result)
    assert row_of(text, "status", "green")
    assert row_of(text, "items", "a, b")
    assert row_of(text, "nested", "k", "1, 2")  # a nested object opens as its own grid
    assert "folded" not in text


def test_scalars_read_as_values_not_json() -> None:
    text = shown(card({"ok": True, "off": False, "none": None, "n": 12, "x": 0.5, "s": "plain"}))
    for key, value in (("ok", "true"), ("off", "false"), ("none", "null"), ("n", "12")):
        assert row_of(text, key, value)
    assert row_of(text, "x", "0.5") and row_of(text, "s", "plain")
    assert '"plain"' not in text


def test_objects_deeper_than_two_levels_fold_with_their_size() -> None:
    deep = {f"k{i}": {"deeper": i} for i in range(12)}
    payload = {"owner": {"address": {"city": "Oslo", "geo": deep, "list": list(range(40))}}}
    payload["owner"]["address"]["rows"] = [{"a": 1}] * 40
    result = card(payload)
    assert result.detail == "fields, folded"
    text = shown(result, width=100)
    assert row_of(text, "owner", "address", "city", "Oslo")  # depth 1 and 2: open
    assert row_of(text, "geo", "{…} 12 keys")  # depth 3: folded
    assert row_of(text, "rows", "[…] 40 items")
    assert "deeper" not in text
    assert "parts folded — the inspector (i) shows the whole JSON" in text


def test_an_array_of_objects_is_a_table_over_the_union_of_keys() -> None:
    services = [{"name": f"svc{i}", "up": i % 2 == 0} for i in range(40)]
    services[1]["region"] = "eu"  # a key only one row has is still a column
    services[2]["meta"] = {"a": 1, "b": 2}
    result = card({"services": services})
    text = shown(result, width=100)
    assert row_of(text, "services", "name", "up", "region", "meta")
    assert row_of(text, "svc0", "true")
    assert row_of(text, "svc1", "false", "eu")
    assert row_of(text, "svc2", "true", "{…} 2 keys")  # nested values in a cell fold
    assert "svc9" in text and "svc10" not in text
    assert "and 30 more rows" in text


def test_a_wide_table_says_how_many_columns_it_leaves_out() -> None:
    rows = [{f"c{i}": i for i in range(12)}]
    text = shown(card({"rows": rows}), width=140)
    assert "c7" in text and "c8" not in text
    assert "4 more columns not shown" in text


def test_long_objects_arrays_and_strings_are_bounded() -> None:
    payload = {f"key{i}": i for i in range(100)}
    payload["tags"] = list(range(50))  # type: ignore[assignment]
    payload["essay"] = "w" * 5000  # type: ignore[assignment]
    text = shown(card({"all": payload}), width=120)
    assert "key39" in text and "key40" not in text
    assert "and 62 more keys" in text
    text = shown(card({"tags": list(range(50)), "essay": "w" * 5000}), width=120)
    assert "19 and 30 more items" in text
    assert text.count("w") < 700


def test_a_mixed_array_lists_its_items() -> None:
    text = shown(card({"mixed": [1, {"a": "b"}, [1, 2]]}))
    assert row_of(text, "mixed", "0", "1")
    assert row_of(text, "1", "a", "b") and row_of(text, "2", "1, 2")


def test_hostile_strings_in_tables_and_folded_parts_are_cleaned() -> None:
    payload = {"rows": [{NASTY: NASTY}], "deep": {"a": {NASTY: {NASTY: 1}}}, "list": [NASTY]}
    text = shown(card(payload, title=NASTY), width=120)  # `shown` asserts no escape got out
    assert text.count("<U+202E>") >= 5


def test_card_with_nothing_to_show_falls_back_to_json() -> None:
    result = render(envelope("vendor.x", [1, 2], {"display": "card"}), RenderContext())
    assert result.title == "card without content · vendor.x, shown as JSON"


def test_escapes_in_card_title_keys_and_values() -> None:
    env = envelope("vendor.x", {NASTY: NASTY}, {"display": "card", "title": NASTY})
    text = shown(render(env, RenderContext()))
    assert text.count("<U+202E>") >= 3


def test_fields_clean_raw_strings_themselves() -> None:
    # The envelope boundary already cleans payload strings; the card must not rely on it (a
    # plugin or a stored payload can hand it raw ones).
    raw = {NASTY: [{NASTY: NASTY, "n": [NASTY]}], "deep": {"a": {NASTY: {"b": 1}}}, "s": NASTY}
    body, folded = fields(raw, Palette.default())
    out, text = terminal_output(body, width=120)
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert folded and text.count("<U+202E>") >= 4
