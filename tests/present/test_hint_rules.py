"""RFC 0055 in the renderers (issue 14 item 9), in the printer path and in the app.

* The envelope type wins over the rendering hint (RFC 0055 §B: the hint "never changes
  ``payload`` validation"; §C: a ``media.*`` payload is selected by the ``type`` discriminator):
  a ``media.image`` hinted ``code`` or ``audio`` is drawn by the image renderer, and the badge
  names the hint that was set aside.
* A placeholder for media with neither a URL nor data keeps every field it was given: name,
  size, alt (from the hint or the payload), and the media type, ``application/octet-stream``
  when none is given anywhere.
* An unknown ``display`` degrades to the default rendering (§B: "MUST fall back to its default
  rendering (today: text / raw-JSON)"): the reply's text, then the JSON.
"""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

from app_support import SIZE, connected, demo_app, draw_everything, plain
from render_helpers import builtins, envelope, png, shown, wav
from rich.console import Console

from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.core.fold import Added, EnvelopeItem
from openwop_tui.draw.palette import Palette
from openwop_tui.present import items as present
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import RenderContext, Rendered
from openwop_tui.renderers import render as render_with
from openwop_tui.renderers.base import Code
from openwop_tui.ui.screens.inspect import drawn


def render(envelope: Envelope, context: RenderContext) -> Rendered:
    """Drawn by the built-in renderers (each front end passes its own registry)."""
    return render_with(envelope, context, builtins())


PNG = png(4, 2)
WAV = wav(0.05)


def image_payload() -> dict[str, Any]:
    return {"base64": base64.b64encode(PNG).decode(), "bytes": len(PNG), "mimeType": "image/png"}


def printed(env: Envelope) -> str:
    """The envelope as the ``render`` and ``run`` commands print it."""
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False)
    printer = TranscriptPrinter(
        console, RenderContext(images="halfblock"), verbose=False, registry=builtins()
    )

    async def feed() -> None:
        await printer.feed([Added(EnvelopeItem(id="e1", envelope=env))])
        await printer.flush()

    asyncio.run(feed())
    return out.getvalue()


# ------------------------------------------------------------------- the type wins


def test_an_image_hinted_code_is_drawn_as_an_image_and_the_badge_says_so() -> None:
    env = envelope("media.image", image_payload(), {"display": "code", "lang": "python"})
    assert env.display == "image" and env.hint_set_aside == "code"
    rendered = render(env, RenderContext(images="halfblock"))
    assert rendered.renderer == "image" and rendered.data == PNG
    assert rendered.hint is not None and rendered.hint.code is Code.HINT_SET_ASIDE
    assert rendered.badge == "image · half-blocks · hint code unfit for media.image → image"
    out = printed(env)
    assert "code without source" not in out and "shown as JSON" not in out
    assert "▄" in out  # the pixels
    assert "⌁ image · half-blocks · hint code unfit for media.image → image" in out


def test_an_image_hinted_audio_never_reaches_the_audio_decoder() -> None:
    env = envelope("media.image", image_payload(), {"display": "audio"})
    rendered = render(env, RenderContext(images="halfblock"))
    assert rendered.renderer == "image" and rendered.degradation is None
    assert "hint audio unfit for media.image → image" in rendered.badge
    assert "audio" not in rendered.title


def test_audio_hinted_image_or_card_is_still_audio() -> None:
    payload = {"base64": base64.b64encode(WAV).decode(), "bytes": len(WAV), "mimeType": "audio/wav"}
    for hint in ("image", "card", "markdown"):
        rendered = render(envelope("media.audio", payload, {"display": hint}), RenderContext())
        assert rendered.renderer == "audio", hint
        assert f"hint {hint} unfit for media.audio → audio" in rendered.badge


def test_a_hint_that_fits_is_followed_without_a_note() -> None:
    """Its own family, or ``file`` (any media payload can be offered as a file to save); and a
    vendor kind has no family of its own, so its hint is the only guide."""
    own = render(envelope("media.image", image_payload(), {"display": "image"}), RenderContext())
    assert own.renderer == "image" and own.hint is None and "unfit" not in own.badge
    as_file = render(envelope("media.image", image_payload(), {"display": "file"}), RenderContext())
    assert as_file.renderer == "file" and as_file.hint is None
    vendor = render(
        envelope("vendor.acme.snippet", {"code": "x = 1"}, {"display": "code"}), RenderContext()
    )
    assert vendor.renderer == "code" and vendor.hint is None


# ------------------------------------------------------------ placeholders keep it all


def test_a_placeholder_keeps_name_size_alt_and_type() -> None:
    env = envelope(
        "media.file",
        {"bytes": 2048, "name": "q3.pdf", "mimeType": "application/pdf"},
        {"display": "file", "alt": "the Q3 report"},
    )
    rendered = render(env, RenderContext())
    text = shown(rendered)
    assert rendered.degradation is not None and rendered.degradation.code is Code.NO_DATA
    for fact in ("q3.pdf", "application/pdf", "2.0 KB (2,048 bytes)", "the Q3 report"):
        assert fact in text, fact
    assert rendered.title == "file · q3.pdf · application/pdf · 2.0 KB"


