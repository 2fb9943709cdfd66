"""The renderer contract: what a renderer is given and what it returns.

A renderer is any callable ``(envelope, context) -> Rendered``. It is pure: it never fetches,
never plays, never touches the app. The app (or the print mode) fetches a media envelope's bytes
first, under the media policy of `openwop_tui.protocol.media`, and hands the outcome in as
`RenderContext.asset`; a renderer decodes and draws what it is given, and when it cannot, it says
exactly what the thing is, why it is not shown and where to get it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from rich.console import RenderableType

from openwop_tui.devices.capabilities import AudioSupport, Graphics, ImageMode
from openwop_tui.draw.palette import Palette
from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.envelopes import Envelope

__all__ = [
    "Action",
    "Asset",
    "AudioSupport",
    "Code",
    "Degradation",
    "Graphics",
    "ImageMode",
    "LinkCheck",
    "RenderContext",
    "Rendered",
    "Renderer",
]

LinkCheck = Callable[[str], tuple[str | None, str | None]]
"""How a URL a renderer would offer to open is judged: ``(the URL to open, None)`` or
``(None, why not)``. Given by the pipeline (`openwop_tui.core.conversation`), which holds the media
policy: renderers never import the HTTP client or its URL parser."""


@dataclass(frozen=True, slots=True)
class RenderContext:
    """Everything a renderer may know about where it draws, and in which colours."""

    width: int = 80
    """Cells available for the body."""
    images: ImageMode = "halfblock"
    """How images are asked to be drawn (kitty, sixel, half-blocks, not at all)."""
    graphics: Graphics = field(default_factory=Graphics)
    """What the output can draw in pixels: a kitty or sixel request it cannot take falls back."""
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
    link_check: LinkCheck | None = None
    """The client's policy for URLs offered to a browser (an embed's); ``None``: nothing is
    offered, and the item says the link was not checked."""
    palette: Palette = field(default_factory=Palette.default)
    """The colours to draw with (from the app's active theme); renderers write no colour of
    their own."""

    @property
    def code_theme(self) -> str:
        """The Pygments style for code (the palette's)."""
        return self.palette.code_theme


class Code(StrEnum):
    """Why something is not drawn or played as well as it could be: a stable code.

    The codes are data (tests, the inspector, exports and plugins match on them); the sentence a
    user reads is `Degradation.reason`.
    """

    NO_DATA = "no-data"
    """The envelope carries neither a URL nor inline bytes."""
    NOT_FETCHED = "not-fetched"
    """There is a URL, but the client did not download it (offline, or fetching is off)."""
    FETCH_REFUSED = "fetch-refused"
    """The media policy refused the URL (scheme, private address, redirect …)."""
    FETCH_FAILED = "fetch-failed"
    """The download failed (HTTP error, timeout, connection)."""
    TOO_LARGE = "too-large"
    """Over a size, pixel or decoded-length cap."""
    BAD_DATA = "bad-data"
    """The bytes are here but are not what they claim (invalid base64, corrupt file)."""
    UNSUPPORTED = "unsupported-format"
    """A format this client does not decode on purpose (not a web image format …)."""
    IMAGES_OFF = "images-off"
    """Image display is switched off."""
    NO_GRAPHICS = "no-graphics"
    """The terminal has no pixel protocol (kitty, sixel): drawn with half-blocks instead."""
    FIRST_FRAME = "first-frame"
    """An animated image: only its first frame is drawn."""
    NO_AUDIO = "no-audio"
    """No PortAudio, no output device, or audio switched off."""
    NO_TEXT = "no-text"
    """A text hint without text, or a media hint without media (shown another way)."""
    RENDERER_FAILED = "renderer-failed"
    """The renderer raised: the JSON view is shown instead."""
    UNKNOWN_DISPLAY = "unknown-display"
    """A display hint no renderer is registered for: the JSON view is shown."""
    CUT = "cut"
    """Shown in part: the rest is over a bound (the full text is saved)."""
    NOT_RUN = "not-run"
    """Active content (a web canvas, HTML) that a terminal does not execute."""
    HINT_SET_ASIDE = "hint-set-aside"
    """A rendering hint naming a renderer unfit for the envelope's type: the type's own
    renderer drew it (RFC 0055: the hint never overrides the type)."""


@dataclass(frozen=True, slots=True)
class Degradation:
    """What a renderer could not do here, why, and where to get the thing: data, not a string.

    ``cause`` and ``instead`` make the item's badge ("sixel unavailable → half-blocks", "no
    audio device → saved to …"); ``reason`` is the sentence shown in the body and the inspector.
    ``reference`` is how the user gets the real thing: an absolute URL or a saved file's path,
    never a content hash (a hash gets nobody anything).
    """

    code: Code
    reason: str
    """One sentence a user reads (already clean for the terminal)."""
    cause: str
    """A few words for the badge: "sixel unavailable", "no audio device", "images off"."""
    instead: str
    """What was done instead: "half-blocks", "description", "JSON", "saved to …"."""
    reference: str | None = None

    @property
    def badge(self) -> str:
        """``cause → instead``."""
        return f"{self.cause} → {self.instead}"


@dataclass(frozen=True, slots=True)
class Action:
    """Something the user can do with a rendered envelope (the app draws it as a button).

    The app carries out ``play``, ``stop``, ``save``, ``open`` and ``copy`` itself; any other
    name is a renderer's own action, carried out by the handler its registry declaration names
    (`openwop_tui.renderers.registry.PluginAction`). ``key`` is the single key that runs it in
    the transcript, when the renderer asked for one the view does not already use.
    """

    name: str
    label: str
    key: str | None = None


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
    degradation: Degradation | None = None
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
    fallback: Degradation | None = None
    """Shown in full, but not the best way: "sixel unavailable → half-blocks", "animated: first
    frame"."""
    renderer: str = ""
    """The registry key of the renderer that drew this (set by the registry)."""
    detail: str | None = None
    """How it was drawn, for the badge: "half-blocks", "kitty", "python" (a code language)."""
    hint: Degradation | None = None
    """The rendering hint was set aside for the envelope's type ("hint code unfit for
    media.image → image"); kept apart from ``fallback`` so both can show."""

    @property
    def degraded(self) -> str | None:
        """The sentence saying why this is not shown in full, or ``None``."""
        return self.degradation.reason if self.degradation is not None else None

    @property
    def badge(self) -> str:
        """The small label under an item: the renderer that drew it and, when one ran, the
        fallback and why ("image · half-blocks · sixel unavailable → half-blocks")."""
        # The fallback names what was drawn already ("→ half-blocks"): the detail would repeat it.
        repeated = self.fallback is not None and self.fallback.instead == self.detail
        parts = [self.renderer or "renderer", None if repeated else self.detail]
        for note in (self.hint, self.fallback, self.degradation):
            if note is not None:
                parts.append(note.badge)
        return " · ".join(part for part in parts if part)


class Renderer(Protocol):
    """A function from an envelope and a context to something drawable."""

    def __call__(self, envelope: Envelope, context: RenderContext, /) -> Rendered: ...
