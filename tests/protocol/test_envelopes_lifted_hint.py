"""The hint of an envelope that carries none is the one lifted beside it (``outputs.rendering``),
the reference app's order (protocol.md §6); an envelope's own ``meta.rendering`` always wins.

An unknown ``display`` fails the closed ``meta.rendering`` schema, so a conformant host that
wants one shown puts it in its outputs (the demo host's ``hologram`` item does)."""

from __future__ import annotations

from typing import Any

from openwop_tui.protocol.envelopes import extract_envelopes
from openwop_tui.protocol.events import normalize


def _completed(envelope: dict[str, Any], **outputs: Any) -> Any:
    payload = {"nodeId": "n", "outputs": {"envelope": envelope, **outputs}}
    doc = {"eventId": "e", "runId": "r", "type": "node.completed", "sequence": 3}
    return normalize({**doc, "payload": payload})


def _envelope(meta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "vendor.x.holo", "envelopeId": "v", "payload": {"text": "t"}, "meta": meta}


def test_an_envelope_without_a_hint_takes_the_lifted_one() -> None:
    event = _completed(_envelope({"source": "ai-generation"}), rendering={"display": "hologram"})
    [found] = extract_envelopes(event)
    assert found.display == "hologram" and found.kind == "vendor.x.holo"


def test_the_envelopes_own_hint_wins() -> None:
    own = _envelope({"rendering": {"display": "code", "lang": "python"}})
    [found] = extract_envelopes(_completed(own, rendering={"display": "hologram"}))
    assert found.display == "code" and found.rendering.lang == "python"


def test_no_hint_anywhere_stays_none() -> None:
    [found] = extract_envelopes(_completed(_envelope({})))
    assert found.display is None
