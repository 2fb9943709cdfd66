"""The ``card`` renderer: a titled panel of markdown, or of the payload's keys."""

from __future__ import annotations

from render_helpers import NASTY, envelope, shown

from openwop_tui.renderers import RenderContext, render


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


def test_card_without_text_shows_the_payload_as_a_table() -> None:
    payload = {"status": "green", "items": ["a", "b"], "nested": {"k": [1, 2]}}
    result = render(envelope("vendor.x", payload, {"display": "card"}), RenderContext())
    assert result.title == "card"
    text = shown(result)
    assert "status" in text and "green" in text
    assert '["a", "b"]' in text and '{"k": [1, 2]}' in text


def test_card_with_nothing_to_show_falls_back_to_json() -> None:
    result = render(envelope("vendor.x", [1, 2], {"display": "card"}), RenderContext())
    assert result.title == "card without content · vendor.x, shown as JSON"


def test_escapes_in_card_title_keys_and_values() -> None:
    env = envelope("vendor.x", {NASTY: NASTY}, {"display": "card", "title": NASTY})
    text = shown(render(env, RenderContext()))
    assert text.count("<U+202E>") >= 3
