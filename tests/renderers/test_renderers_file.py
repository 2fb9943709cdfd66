"""The ``file`` renderer: a download chip with a safe name, or the reason and the URL; a bounded,
highlighted, cleaned preview for text-like files, never for binary content."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import NASTY, media, render, shown

from openwop_tui.draw.palette import Palette
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import Asset, RenderContext, preview
from openwop_tui.renderers.base import Code

URL = "https://api.example.com/v1/host/sample/assets/Pk2W"
PDF = b"%PDF-1.4\n" + bytes(2000)


def pdf(*, url: str, **extra: Any) -> Envelope:
    return media(
        "file", url=url, mime="application/pdf", rendering={"alt": "Q3 report PDF"}, **extra
    )


def test_inline_file_offers_save_and_open() -> None:
    env = media("file", PDF, mime="application/pdf", name="q3-report.pdf")
    result = render(env, RenderContext())
    assert result.degraded is None
    assert [a.name for a in result.actions] == ["save", "open"]
    assert result.filename == "q3-report.pdf" and result.data == PDF
    assert result.title == "file · q3-report.pdf · application/pdf · 2.0 KB"
    text = shown(result)
    for fact in ("q3-report.pdf", "application/pdf", "2.0 KB (2,009 bytes)", "press s to save"):
        assert fact in text


def test_fetched_file() -> None:
    env = pdf(url=URL, bytes=len(PDF), name="q3.pdf")
    result = render(env, RenderContext(asset=Asset(URL, data=PDF, content_type="application/pdf")))
    assert result.degraded is None and result.data == PDF
    assert f"{URL} (downloaded — press s to save)" in shown(result, width=120)


def test_file_with_url_only_degrades_with_the_url() -> None:
    env = pdf(url="/v1/host/sample/assets/Pk2W", bytes=48213, name="q3-report.pdf")
    result = render(env, RenderContext())
    assert result.degraded == "not fetched: the client has not downloaded this asset"
    assert result.actions == ()
    text = shown(result, width=120)
    assert "file not shown here" in text
    assert "/v1/host/sample/assets/Pk2W (relative to the host's base URL)" in text
    assert "48.2 KB (48,213 bytes)" in text and "Q3 report PDF" in text


def test_file_whose_fetch_was_refused() -> None:
    env = pdf(url="file:///etc/passwd", bytes=10, name="passwd")
    reason = "refused: file: URLs are never fetched"
    result = render(env, RenderContext(asset=Asset("file:///etc/passwd", error=reason)))
    assert result.degraded == reason
    text = shown(result)
    assert reason in text and "file:///etc/passwd" in text


def test_hostile_file_name_is_made_safe() -> None:
    env = media("file", PDF, mime="application/pdf", name=f"../../{NASTY}evil.pdf")
    result = render(env, RenderContext())
    assert result.filename is not None
    assert "/" not in result.filename and not result.filename.startswith(".")
    assert "\x1b" not in result.filename and "\u202e" not in result.filename
    assert result.filename.endswith("evil.pdf")
    text = shown(result, width=160)
    assert "../../␛]52;c;ZXZpbA==␇" in text  # the name as sent, made visible


def test_file_without_name_gets_one_from_its_type() -> None:
    result = render(media("file", b"{}", mime="application/json"), RenderContext())
    assert result.filename == "file.json"


# ------------------------------------------------------------------------ previews


def file_of(data: bytes, mime: str, name: str) -> Envelope:
    return media("file", data, mime=mime, name=name)


def test_csv_previews_as_a_table_of_its_first_rows() -> None:
    rows = "".join(f'{i},item {i},"a, b"\n' for i in range(1, 101))
    result = render(file_of(f"id,name,pair\n{rows}".encode(), "text/csv", "r.csv"), RenderContext())
    assert result.detail == "preview · csv" and result.badge == "file · preview · csv"
    text = shown(result, width=100)
    assert "id" in text and "pair" in text and "item 20" in text and "a, b" in text
    assert "item 21" not in text  # bounded: the first rows only
    assert "first 20 of 100 rows — the whole file: press s to save" in text
    assert result.data is not None and result.data.endswith(b'100,item 100,"a, b"\n')


def test_tsv_previews_as_a_table_and_wide_tables_say_what_is_left_out() -> None:
    header = "\t".join(f"col{i}" for i in range(14))
    row = "\t".join(f"v{i}" for i in range(14))
    result = render(file_of(f"{header}\n{row}\n".encode(), "text/plain", "t.tsv"), RenderContext())
    assert result.detail == "preview · tsv"
    text = shown(result, width=160)
    assert "col9" in text and "col10" not in text
    assert "4 more columns not shown" in text


def test_json_is_pretty_printed_when_it_parses() -> None:
    raw = b'{"name":"demo","items":[1,2,{"deep":true}]}'
    result = render(file_of(raw, "application/json", "d.json"), RenderContext())
    assert result.detail == "preview · json"
    text = shown(result)
    assert '"name": "demo",' in text and '"deep": true' in text
    assert len([line for line in text.splitlines() if '"' in line]) == 3  # one key a line


def test_json_that_does_not_parse_is_shown_as_text_and_says_so() -> None:
    result = render(
        file_of(b'{"name": "demo", oops', "application/json", "d.json"), RenderContext()
    )
    assert result.detail == "preview · json (does not parse: shown as text)"
    assert '{"name": "demo", oops' in shown(result)


def test_markdown_previews_as_highlighted_source() -> None:
    result = render(
        file_of(b"# Title\n\n- **bold**\n", "text/markdown", "notes.md"), RenderContext()
    )
    assert result.detail == "preview · markdown"
    text = shown(result)
    assert "# Title" in text and "- **bold**" in text


def test_source_code_previews_by_its_extension_with_line_numbers() -> None:
    source = b"def f() -> int:\n    return 1\n"
    result = render(file_of(source, "application/octet-stream", "tool.py"), RenderContext())
    assert result.detail == "preview · python"
    text = shown(result)
    assert "1 def f() -> int:" in text and "2     return 1" in text


def test_source_code_previews_by_its_media_type() -> None:
    result = render(file_of(b"fn main() {}\n", "text/x-rust", "download"), RenderContext())
    assert result.detail == "preview · rust"


def test_a_file_that_is_not_text_has_no_preview() -> None:
    result = render(file_of(PDF, "application/pdf", "q3.pdf"), RenderContext())
    assert result.detail is None and result.fallback is None


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), "NUL bytes"),
        (bytes(range(128, 256)) * 20, "invalid UTF-8"),
        (bytes([1, 2, 3, 4, 5, 6, 14, 15, 16, 17]) * 50, "control characters"),
    ],
)
def test_binary_content_is_never_previewed_as_text(data: bytes, why: str) -> None:
    result = render(file_of(data, "text/plain", "notes.txt"), RenderContext())
    assert result.detail is None
    assert result.fallback is not None and result.fallback.code == Code.BAD_DATA
    assert result.badge == "file · binary content → no preview"
    text = shown(result, width=120)
    assert "preview  none: the content is binary" in text and why in text
    assert [a.name for a in result.actions] == ["save", "open"]  # still saved as it came


def test_a_few_invalid_bytes_do_not_make_text_binary() -> None:
    latin1 = "Café crème, déjà vu.\n".encode("latin-1") * 3 + b"plain ascii line\n" * 40
    result = render(file_of(latin1, "text/plain", "menu.txt"), RenderContext())
    assert result.detail == "preview · text"


def test_escape_sequences_in_a_preview_are_neutralised() -> None:
    for name, mime in (("x.txt", "text/plain"), ("x.csv", "text/csv"), ("x.py", "text/x-python")):
        data = f"a,{NASTY}b\nline two {NASTY}\n".encode()
        result = render(file_of(data, mime, name), RenderContext())
        assert result.detail is not None, name
        text = shown(result, width=120)  # `shown` asserts no ESC, CSI or BEL reached the terminal
        assert "␛]52;c;ZXZpbA==␇" in text and "<U+202E>" in text, name


def test_json_escapes_are_neutralised_after_pretty_printing() -> None:
    data = json.dumps({"k": "\u202e\u009b31m"}, ensure_ascii=True).encode()
    result = render(file_of(data, "application/json", "x.json"), RenderContext())
    assert result.detail == "preview · json"
    assert "<U+202E><U+009B>31m" in shown(result)


def test_a_long_file_is_bounded_by_lines() -> None:
    data = "".join(f"line {i}\n" for i in range(1, 1235)).encode()
    result = render(file_of(data, "text/plain", "big.log"), RenderContext())
    text = shown(result)
    assert "line 40" in text and "line 41" not in text
    assert "first 40 of 1,234 lines — the whole file: press s to save" in text
    assert result.data == data


def test_a_huge_single_line_is_bounded_by_bytes_and_cut() -> None:
    data = b"x" * (5 * preview.PREVIEW_BYTES)
    result = render(file_of(data, "text/plain", "one.txt"), RenderContext())
    text = shown(result, width=100)
    assert text.count("x") <= preview.LINE_CHARS + 200  # the cut line, not 160 KB of x
    assert "first 32.8 KB of 163.8 KB, long lines cut — the whole file" in text


def test_a_multibyte_character_cut_by_the_bound_is_not_shown_as_invalid() -> None:
    data = "é".encode() * preview.PREVIEW_BYTES  # two bytes each: the bound falls mid-file
    found = preview.preview(data, "text/plain", "e.txt", Palette.default(), "press s")
    assert found is not None and found.refused is None


def test_a_huge_json_document_is_shown_as_text_unparsed() -> None:
    data = b"[" + b"1," * preview.JSON_PARSE_BYTES + b"1]"
    env = media("file", url=URL, mime="application/json", name="big.json")
    asset = Asset(URL, data=data, content_type="application/json")
    result = render(env, RenderContext(asset=asset))
    assert result.detail == "preview · json"
    assert "first 32.8 KB of 2.0 MB, long lines cut" in shown(result, width=120)


def test_deeply_nested_json_does_not_crash_the_preview() -> None:
    data = b"[" * 100_000 + b"]" * 100_000
    result = render(file_of(data, "application/json", "deep.json"), RenderContext())
    assert result.detail == "preview · json (nested too deeply to lay out: shown as text)"


def test_the_cli_hint_reads_in_the_note() -> None:
    data = "".join(f"{i}\n" for i in range(100)).encode()
    context = RenderContext(save_hint="pass --save-media DIR to save it")
    text = shown(render(file_of(data, "text/plain", "n.txt"), context))
    assert "the whole file: pass --save-media DIR to save it" in text


@settings(max_examples=150, deadline=None)
@given(
    data=st.one_of(
        st.binary(min_size=1, max_size=3000),
        st.text(min_size=1, max_size=1500).map(lambda text: text.encode("utf-8", "surrogatepass")),
    ),
    kind=st.sampled_from(
        [
            ("text/plain", "a.txt"),
            ("text/csv", "a.csv"),
            ("text/tab-separated-values", "a.tsv"),
            ("application/json", "a.json"),
            ("text/markdown", "a.md"),
            ("application/octet-stream", "a.py"),
            ("text/html", "a.html"),
        ]
    ),
)
def test_any_bytes_preview_without_crashing_or_reaching_the_terminal_raw(
    data: bytes, kind: tuple[str, str]
) -> None:
    mime, name = kind
    result = render(file_of(data, mime, name), RenderContext())
    assert result.renderer == "file" and result.degradation is None, result.badge
    assert result.detail is not None or result.fallback is not None  # a preview, or why not
    shown(result, width=60)  # asserts no ESC, CSI or BEL reached the terminal


def test_lines_ended_by_cr_alone_are_counted_and_bounded() -> None:
    data = "".join(f"row {i}\r" for i in range(1, 101)).encode()
    text = shown(render(file_of(data, "text/plain", "mac.txt"), RenderContext()))
    assert "row 40" in text and "row 41" not in text
    assert "first 40 of 100 lines" in text
