"""The lab's `Profile`, pure: how each switch maps onto what a renderer is given, and how lines
are brought down to a colour system."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image
from render_helpers import media, render
from rich.color import ColorType
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from openwop_tui.devices.profile import (
    AUDIO_OFF_REASON,
    FETCH_OFF_REASON,
    IMAGES_OFF_REASON,
    Downgraded,
    Profile,
    downgrade_segments,
)
from openwop_tui.draw.palette import Palette
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.media import Asset
from openwop_tui.renderers.base import AudioSupport, Code, Graphics, RenderContext


def png(width: int = 24, height: int = 12) -> bytes:
    out = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).convert("RGB").save(out, format="PNG")
    return out.getvalue()


def by_url(display: str = "image", mime: str = "image/png") -> Envelope:
    return media(display, url="https://example.org/x", mime=mime, bytes=10)


DEVICE = AudioSupport(True)
BASE = RenderContext(width=150, audio=DEVICE)


def test_the_default_profile_changes_nothing_a_renderer_sees() -> None:
    context = Profile().context(BASE)
    assert context.images == "halfblock" and context.audio == DEVICE and context.width == 150


@pytest.mark.parametrize("mode", ["kitty", "sixel", "halfblock", "none"])
def test_images_map_onto_the_context(mode: str) -> None:
    context = Profile().with_switch("images", mode).context(BASE)
    assert context.images == mode
    if mode == "none":
        assert context.images_off_reason == IMAGES_OFF_REASON


def test_audio_off_wins_over_a_machine_that_can_play() -> None:
    context = Profile(audio=False).context(BASE)
    assert context.audio == AudioSupport(False, AUDIO_OFF_REASON)


def test_audio_on_never_makes_a_machine_without_a_device_play() -> None:
    machine = AudioSupport(False, "no output device")
    assert Profile(audio=True).context(BASE, audio=machine).audio == machine


def test_width_caps_and_full_keeps() -> None:
    assert Profile(width=80).context(BASE).width == 80
    assert Profile(width=120).context(replace_width(60)).width == 60  # never wider than there
    assert Profile(width=None).context(BASE).width == 150


def replace_width(width: int) -> RenderContext:
    return RenderContext(width=width, audio=DEVICE)


def test_fetching_off_means_no_bytes_and_says_so() -> None:
    envelope = by_url()
    stored = Asset(url="https://example.org/x", data=png(), content_type="image/png")
    seen = Profile(fetching=False).asset(envelope, stored)
    assert seen == Asset(url="https://example.org/x", error=FETCH_OFF_REASON, failure="not-fetched")
    rendered = render(envelope, replace(Profile(fetching=False).context(BASE), asset=seen))
    assert rendered.degradation is not None
    assert rendered.degradation.code == Code.NOT_FETCHED
    assert FETCH_OFF_REASON in rendered.degradation.reason
    assert rendered.degradation.reference == "https://example.org/x"  # where to get it
    # Fetching on: the asset is what it was.
    assert Profile().asset(envelope, stored) is stored


def test_fetching_off_keeps_a_policy_refusal() -> None:
    """A file: URL is refused whatever the network: switching fetching off does not turn its
    reason into "switched off" (issue 23 item 10, the offline reasons)."""
    refused = Asset(
        url="file:///etc/passwd", error="refused: file: URLs are never fetched", failure="refused"
    )
    assert Profile(fetching=False).asset(by_url(), refused) is refused


def test_fetching_off_keeps_inline_bytes() -> None:
    inline = media("image", png(), mime="image/png")
    assert Profile(fetching=False).asset(inline, None) is None
    rendered = render(inline, Profile(fetching=False).context(BASE))
    assert rendered.degradation is None and rendered.cells is not None


def test_images_off_describes_the_image_with_its_code() -> None:
    inline = media("image", png(), mime="image/png")
    rendered = render(inline, Profile(images="none").context(BASE))
    assert rendered.degradation is not None and rendered.degradation.code == Code.IMAGES_OFF
    assert IMAGES_OFF_REASON in rendered.degradation.reason


@pytest.mark.parametrize("images", ["halfblock", "kitty"])
def test_no_colour_describes_images_drawn_with_colour(images: str) -> None:
    """Half-block cells and kitty ids are colours: with none, the image is described, not
    drawn as blank cells."""
    inline = media("image", png(), mime="image/png")
    graphics = Graphics(protocols=frozenset({"kitty", "sixel"}))
    base = replace(BASE, graphics=graphics)
    profile = Profile(images=images, colours="none")  # type: ignore[arg-type]
    rendered = render(inline, profile.context(base))
    assert rendered.degradation is not None and rendered.degradation.code == Code.IMAGES_OFF
    assert "colours are off" in rendered.degradation.reason
    # Sixel carries its own palette: it still draws.
    sixel = render(inline, Profile(images="sixel", colours="none").context(base))
    assert sixel.degradation is None and sixel.detail == "sixel"


def test_16_colours_cannot_carry_kitty_ids() -> None:
    inline = media("image", png(), mime="image/png")
    base = replace(BASE, graphics=Graphics(protocols=frozenset({"kitty"})))
    rendered = render(inline, Profile(images="kitty", colours="16").context(base))
    assert rendered.fallback is not None and rendered.fallback.code == Code.NO_GRAPHICS
    assert "16 colours" in rendered.fallback.reason


@pytest.mark.parametrize(
    ("switch", "value", "expected"),
    [
        ("images", "none", Profile(images="none")),
        ("colours", "16", Profile(colours="16")),
        ("audio", "off", Profile(audio=False)),
        ("fetching", "off", Profile(fetching=False)),
        ("width", "80", Profile(width=80)),
        ("width", "full", Profile(width=None)),
    ],
)
def test_switches_read_the_words_commands_use(switch: str, value: str, expected: Profile) -> None:
    assert Profile().with_switch(switch, value) == expected


@pytest.mark.parametrize(
    ("switch", "value", "fragment"),
    [
        ("images", "ascii", "images must be one of"),
        ("colours", "8", "colours must be one of"),
        ("audio", "loud", "audio must be on or off"),
        ("width", "wide", "width must be a number"),
        ("width", "5", "at least 20"),
        ("volume", "on", "no such switch"),
    ],
)
def test_a_bad_switch_is_a_sentence(switch: str, value: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Profile().with_switch(switch, value)


def colour_types(segments: list[Segment]) -> set[ColorType]:
    found = set()
    for segment in segments:
        style = segment.style
        if style is None:
            continue
        for colour in (style.color, style.bgcolor):
            if colour is not None:
                found.add(colour.type)
    return found


def drawn_image_segments() -> list[Segment]:
    rendered = render(media("image", png(), mime="image/png"), BASE)
    console = Console(width=80, color_system="truecolor", file=io.StringIO())
    lines = console.render_lines(rendered.body, console.options)
    return [segment for line in lines for segment in line]


def test_16_colours_leave_no_truecolor_or_256_colour() -> None:
    segments = drawn_image_segments()
    assert ColorType.TRUECOLOR in colour_types(segments)  # what there was to bring down
    down = downgrade_segments(segments, "16")
    assert colour_types(down) <= {ColorType.STANDARD, ColorType.DEFAULT}
    assert [s.text for s in down] == [s.text for s in segments]  # the same characters


def test_256_colours_leave_no_truecolor() -> None:
    assert ColorType.TRUECOLOR not in colour_types(
        downgrade_segments(drawn_image_segments(), "256")
    )


def test_no_colour_keeps_bold_and_italic() -> None:
    style = Style(color="#ff0000", bgcolor="#00ff00", bold=True, italic=True)
    [segment] = downgrade_segments([Segment("x", style)], "none")
    assert segment.style is not None
    assert segment.style.color is None and segment.style.bgcolor is None
    assert segment.style.bold and segment.style.italic


def test_downgraded_renderable_draws_in_the_lower_system() -> None:
    console = Console(width=40, color_system="truecolor", file=io.StringIO())
    text = Text("hello", style=Palette.default().accent)
    lines = console.render_lines(Downgraded(text, "16"), console.options)
    segments = [segment for line in lines for segment in line]
    assert "hello" in "".join(s.text for s in segments)
    assert colour_types(segments) <= {ColorType.STANDARD, ColorType.DEFAULT}
