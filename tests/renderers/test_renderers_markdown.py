"""The ``markdown`` renderer: text from the envelope, the payload, or nowhere (then JSON)."""

from __future__ import annotations

from render_helpers import NASTY, envelope, render, shown

from openwop_tui.renderers import RenderContext


def test_completion_text_is_drawn_as_markdown() -> None:
    env = envelope(
        "vendor.x.note",
        {},
        {"display": "markdown", "title": "Notes"},
        completion="# Heading\n\n- one\n- **two**\n\n```python\nx = 1\n```\n",
    )
    result = render(env, RenderContext())
    assert result.title == "Notes"
    assert result.degraded is None
    text = shown(result)
    assert "Heading" in text and "• one" in text and "two" in text and "x = 1" in text
    assert "**" not in text and "```" not in text


def test_text_from_a_string_payload_or_a_known_key() -> None:
    for payload in ("plain *words*", {"markdown": "plain *words*"}, {"content": "plain *words*"}):
        text = shown(
            render(envelope("vendor.x", payload, {"display": "markdown"}), RenderContext())
        )
        assert "plain words" in text


def test_links_show_where_they_go() -> None:
    env = envelope("vendor.x", "see [the docs](https://example.com/docs)", {"display": "markdown"})
    assert "the docs (https://example.com/docs)" in shown(render(env, RenderContext()))


def test_no_text_falls_back_to_json_marked_degraded() -> None:
    env = envelope("vendor.x.stats", {"count": 3}, {"display": "markdown"})
    result = render(env, RenderContext())
    assert result.degraded == "the markdown hint came with no text to show"
    assert result.title == "markdown without text · vendor.x.stats, shown as JSON"
    assert '"count": 3' in shown(result)


def test_escapes_in_markdown_are_neutralised_everywhere() -> None:
    body = f"# Title {NASTY}\n\nbody {NASTY}\n\n`code {NASTY}`\n\n[link](https://e.com/{NASTY})"
    env = envelope("vendor.x", body, {"display": "markdown", "title": NASTY})
    result = render(env, RenderContext())
    text = shown(result)  # asserts that no ESC, BEL or 8-bit CSI reached the terminal
    assert text.count("␛]52;c;ZXZpbA==␇") == 4  # title, heading, body, code span
    assert "https://e.com/%E2%90%9B%5D52" in text  # the link target, percent-encoded by the parser
    assert "<U+202E>" in text and "<U+009B>" in text
