"""Host text is neutralised before it reaches the terminal (design.md, Security posture)."""

from __future__ import annotations

import pytest

from openwop_tui.draw.safe_text import safe_text
from openwop_tui.text.sanitize import _UNSAFE, _substitute, clean, safe_filename


@pytest.mark.parametrize(
    ("raw", "visible"),
    [
        ("\x1b[2J", "␛[2J"),  # CSI: clear screen
        ("\x1b]52;c;ZXZpbA==\x07", "␛]52;c;ZXZpbA==␇"),  # OSC 52 clipboard write, BEL-terminated
        ("\x1bP+q\x1b\\", "␛P+q␛\\"),  # DCS
        ("\x1b_Gf=100\x1b\\", "␛_Gf=100␛\\"),  # APC (kitty graphics)
        ("\x9b31m", "<U+009B>31m"),  # 8-bit CSI
        ("\x9d0;title\x9c", "<U+009D>0;title<U+009C>"),  # 8-bit OSC and ST
        ("a\x00b\x08c\x7f", "a␀b␈c␡"),
        ("over\rwrite", "over␍write"),
        ("evil\u202etxt.exe", "evil<U+202E>txt.exe"),
        ("\u2066x\u2069\u200e\u200f\u061c", "<U+2066>x<U+2069><U+200E><U+200F><U+061C>"),
        ("\ud800", "<U+D800>"),  # a lone surrogate cannot be encoded for the terminal
    ],
)
def test_clean_makes_controls_visible(raw: str, visible: str) -> None:
    assert clean(raw) == visible


def test_clean_keeps_ordinary_text() -> None:
    text = "line one\n\tindented · café 日本語 👍 <b>tags</b> [bold]markup[/bold]"
    assert clean(text) is text


def test_clean_normalises_windows_line_ends_only() -> None:
    assert clean("a\r\nb\r") == "a\nb␍"


def test_nothing_below_space_survives_but_newline_and_tab() -> None:
    everything = "".join(chr(c) for c in range(0x00, 0xA0))
    cleaned = clean(everything)
    assert {c for c in cleaned if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0} == {"\n", "\t"}


def test_every_ascii_character_alone_and_in_text_is_cleaned_as_the_pattern_cleans_it() -> None:
    """ASCII text takes a quicker check (`clean`'s fast path): each of the 128 characters, on
    its own and inside a long plain text, comes out as the pattern alone makes it."""
    plain = "words and more words " * 500
    for code in range(0x80):
        char = chr(code)
        for text in (char, plain + char + plain, char + "\n" + plain, "\r\n" + char):
            assert clean(text) == _UNSAFE.sub(_substitute, text), repr(char)
    assert clean(plain) is plain


def test_safe_text_is_literal_not_markup() -> None:
    # It takes `HostText` (cleaned where it entered) and never parses it as console markup.
    text = safe_text(clean("[bold red]\x1b[31mhi[/]"), style="italic")
    assert text.plain == "[bold red]␛[31mhi[/]"
    assert str(text.style) == "italic"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "_.._etc_passwd"),
        ("..\\..\\boot.ini", "_.._boot.ini"),
        (".bashrc", "bashrc"),
        ("...", "fallback.bin"),
        ("", "fallback.bin"),
        (None, "fallback.bin"),
        ("a\x1b[2Jb.txt", "a_[2Jb.txt"),
        ("invoice\u202efdp.exe", "invoice_fdp.exe"),
        ('what?<>:"|*.txt', "what_______.txt"),
        ("  spaced name.txt  ", "spaced name.txt"),
    ],
)
def test_safe_filename(name: str | None, expected: str) -> None:
    assert safe_filename(name, "fallback.bin") == expected


def test_safe_filename_caps_length_and_keeps_the_extension() -> None:
    name = safe_filename("é" * 500 + ".pdf", "x")
    assert name.endswith(".pdf")
    assert len(name.encode()) <= 200
    name.encode().decode()  # cut on a character boundary


def test_safe_filename_falls_back_when_both_are_unusable() -> None:
    assert safe_filename("..", "/") == "_"
    assert safe_filename(None, "") == "download"
