"""The ``file`` renderer: a download chip with a safe name, or the reason and the URL."""

from __future__ import annotations

from typing import Any

from render_helpers import NASTY, media, shown

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import Asset, RenderContext, render

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
