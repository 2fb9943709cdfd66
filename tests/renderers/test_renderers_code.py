"""The ``code`` renderer: language from the hint, a fence or a guess; line numbers; copy."""

from __future__ import annotations

from render_helpers import NASTY, envelope, render, shown

from openwop_tui.renderers import RenderContext


def test_code_with_lang_and_title() -> None:
    source = "print('hello, terminal')\n"
    env = envelope(
        "vendor.acme.snippet",
        {"source": source},
        {"display": "code", "lang": "python", "title": "hello.py"},
        completion=source,
    )
    result = render(env, RenderContext())
    assert result.title == "code · hello.py · python · 1 line"
    assert [a.name for a in result.actions] == ["copy"]
    assert result.data == source.encode()
    assert result.filename == "hello.py"
    text = shown(result)
    assert "1 print('hello, terminal')" in text
    assert " 2 " not in text  # the trailing newline is not an empty numbered line


def test_source_from_payload_keys() -> None:
    env = envelope("vendor.x", {"code": "a = 1\nb = 2"}, {"display": "code", "lang": "python"})
    result = render(env, RenderContext())
    assert result.title == "code · python · 2 lines"
    assert "2 b = 2" in shown(result)


def test_fence_is_stripped_and_names_the_language() -> None:
    env = envelope("vendor.x", "```rust\nfn main() {}\n```\n", {"display": "code"})
    result = render(env, RenderContext())
    assert result.title == "code · rust · 1 line"
    text = shown(result)
    assert "fn main() {}" in text and "```" not in text
    assert result.filename == "snippet.rs"


def test_language_is_guessed_and_says_so() -> None:
    source = "#!/usr/bin/env python3\nimport sys\n\ndef main():\n    return 0\n"
    result = render(envelope("vendor.x", source, {"display": "code"}), RenderContext())
    assert "(guessed)" in result.title


def test_unknown_language_is_shown_plain() -> None:
    env = envelope("vendor.x", "blorp", {"display": "code", "lang": "klingon"})
    result = render(env, RenderContext())
    assert result.title == "code · klingon (plain) · 1 line"
    assert "blorp" in shown(result)


def test_long_lines_wrap_instead_of_being_cut() -> None:
    env = envelope("vendor.x", "x = '" + "y" * 150 + "'", {"display": "code", "lang": "python"})
    result = render(env, RenderContext())
    body = shown(result).split("\n", 1)[1]
    assert body.count("y") == 150


def test_no_source_falls_back_to_json() -> None:
    result = render(envelope("vendor.x", {"n": 1}, {"display": "code"}), RenderContext())
    assert result.title == "code without source · vendor.x, shown as JSON"


def test_escapes_in_code_and_title_are_neutralised() -> None:
    env = envelope("vendor.x", f"echo '{NASTY}'", {"display": "code", "lang": "sh", "title": NASTY})
    result = render(env, RenderContext())
    assert "\x1b" not in result.title
    text = shown(result)
    assert text.count("␛[2J") == 2 and "<U+202E>" in text
    # Copy and save get the cleaned source: raw host text stops at the boundary (hostdata).
    assert result.data is not None and "␛[2J".encode() in result.data
