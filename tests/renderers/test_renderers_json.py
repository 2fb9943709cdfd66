"""The registry and its JSON fallback: absent or unknown hints, failing renderers, duplicates."""

from __future__ import annotations

import json

import pytest
import render_helpers
from render_helpers import NASTY, envelope, render, resolve, shown

import openwop_tui.renderers as renderers
from openwop_tui.protocol.envelopes import Envelope, extract_envelopes
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers import FALLBACK, RenderContext, Rendered, RendererSpec, register
from openwop_tui.renderers.registry import Registry


def test_every_family_is_registered() -> None:
    assert set(render_helpers.registered()) >= {
        "markdown", "code", "card", "image", "audio", "file", "json",
    }  # fmt: skip
    assert resolve(None) is resolve(FALLBACK)


def test_unknown_display_is_shown_as_json_never_an_error() -> None:
    env = envelope("vendor.acme.hologram", {"text": "beam me up"}, {"display": "hologram"})
    result = render(env, RenderContext())
    assert result.title == 'unknown display "hologram" · vendor.acme.hologram, shown as JSON'
    assert result.degraded is None
    text = shown(result)
    assert '"type": "vendor.acme.hologram"' in text  # the whole envelope, not just the payload
    assert '"text": "beam me up"' in text
    assert json.loads(result.data or b"")["payload"] == {"text": "beam me up"}


def test_absent_hint_is_shown_as_json() -> None:
    env = envelope("vendor.acme.thing", {"n": 1, "ok": True, "none": None})
    result = render(env, RenderContext())
    assert result.title == "no rendering hint · vendor.acme.thing"
    text = shown(result)
    assert '"n": 1' in text and '"ok": true' in text and '"none": null' in text


def test_a_renderer_that_raises_falls_back_to_json_marked_degraded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(envelope: Envelope, context: RenderContext) -> Rendered:
        raise RuntimeError("kaput")

    render_helpers.registered()  # load the built-ins before replacing one
    monkeypatch.setitem(render_helpers.builtins()._specs, "card", RendererSpec("card", boom))
    env = envelope("vendor.acme.card", {"a": 1}, {"display": "card", "title": "T"})
    result = render(env, RenderContext())
    assert result.degraded == "the card renderer failed: RuntimeError: kaput"
    assert result.title == "card · vendor.acme.card, shown as JSON"
    assert '"a": 1' in shown(result)


def test_registering_a_key_twice_fails_loudly() -> None:
    registry = Registry(plugins=False).load()
    with pytest.raises(ValueError, match="already registered"):
        registry.add(RendererSpec("markdown", resolve("markdown")))


def test_register_only_declares_and_no_registry_is_process_wide() -> None:
    """A renderer declared in code reaches no registry by itself (each front end has its own);
    a registry that loads the module declaring it finds it."""

    @register("hologram")
    def hologram(envelope: Envelope, context: RenderContext) -> Rendered:
        return Rendered(title="hologram", body="beam")

    assert "hologram" not in Registry(plugins=False).load().registered()
    assert not hasattr(renderers, "default_registry")


def test_json_neutralises_escapes_in_keys_and_values() -> None:
    env = envelope("vendor.x", {NASTY: NASTY}, {"display": "nope" + NASTY})
    text = shown(render(env, RenderContext()))
    assert "␛]52" in text  # cleaned where the event entered (hostdata), before json.dumps
    assert "<U+009B>31m" in text and "<U+202E>" in text  # C1 and bidi are ours to catch


def test_long_strings_are_abbreviated_on_screen_but_kept_in_data() -> None:
    blob = "A" * 50_000
    env = envelope("vendor.x", {"blob": blob})
    result = render(env, RenderContext())
    text = shown(result)
    assert "[49,800 more characters]" in text
    assert len(text) < 2_000
    assert json.loads(result.data or b"")["payload"]["blob"] == blob


def test_lifted_hint_without_envelope_object_shows_the_payload() -> None:
    """An unknown display degrades to the default rendering, the reply's text (RFC 0055 §B):
    a lifted hint has nothing but that text, so it is not quoted as a JSON string."""
    doc = {
        "type": "node.completed",
        "payload": {"outputs": {"rendering": {"display": "sparkles"}, "completion": "hi there"}},
    }
    (env,) = extract_envelopes(normalize(doc))
    result = render(env, RenderContext())
    assert result.title == 'unknown display "sparkles" · completion, shown as text'
    assert "hi there" in shown(result) and '"hi there"' not in shown(result)