def test_alt_carried_in_the_payload_is_shown() -> None:
    env = envelope("media.image", {"bytes": 1234, "name": "chart.png", "alt": "a red bar"})
    assert env.alt == "a red bar"
    text = printed(env)
    assert "a red bar" in text and "chart.png" in text and "1.2 KB (1,234 bytes)" in text
    drawn = render(
        envelope("media.image", {**image_payload(), "alt": "two red pixels"}), RenderContext()
    )
    assert "two red pixels" in shown(drawn)


def test_a_placeholder_with_no_type_anywhere_says_octet_stream() -> None:
    env = envelope("media.file", {"bytes": 99, "name": "notes.bin"})
    rendered = render(env, RenderContext())
    assert "application/octet-stream" in shown(rendered)
    assert rendered.title == "file · notes.bin · application/octet-stream · 99 bytes"
    hinted = render(
        envelope("media.file", {"bytes": 99}, {"mimeType": "text/csv"}), RenderContext()
    )
    assert "text/csv" in shown(hinted) and "octet-stream" not in shown(hinted)


# ------------------------------------------------------------------- unknown display


def test_an_unknown_display_shows_the_reply_text_and_the_json() -> None:
    env = envelope(
        "vendor.acme.hologram",
        {"text": "payload text"},
        {"display": "hologram"},
        completion="If you can read this, the client fell back.",
    )
    rendered = render(env, RenderContext())
    text = shown(rendered)
    assert "If you can read this, the client fell back." in text
    assert '"vendor.acme.hologram"' in text  # the JSON below it
    assert text.index("If you can read") < text.index('"type"')
    assert (
        rendered.title
        == 'unknown display "hologram" · vendor.acme.hologram, shown as text and JSON'
    )
    assert rendered.badge == "json · no hologram renderer → text and JSON"
    assert "If you can read this" in printed(env)


def test_an_unknown_display_without_text_is_json_alone() -> None:
    rendered = render(envelope("vendor.acme.x", {"a": 1}, {"display": "sparkles"}), RenderContext())
    assert rendered.badge == "json · no sparkles renderer → JSON"
    assert '"a": 1' in shown(rendered)


# ------------------------------------------------------------------------- the app


async def _drawn(envelopes: list[Envelope]) -> dict[str, tuple[str, Rendered]]:
    """Each envelope as the app's transcript draws it: its text on screen and its result."""
    app = demo_app()
    found: dict[str, tuple[str, Rendered]] = {}
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        items = [EnvelopeItem(id=f"hint-{i}", envelope=e) for i, e in enumerate(envelopes)]
        await app.view.apply([Added(item) for item in items])
        await draw_everything(pilot, app)
        for item in items:
            block = app.view.block_for(item.id)
            assert block is not None and block.rendered is not None, item.id
            found[item.id] = (app.view.text_of(item.id), block.rendered)
    return found


async def test_the_app_draws_the_type_not_the_hint_and_keeps_placeholders_whole() -> None:
    drawn = await _drawn(
        [
            envelope("media.image", image_payload(), {"display": "code"}),
            envelope("media.image", image_payload(), {"display": "audio"}),
            envelope("media.file", {"bytes": 99, "name": "notes.bin", "alt": "some notes"}),
            envelope(
                "vendor.acme.hologram",
                {"t": 1},
                {"display": "hologram"},
                completion="fell back to text",
            ),
        ]
    )
    code_text, code = drawn["hint-0"]
    assert code.renderer == "image" and "code without source" not in code_text
    assert "hint code unfit for media.image → image" in code_text
    audio_text, audio = drawn["hint-1"]
    assert audio.renderer == "image" and "hint audio unfit for media.image → image" in audio_text
    file_text, _ = drawn["hint-2"]
    for fact in ("notes.bin", "99 bytes", "some notes", "application/octet-stream"):
        assert fact in file_text, fact
    holo_text, _ = drawn["hint-3"]
    assert "fell back to text" in holo_text and '"t": 1' in holo_text


def test_the_badge_line_is_what_present_draws() -> None:
    """The app and the printer draw the badge through `present.envelope_badge`: one text."""
    env = envelope("media.image", image_payload(), {"display": "card"})
    rendered = render(env, RenderContext())
    assert present.envelope_badge(rendered).plain.strip() == f"⌁ {rendered.badge}"
    assert "hint card unfit for media.image → image" in rendered.badge


def test_the_inspector_names_the_hint_that_was_set_aside() -> None:
    env = envelope("media.image", image_payload(), {"display": "code"})
    rendered = render(env, RenderContext())
    shown = plain(drawn(rendered, Palette.default()))
    assert "hint set aside: the rendering hint 'code' does not fit a media.image envelope" in shown
    assert f"code {Code.HINT_SET_ASIDE.value}" in shown and "instead image" in shown
