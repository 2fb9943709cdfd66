"""The degradation lab's profile: what this terminal and machine are allowed to do, as data.

A `Profile` names five switches a person can drive while the app runs (and the same ones the
``render`` and ``run`` commands take as flags): how images are drawn, which colours reach the
screen, whether sound plays, whether media URLs are fetched, and how wide items are drawn. It is
pure: it maps onto the `RenderContext` a renderer is given (`Profile.context`), onto the asset a
renderer sees (`Profile.asset`: fetching off means no bytes, and says so), and onto the styles of
drawn lines (`downgrade_segments`: every colour brought down to the chosen colour system, or
removed, keeping bold and italic). So a switch is a real capability change, not a label: a
renderer draws exactly what it would draw on such a terminal or machine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, ClassVar, Literal, Protocol, TypeVar, get_args

from rich.color import ColorSystem
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style

from openwop_tui.devices.capabilities import AudioSupport, Graphics, ImageMode
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.media import Asset


class _ContextLike(Protocol):
    """What `Profile.context` reads of a renderer's context
    (`openwop_tui.renderers.base.RenderContext`, a floor above: never imported here) and
    gives back changed by `dataclasses.replace`."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def width(self) -> int: ...
    @property
    def graphics(self) -> Graphics: ...
    @property
    def audio(self) -> AudioSupport: ...
    @property
    def images(self) -> str: ...


_Context = TypeVar("_Context", bound=_ContextLike)

__all__ = [
    "AUDIO_OFF_REASON",
    "FETCH_OFF_REASON",
    "IMAGES_OFF_REASON",
    "PRESETS",
    "Colours",
    "Profile",
    "downgrade_segments",
    "downgrade_style",
]

Colours = Literal["truecolor", "256", "16", "none"]
COLOURS: tuple[Colours, ...] = get_args(Colours)
IMAGE_MODES: tuple[ImageMode, ...] = ("kitty", "sixel", "halfblock", "none")
WIDTHS: tuple[int | None, ...] = (80, 120, None)

AUDIO_OFF_REASON = "audio switched off in the lab"
FETCH_OFF_REASON = "not fetched: media fetching is switched off"
IMAGES_OFF_REASON = "image display is switched off in the lab (Images: off)"
NO_COLOUR_REASON = (
    "half-block and kitty pixels are drawn with colours, and colours are off (Colours: none)"
)

_SYSTEMS: dict[Colours, ColorSystem | None] = {
    "truecolor": ColorSystem.TRUECOLOR,
    "256": ColorSystem.EIGHT_BIT,
    "16": ColorSystem.STANDARD,
    "none": None,
}

#: How each switch value reads to a person (palette commands, the capabilities screen, badges).
IMAGE_LABELS: dict[str, str] = {
    "kitty": "kitty",
    "sixel": "sixel",
    "halfblock": "half-blocks",
    "none": "off",
}
COLOUR_LABELS: dict[str, str] = {
    "truecolor": "true colour",
    "256": "256",
    "16": "16",
    "none": "none",
}


#: The narrowest width a profile draws in (a renderer needs some room to say anything).
MIN_WIDTH = 20
#: The widest: no terminal has more columns, and every line drawn is padded to the width (a
#: mistyped ``--width 100000000`` would build lines of a hundred million cells).
MAX_WIDTH = 1000


def parse_width(value: str) -> int | None:
    """``full`` (or ``0``) is ``None``; a number of columns is itself, at least `MIN_WIDTH`."""
    if value in ("full", "0"):
        return None
    try:
        width = int(value)
    except ValueError:
        raise ValueError(f"width must be a number of columns or full, not {value!r}") from None
    if width < MIN_WIDTH:
        raise ValueError(f"width must be at least {MIN_WIDTH} columns, not {width}")
    if width > MAX_WIDTH:
        raise ValueError(f"width must be at most {MAX_WIDTH:,} columns, not {width:,}")
    return width


def width_label(width: int | None) -> str:
    """``80``, ``120`` or ``full``."""
    return "full" if width is None else str(width)


