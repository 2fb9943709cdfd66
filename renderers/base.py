"""The renderer contract: what a renderer is given and what it returns.

A renderer is any callable ``(envelope, context) -> Rendered``. It is pure: it never fetches,
never plays, never touches the app. The app (or the print mode) fetches a media envelope's bytes
first, under the media policy of `openwop_tui.protocol.media`, and hands the outcome in as
`RenderContext.asset`; a renderer decodes and draws what it is given, and when it cannot, it says
exactly what the thing is, why it is not shown and where to get it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from rich.console import RenderableType

from openwop_tui.palette import Palette
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.media import Asset

__all__ = ["Action", "Asset", "AudioSupport", "ImageMode", "RenderContext", "Rendered", "Renderer"]

ImageMode = Literal["halfblock", "none"]


@dataclass(frozen=True, slots=True)
class AudioSupport:
    """Whether this machine can play sound, and if not, why (shown to the user verbatim)."""

    available: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything a renderer may know about where it draws, and in which colours."""

    width: int = 80
    """Cells available for the body."""
    images: ImageMode = "halfblock"
    """How images are drawn: terminal half-block pixels, or not at all (``none``)."""
    audio: AudioSupport = field(default_factory=lambda: AudioSupport(False, "audio not probed"))
    asset: Asset | None = None
    """The fetched bytes (or the reason there are none) for an envelope with a ``url``."""
    images_off_reason: str = "image display is off (--images none)"
    """Why images are not drawn when ``images`` is ``none`` (shown to the user)."""
    save_hint: str = "press s to save"
    """How the user saves bytes that are here but not shown (the app has a key for it)."""
    max_inline_bytes: int = 262144
    """The host's ``maxInlineMediaBytes``: inline base64 larger than this is not decoded."""
    max_image_pixels: int = 40_000_000
    """Decompression-bomb guard: larger images are not decoded."""
    palette: Palette = field(default_factory=Palette.default)
    """The colours to draw with (from the app's active theme); renderers write no colour of
    their own."""

    @property
    def code_theme(self) -> str:
        """The Pygments style for code (the palette's)."""
        return self.palette.code_theme


@dataclass(frozen=True, slots=True)
class Action:
    """Something the user can do with a rendered envelope (the app draws it as a button)."""

    name: Literal["play", "stop", "save", "open", "copy"]
    label: str


@dataclass(frozen=True, slots=True)
class Rendered:
    """What the app draws for one envelope.

    ``body`` is a Rich renderable, so the same result serves the interactive app, the line-cached
    history and the non-interactive ``render`` / ``run`` commands.
    """

    title: str
    """One line naming the thing: family, media type, size, name."""
    body: RenderableType
    actions: tuple[Action, ...] = ()
    data: bytes | None = None
    """The decoded media bytes, kept for save / play / open."""
    degraded: str | None = None
    """Why the envelope is not shown in full here, or ``None`` when it is."""
    media_type: str | None = None
    filename: str | None = None
    """A safe file name to save the data under."""
    duration_seconds: float | None = None
    caption: RenderableType | None = None
    """For a drawn image: the lines under the pixels (alt text, dimensions), so a view that draws
    the pixels another way (kitty graphics, sixel) can keep them."""
    cells: tuple[int, int] | None = None
    """For a drawn image: the cell box (columns, rows) its half-block pixels take in ``body``."""


class Renderer(Protocol):
    """A function from an envelope and a context to something drawable."""

    def __call__(self, envelope: Envelope, context: RenderContext, /) -> Rendered: ...
