"""No value crashes anything: the fold, envelope extraction, the JSON view and the renderer
registry each turn what they cannot handle into something visible, without a traceback."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import render_helpers
from render_helpers import envelope, media, render, shown

from openwop_tui.core.fold import Notice, Transcript
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import RunEvent
from openwop_tui.renderers import RendererSpec
from openwop_tui.renderers._common import load_media
from openwop_tui.renderers.base import RenderContext, Rendered
from openwop_tui.renderers.json import json_text


def test_a_handler_that_fails_becomes_an_error_notice_and_the_run_goes_on() -> None:
    # Hand-built (normalize would have clamped it): `durationMs / 1000` overflows a float.
    raw = {"type": "run.completed", "payload": {"durationMs": 10**400, "note": "\x1b]0;x\x07"}}
    event = RunEvent(type="run.completed", payload=raw["payload"], raw=raw)
    transcript = Transcript()
    (change,) = transcript.apply(event)
    notice = change.item
    assert isinstance(notice, Notice) and notice.level == "error"
    assert "run.completed" in notice.text and "OverflowError" in notice.text
    assert '"durationMs": 1000' in notice.text  # its JSON, cut to a few hundred characters
    assert len(notice.text) < 500 and "\x1b" not in notice.text
    chunk = RunEvent(type="output.chunk", payload={"chunk": "still here"}, node_id="n")
    assert transcript.apply(chunk)  # the fold carries on


def test_the_json_view_is_bounded_in_depth_and_size() -> None:
    deep: Any = 1
    for _ in range(10_000):
        deep = [deep]
    assert "nested too deeply" in json_text({"deep": deep}).plain
    text = json_text({"wide": list(range(100_000))}).plain
    assert "more items not shown" in text and text.count("\n") < 30_000


def test_a_hand_built_deep_envelope_renders_as_json() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"a": deep}
    env = envelope("vendor.x", {"a": 1})
    env = Envelope(kind=env.kind, payload=deep, rendering=env.rendering, source=env.source)
    result = render(env, RenderContext())
    assert "nested too deeply" in shown(result)


def test_when_the_json_fallback_fails_too_a_plain_block_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(envelope: Envelope, context: RenderContext) -> Rendered:
        raise RuntimeError("kaput")

    render_helpers.registered()
    monkeypatch.setitem(render_helpers.builtins()._specs, "card", RendererSpec("card", boom))
    monkeypatch.setitem(render_helpers.builtins()._specs, "json", RendererSpec("json", boom))
    result = render(envelope("vendor.x", {"a": 1}, {"display": "card"}), RenderContext())
    assert result.degraded is not None and "card renderer failed" in result.degraded
    assert "cannot be shown" in shown(result)


def test_a_failing_renderer_prints_nothing_when_logging_is_not_configured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(envelope: Envelope, context: RenderContext) -> Rendered:
        raise RuntimeError("kaput")

    render_helpers.registered()
    monkeypatch.setitem(render_helpers.builtins()._specs, "card", RendererSpec("card", boom))
    # As in the app before it configures logging: no handler anywhere (pytest adds its own).
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    render(envelope("vendor.x", {"a": 1}, {"display": "card"}), RenderContext())
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


@pytest.mark.parametrize("url", ["https://[x]/a.png", "http://[::1/a", "https://h:99999999/a"])
def test_malformed_media_urls_do_not_raise(url: str) -> None:
    env = media("image", url=url, mime="image/png")
    assert url in load_media(env, RenderContext(), "image").where
    result = render(env, RenderContext())
    assert result.degraded is not None and "renderer failed" not in result.degraded