@dataclass(frozen=True, slots=True)
class Profile:
    """The lab's switches. The default is "everything the machine allows": nothing is capped."""

    images: ImageMode = "halfblock"
    colours: Colours = "truecolor"
    audio: bool = True
    """Off: sound is never played, whatever the machine can do."""
    fetching: bool = True
    """Off: no media URL is downloaded; inline bytes still show."""
    width: int | None = None
    """Columns items are drawn in, at most; ``None`` is the full width of the view."""

    @property
    def colour_system(self) -> ColorSystem | None:
        """The Rich colour system lines are brought down to (``None``: no colour at all)."""
        return _SYSTEMS[self.colours]

    def cap(self, width: int) -> int:
        """``width`` within the profile's width cap."""
        return width if self.width is None else min(width, self.width)

    def context(self, base: _Context, *, audio: AudioSupport | None = None) -> _Context:
        """``base`` as this profile allows it: images, sound and width.

        ``audio`` is what the machine can do (default: ``base.audio``); switching audio off
        wins over a machine that can play, and switching it on never makes a machine without
        a device play (its own reason stays).
        """
        machine = audio if audio is not None else base.audio
        sound = machine if self.audio else AudioSupport(False, AUDIO_OFF_REASON)
        changes: dict[str, object] = {
            "images": self.images,
            "audio": sound,
            "width": self.cap(base.width),
        }
        if self.images == "none":
            if base.images != "none":  # (else the app started so, and its reason stands)
                changes["images_off_reason"] = IMAGES_OFF_REASON
        elif self.colours == "none" and self.images in ("halfblock", "kitty"):
            # Half-block pixels are coloured cells, and kitty names its image by a colour:
            # with no colour neither shows anything, so say so instead of drawing blank cells.
            changes["images"] = "none"
            changes["images_off_reason"] = NO_COLOUR_REASON
        elif self.colours == "16" and "kitty" in base.graphics.protocols:
            changes["graphics"] = replace(
                base.graphics,
                protocols=base.graphics.protocols - {"kitty"},
                reason="kitty names an image by a colour, which 16 colours cannot carry",
            )
        return replace(base, **changes)

    def asset(self, envelope: Envelope, asset: Asset | None) -> Asset | None:
        """The asset a renderer sees: with fetching off, a URL's bytes are not here (even ones
        stored earlier: the lab shows what a client that does not fetch shows). A URL the
        policy refused keeps its refusal: that is true whether fetching is on or off."""
        if self.fetching or (asset is not None and asset.failure == "refused"):
            return asset
        media = envelope.media_ref
        if media is None or media.url is None or media.base64 is not None:
            return asset
        return Asset(url=media.url, error=FETCH_OFF_REASON, failure="not-fetched")

    def with_switch(self, switch: str, value: str) -> Profile:
        """This profile with one switch set, from the words a command or a flag uses:
        ``images`` kitty/sixel/halfblock/none, ``colours`` truecolor/256/16/none, ``audio`` and
        ``fetching`` on/off, ``width`` a number of columns or ``full``. Raises `ValueError`
        with a sentence for anything else."""
        if switch == "images":
            if value not in IMAGE_MODES:
                raise ValueError(f"images must be one of {', '.join(IMAGE_MODES)}, not {value!r}")
            return replace(self, images=value)
        if switch == "colours":
            if value not in COLOURS:
                raise ValueError(f"colours must be one of {', '.join(COLOURS)}, not {value!r}")
            return replace(self, colours=value)
        if switch in ("audio", "fetching"):
            if value not in ("on", "off"):
                raise ValueError(f"{switch} must be on or off, not {value!r}")
            on = value == "on"
            return replace(self, audio=on) if switch == "audio" else replace(self, fetching=on)
        if switch == "width":
            return replace(self, width=parse_width(value))
        raise ValueError(f"no such switch {switch!r}: images, colours, audio, fetching or width")

    def describe(self, no_audio: str | None = None) -> str:
        """One line: ``images half-blocks · colours 16 · audio off · fetching on · width 80``.

        ``no_audio``: why this machine plays no sound (``no PortAudio``), when it cannot; audio
        then reads ``off (no PortAudio)`` whatever the switch says, as the items do."""
        audio = "on" if self.audio else "off"
        if no_audio:
            audio = f"off ({no_audio})"
        return " · ".join(
            (
                f"images {IMAGE_LABELS[self.images]}",
                f"colours {COLOUR_LABELS[self.colours]}",
                f"audio {audio}",
                f"fetching {'on' if self.fetching else 'off'}",
                f"width {width_label(self.width)}",
            )
        )


#: The profiles the matrix view draws an envelope under, by name (each one switch away from
#: the active profile, so the difference on screen is that switch's).
PRESETS: tuple[tuple[str, dict[str, object]], ...] = (
    ("half-blocks", {"images": "halfblock"}),
    ("no images", {"images": "none"}),
    ("16 colours", {"colours": "16"}),
    ("no audio", {"audio": False}),
    ("80 columns", {"width": 80}),
)


def preset(base: Profile, changes: dict[str, object]) -> Profile:
    """``base`` with one preset's switches."""
    return replace(base, **changes)  # type: ignore[arg-type]


@lru_cache(maxsize=4096)
def downgrade_style(style: Style, colours: Colours) -> Style:
    """``style`` with its colours brought down to ``colours`` (``none``: no colour; bold,
    italic, underline, links and click actions are kept)."""
    if colours == "truecolor":
        return style
    if colours == "none":
        return style.without_color
    system = _SYSTEMS[colours]
    assert system is not None
    color = style.color.downgrade(system) if style.color is not None else None
    bgcolor = style.bgcolor.downgrade(system) if style.bgcolor is not None else None
    if color is style.color and bgcolor is style.bgcolor:
        return style
    return style + Style.from_color(color, bgcolor)


def downgrade_segments(segments: Iterable[Segment], colours: Colours) -> list[Segment]:
    """Segments with every style brought down to ``colours``."""
    if colours == "truecolor":
        return list(segments)
    return [
        Segment(text, downgrade_style(style, colours), control)
        if style is not None and not control
        else Segment(text, style, control)
        for text, style, control in segments
    ]


class Downgraded:
    """A Rich renderable drawn in a lower colour system: what a screen outside the transcript
    (the matrix view) shows of a profile's colours."""

    def __init__(self, renderable: RenderableType, colours: Colours) -> None:
        self.renderable = renderable
        self.colours = colours

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines:
            yield from downgrade_segments(line, self.colours)
            yield Segment.line()
