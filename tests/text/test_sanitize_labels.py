"""Names and titles: `clean_label` shows invisible characters, `safe_filename` drops them, and
envelope extraction applies both rules to media names, titles and alt text."""

from __future__ import annotations

import pytest
from render_helpers import envelope, media, render

from openwop_tui.renderers.base import RenderContext
from openwop_tui.text.sanitize import clean_label, safe_filename

INVISIBLE = [
    "\u200b", "\u200c", "\u200d", "\u2060", "\u2064", "\ufeff", "\u180e", "\u00ad", "\u034f",
    "\u3164", "\ufe00", "\U000e0041", "\U000e0100",
]  # fmt: skip
BIDI = ["\u200e", "\u200f", "\u061c", "\u202e", "\u2066", "\u2069"]


@pytest.mark.parametrize("char", INVISIBLE + BIDI)
def test_clean_label_shows_invisible_and_bidi_characters(char: str) -> None:
    shown = clean_label(f"invoice{char}.pdf")
    assert char not in shown and f"<U+{ord(char):04X}>" in shown
    assert clean_label(shown) == shown  # idempotent


@pytest.mark.parametrize("char", INVISIBLE + BIDI)
def test_saved_names_do_not_keep_them(char: str) -> None:
    assert char not in safe_filename(f"invoice{char}.pdf", "x")


def test_emoji_presentation_selectors_stay() -> None:
    assert clean_label("ok \u2764\ufe0f") == "ok \u2764\ufe0f"


def test_envelope_names_titles_and_alt_show_invisible_characters() -> None:
    env = media(
        "file",
        b"data",
        mime="application/pdf",
        name="invoice\u200b.pdf",
        rendering={"title": "ti\u2060tle", "alt": "a\ufeffl\u200dt"},
    )
    assert env.media is not None and env.media.name == "invoice<U+200B>.pdf"
    assert env.rendering.title == "ti<U+2060>tle"
    assert env.rendering.alt == "a<U+FEFF>l<U+200D>t"
    rendered = render(env, RenderContext())
    assert rendered.filename is not None and "\u200b" not in rendered.filename


def test_extraction_never_raises_on_a_hand_built_event() -> None:
    from openwop_tui.protocol.envelopes import extract_envelopes
    from openwop_tui.protocol.events import RunEvent

    class Boom(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            raise RuntimeError("boom")

    event = RunEvent(type="node.completed", payload=Boom())
    (found,) = extract_envelopes(event)
    assert found.kind == "unreadable"
    assert envelope("vendor.x", {"a": 1}).kind == "vendor.x"
