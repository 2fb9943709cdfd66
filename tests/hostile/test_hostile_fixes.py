"""Defects the hostile inputs of issue 8 found, one test each (each fails without its fix).

The broad sweeps are in ``test_hostile_directives`` and ``test_hostile_media``; these pin the
specific protections: what the user is shown for an international host name, URL credentials
after a style code, UTF-16 text files, CSV that cannot be a table, sample rates, and the cost of
a card whose array has thousands of wide objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hostile_media import forget_rendered_colours
from render_helpers import envelope, media, png, render, shown, terminal_output, wav

from openwop_tui.devices.desktop import open_risk
from openwop_tui.draw.palette import Palette
from openwop_tui.openclaw.policy import check_media
from openwop_tui.renderers import AudioSupport, RenderContext, preview
from openwop_tui.renderers.card import TABLE_ROWS, fields
from openwop_tui.text.redact import Redactor


@pytest.fixture(autouse=True, scope="module")
def _forget_colours() -> Iterator[None]:
    yield
    forget_rendered_colours()  # this module printed in 16 colours: see its docstring


# ------------------------------------------------------------------ international host names

HOMOGRAPH = "https://ex\u0430mple.com/logo.png"  # a Cyrillic "a" (U+0430): reads as example.com


def test_a_homograph_host_is_shown_and_fetched_in_its_ascii_form() -> None:
    checked = check_media(HOMOGRAPH)
    assert checked.url == "https://xn--exmple-4nf.com/logo.png"
    assert checked.reference == checked.url  # what the user reads is what is connected to


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/a.png", "loopback"),  # full-width
        ("https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/a.png", "internal"),
        ("https://u:p@ex\u0430mple.com/a.png", "user name or password"),
    ],
)
def test_an_international_name_is_judged_as_the_name_it_connects_to(url: str, why: str) -> None:
    checked = check_media(url)
    assert checked.url is None and checked.refused is not None and why in checked.refused


def test_an_ascii_url_is_left_as_written() -> None:
    url = "https://Example.com:8443/a%20b.png?q=1"
    assert check_media(url).url == url


# ------------------------------------------------------------------ credentials after styles


def test_url_credentials_right_after_a_style_code_are_masked() -> None:
    # Rich writes "\x1b[0m" right before a styled cell's text: its "m" is a word character.
    out = Redactor()("\x1b[1mwhere\x1b[0m\x1b[1m  \x1b[0mhttps://user:pw@example.com/a.png")
    assert "user:pw" not in out and "example.com/a.png" in out


# ------------------------------------------------------------------------------- previews


def _preview(data: bytes, mime: str, name: str) -> preview.Preview:
    found = preview.preview(data, mime, name, Palette.default(), "press s")
    assert found is not None
    return found


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_text_with_a_bom_previews_as_text(codec: str) -> None:
    text = "h\u00e9llo\nw\u00f6rld\n" * 3
    data = text.encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data
    found = _preview(data, "text/plain", "u.txt")
    assert found.refused is None
    out = shown_text(found)
    assert "h\u00e9llo" in out and "w\u00f6rld" in out


def test_utf16_json_is_pretty_printed() -> None:
    found = _preview('{"k": [1, 2]}'.encode("utf-16"), "application/json", "d.json")
    assert found.refused is None and found.kind == "json"
    assert '"k"' in shown_text(found)


def test_nul_bytes_in_utf16_text_still_make_it_binary() -> None:
    found = _preview("ab\x00cd".encode("utf-16"), "text/plain", "u.txt")
    assert found.refused is not None and "NUL" in found.refused


def test_a_csv_whose_header_fills_the_preview_says_so_and_counts_no_columns_it_did_not_see() -> (
    None
):
    line = ",".join(f"c{i}" for i in range(10_000)) + "\n"
    found = _preview(line.encode() * 3, "text/csv", "wide.csv")
    assert found.note is not None
    assert "the first row alone is longer than" in found.note
    assert "at least" in found.note and "more columns" in found.note
    assert "first 0 of" not in found.note


@pytest.mark.parametrize(
    "tail", [b"x" * 100_000 + b"\n1,2\n", b"x,y\n1,2\n"], ids=["past-the-preview", "whole-file"]
)
def test_a_csv_quote_that_never_closes_is_shown_as_text_and_says_why(tail: bytes) -> None:
    found = _preview(b'a,b\n"never closed,' + tail, "text/csv", "q.csv")
    assert found.kind == "csv (a quote is never closed: shown as text)"


def test_an_ordinary_quoted_csv_is_still_a_table() -> None:
    found = _preview(b'a,b\n"1, one",2\n"multi\nline",3\n', "text/csv", "ok.csv")
    assert found.kind == "csv" and found.note is None


def shown_text(found: preview.Preview) -> str:
    assert found.body is not None
    return terminal_output(found.body)[1]


# ---------------------------------------------------------------------------------- audio


@pytest.mark.parametrize(
    ("rate", "said"), [(1, "1 Hz mono"), (8000, "8 kHz mono"), (10_000_000, "10 MHz mono")]
)
def test_a_sample_rate_reads_as_a_person_would(rate: int, said: str) -> None:
    env = media("audio", wav(seconds=4 / rate + 0.0, rate=rate), mime="audio/wav")
    out = shown(render(env, RenderContext(audio=AudioSupport(False, "no device"))))
    assert said in out and "0.001 kHz" not in out


# ---------------------------------------------------------------------------------- cards


class CountingDict(dict[str, Any]):
    """A row that counts how often its keys are walked."""

    walks = 0

    def __iter__(self) -> Any:
        CountingDict.walks += 1
        return super().__iter__()

    def items(self) -> Any:
        CountingDict.walks += 1
        return super().items()


def test_a_table_of_thousands_of_objects_looks_only_at_the_rows_it_shows() -> None:
    CountingDict.walks = 0
    rows = [CountingDict({f"c{j}": j for j in range(50)}) for _ in range(5_000)]
    fields({"rows": rows}, Palette.default())
    assert CountingDict.walks <= 2 * TABLE_ROWS


def test_a_card_with_100k_keys_shows_the_first_and_counts_the_rest() -> None:
    payload = {f"k{i}": i for i in range(100_000)}
    out = shown(render(envelope("vendor.x", payload, {"display": "card"}), RenderContext()))
    assert "k0" in out and "and 99,960 more keys" in out


def test_a_table_cell_is_a_summary_not_a_wall_of_text() -> None:
    rows = [{f"c{j}": "v" * 1_000 for j in range(8)} for _ in range(3)]
    out = shown(render(envelope("vendor.x", {"rows": rows}, {"display": "card"}), RenderContext()))
    assert len(out.splitlines()) < 60  # eight 500-character cells a row stood ~70 lines tall


def test_valid_json_too_deep_to_lay_out_is_not_called_broken() -> None:
    found = _preview(b"[" * 100_000 + b"]" * 100_000, "application/json", "deep.json")
    assert found.kind == "json (nested too deeply to lay out: shown as text)"
    broken = _preview(b'{"a": ', "application/json", "broken.json")
    assert broken.kind == "json (does not parse: shown as text)"


# ------------------------------------------------------------------------------ open risks


@pytest.mark.parametrize(
    "head",
    [
        b"<body onload=alert(1)>",
        b"<!-- hi --><script>alert(1)</script>",
        b"<iframe src=x>",
        b"<p>click</p>",
        b"<svg\n xmlns='http://www.w3.org/2000/svg'>",
        "<html><script>".encode("utf-16"),
        "<html><script>".encode("utf-32"),
        "#!/bin/sh\n".encode("utf-16"),
    ],
    ids=["body", "comment", "iframe", "p", "svg-newline", "utf16-html", "utf32-html", "utf16-sh"],
)
def test_content_a_browser_would_sniff_as_html_asks_first(head: bytes) -> None:
    risk = open_risk("picture.png", "image/png", head)
    assert risk is not None and "opening it may run it" in risk.reason


@pytest.mark.parametrize("head", [b"\x89PNG\r\n\x1a\n", b"<pre>", b"<abc>", b"plain <p> later"])
def test_content_that_is_not_markup_does_not_ask(head: bytes) -> None:
    assert open_risk("picture.png", "image/png", head) is None


def test_a_profile_width_past_any_terminal_is_refused_with_the_limit() -> None:
    from openwop_tui.devices.profile import MAX_WIDTH, parse_width

    assert parse_width(str(MAX_WIDTH)) == MAX_WIDTH
    with pytest.raises(ValueError, match="at most 1,000 columns"):
        parse_width("100000000")


@pytest.mark.parametrize("colors", ["16", "none"])
def test_forced_kitty_in_too_few_colours_says_so_instead_of_vanishing(
    colors: str, tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A kitty image is named by its placeholders' colour; 16 colours (or none) lose the name,
    # so the terminal would draw nothing where the transcript said "kitty".
    from hostile_media import media_envelope, stream

    from openwop_tui import __main__ as cli

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("TMUX", raising=False)
    path = tmp_path / "s.sse"
    path.write_text(stream([], [media_envelope("image", png(), "image/png", "p.png")]))
    argv = ["render", str(path), "--images", "kitty", "--colors", colors, "--audio", "off"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "\x1b_G" not in out
    # 16 colours: half-blocks instead, saying why; none: no colour pixels at all, described.
    assert ("kitty unavailable" if colors == "16" else "these pixels are colours") in out
