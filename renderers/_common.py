"""Helpers shared by the renderers: sizes, durations, media bytes and the degradation block.

Sizes follow `openwop_tui.text.units` (decimal, exact bytes in parentheses).

`load_media` finds a media envelope's bytes (inline base64 or the fetched `Asset`) and, when there
are none, the reason. `degraded_block` draws what the client knows about something it cannot show
here: what it is, why it is not shown, and where to get it. Never a bare ``[image/png]``.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rich import box
from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from openwop_tui.draw.palette import Palette
from openwop_tui.protocol.envelopes import Envelope, MediaRef
from openwop_tui.renderers.base import Action, Code, Degradation, RenderContext, Rendered
from openwop_tui.text.sanitize import clean, safe_filename
from openwop_tui.text.units import exact_size, human_size

SAVE = Action("save", "Save")
OPEN = Action("open", "Open")

#: An URL scheme, as RFC 3986 spells it (what `urlsplit` would find, without its exceptions).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")

#: Base64 grows data by 4/3; this much extra tolerates padding and line breaks.
_BASE64_SLACK = 1024

#: Extensions for common media types, so a saved name does not depend on /etc/mime.types.
_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/ogg": ".ogg",
    "audio/mpeg": ".mp3",
    "audio/flac": ".flac",
    "application/pdf": ".pdf",
    "application/json": ".json",
    "text/plain": ".txt",
}


def extension(media_type: str | None) -> str:
    """A file extension (with the dot) for a media type, or ``""``."""
    if not media_type:
        return ""
    base = media_type.split(";", 1)[0].strip().lower()
    return _EXTENSIONS.get(base) or mimetypes.guess_extension(base, strict=False) or ""


def join(*parts: str | None) -> str:
    """Join the non-empty parts with `` · `` (parts are assumed already clean)."""
    return " · ".join(part for part in parts if part)


@dataclass(frozen=True, slots=True)
class Media:
    """A media envelope's bytes, or why there are none, and everything advertised about it.

    All strings are already cleaned for the terminal, except ``data``.
    """

    family: str
    data: bytes | None
    error: str | None
    """Why there are no bytes (``None`` when ``data`` is set)."""
    error_code: Code | None
    """The kind of ``error``, as a degradation code."""
    inline: bool
    """The bytes came (or would have come) from inline base64 rather than a URL."""
    url: str | None
    media_type: str | None
    advertised: int | None
    name: str | None
    alt: str | None
    title: str | None
    filename: str
    """A safe name to save the bytes under."""
    save_hint: str = "press s to save"
    """How the user saves bytes that are here (from `RenderContext.save_hint`)."""
    palette: Palette = field(default_factory=Palette.default)
    """The colours to draw with (from `RenderContext.palette`)."""

    @property
    def size_text(self) -> str | None:
        """The real size and, when it differs, the advertised one; ``None`` if neither is known."""
        if self.data is None:
            return None if self.advertised is None else exact_size(self.advertised)
        real = exact_size(len(self.data))
        if self.advertised is None or self.advertised == len(self.data):
            return real
        return f"{real}; the host advertised {exact_size(self.advertised)}"

    @property
    def where(self) -> str:
        """Where the user can get the thing: here (``save_hint`` says how), or the URL."""
        save_hint = self.save_hint
        if self.data is not None:
            if self.inline:
                return f"inline data — {save_hint}"
            return f"{self.url} (downloaded — {save_hint})" if self.url else save_hint
        if self.url:
            # Not `urlsplit`: it raises on a malformed host (``https://[x]/a.png``).
            absolute = _SCHEME.match(self.url) is not None
            return self.url if absolute else f"{self.url} (relative to the host's base URL)"
        if self.inline:
            return "inline in the envelope only (not decoded; see the raw envelope)"
        if self.error_code is Code.FETCH_REFUSED:
            return "nowhere this client may fetch from (see why)"
        return "nowhere: the host sent neither a URL nor inline data"

    @property
    def reference(self) -> str | None:
        """How to get the real thing: the absolute URL, when there is one (a relative URL or
        inline bytes are no reference a user can follow; saving makes one)."""
        if self.url and _SCHEME.match(self.url) is not None:
            return self.url
        return None

    @property
    def shown_type(self) -> str:
        """The media type to name: the known one, else ``application/octet-stream`` (RFC 2046
        §4.5.1: "arbitrary binary data", what an untyped body is taken to be), so a placeholder
        always says what kind of thing it stands for."""
        return self.media_type or OCTET_STREAM

    @property
    def headline(self) -> str:
        """One line naming the thing: family, name or title, media type, size."""
        size = len(self.data) if self.data is not None else self.advertised
        shown_size = None if size is None else human_size(size)
        return join(self.family, self.name or self.title, self.shown_type, shown_size)

    def facts(self, *extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
        """Label/value rows describing the thing, with ``extra`` after the type and size."""
        return [
            ("name", self.name),
            ("title", self.title if self.title != self.name else None),
            ("type", self.shown_type),
            ("size", self.size_text),
            *extra,
            ("alt", self.alt),
        ]


#: The media type of bytes of no known type (RFC 2046 §4.5.1).
OCTET_STREAM = "application/octet-stream"


def media_ref(envelope: Envelope) -> MediaRef | None:
    """The envelope's media reference; for a vendor kind hinted as media, read from its payload."""
    return envelope.media_ref


def load_media(envelope: Envelope, context: RenderContext, family: str) -> Media:
    """Find the bytes of a media envelope: inline base64 first, then the fetched asset."""
    ref = media_ref(envelope)
    asset = context.asset
    data: bytes | None = None
    error: str | None = None
    code: Code | None = None
    url = (asset.url if asset and asset.url else None) or (ref.url if ref else None)
    inline = ref is not None and ref.base64 is not None
    if ref is not None and ref.base64 is not None:
        data, error, code = _decode_inline(ref.base64, context.max_inline_bytes)
    elif asset is not None:
        data, error = asset.data, (None if asset.data is not None else asset.error or "not fetched")
        code = None if asset.data is not None else _ASSET_CODES[asset.failure]
    elif url is not None:
        error = "not fetched: the client has not downloaded this asset"
        code = Code.NOT_FETCHED
    else:
        error = "the envelope carries neither a url nor base64 data"
        code = Code.NO_DATA

    media_type = envelope.mime_type or (asset.content_type if asset else None)
    # What the payload says of the thing even when there is no URL or data to get it by: a
    # placeholder keeps every field it was given (name, size, type, alt).
    facts = envelope.media_facts
    name = facts.name if facts else None
    title = envelope.rendering.title
    alt = envelope.alt
    fallback = f"{clean(title) if title else family}{extension(media_type)}"
    return Media(
        family=family,
        data=data,
        error=None if data is not None else clean(error or "unknown"),
        error_code=None if data is not None else (code or Code.FETCH_FAILED),
        inline=inline,
        url=clean(url) if url else None,
        media_type=clean(media_type) if media_type else None,
        advertised=facts.bytes if facts else None,
        name=clean(name) if name else None,
        alt=clean(alt) if alt else None,
        title=clean(title) if title else None,
        filename=safe_filename(name, fallback),
        save_hint=clean(context.save_hint),
        palette=context.palette,
    )


#: How each kind of failed fetch reads as a degradation.
_ASSET_CODES = {
    "refused": Code.FETCH_REFUSED,
    "too-large": Code.TOO_LARGE,
    "failed": Code.FETCH_FAILED,
    "not-fetched": Code.NOT_FETCHED,
}

#: The badge's short cause for each code a media block can carry.
CAUSES = {
    Code.NO_DATA: "no data",
    Code.NOT_FETCHED: "not fetched",
    Code.FETCH_REFUSED: "URL refused",
    Code.FETCH_FAILED: "download failed",
    Code.TOO_LARGE: "too large",
    Code.BAD_DATA: "bad data",
    Code.UNSUPPORTED: "unsupported format",
    Code.IMAGES_OFF: "images off",
    Code.NO_GRAPHICS: "no pixel protocol",
    Code.FIRST_FRAME: "animated",
    Code.NO_AUDIO: "no audio output",
    Code.NO_TEXT: "no text",
    Code.RENDERER_FAILED: "renderer failed",
    Code.UNKNOWN_DISPLAY: "unknown display",
    Code.CUT: "cut",
    Code.NOT_RUN: "not executed",
}


def _decode_inline(text: str, cap: int) -> tuple[bytes | None, str | None, Code | None]:
    # Refuse before decoding: the cap is the host's own promise, and a host that breaks it should
    # not make the client allocate whatever it sent.
    if len(text) > (cap + 2) // 3 * 4 + _BASE64_SLACK:
        approx = len(text) * 3 // 4
        return (
            None,
            (
                f"inline data larger than the host's advertised cap "
                f"(about {human_size(approx)} > {human_size(cap)})"
            ),
            Code.TOO_LARGE,
        )
    compact = "".join(text.split())
    try:
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True), None, None
    except (binascii.Error, ValueError) as error:
        return None, f"inline base64 is not valid ({error})", Code.BAD_DATA


def degradation(
    code: Code,
    reason: str,
    *,
    instead: str = "description",
    reference: str | None = None,
    cause: str | None = None,
) -> Degradation:
    """A `Degradation` with the code's usual short cause.

    Args:
        code: The degradation's stable code.
        reason: The sentence shown in the body and the inspector.
        instead: What was done instead, for the badge ("half-blocks", "description"…).
        reference: How the user gets the real thing: an absolute URL or a saved file's path; None
            for none.
        cause: The badge's short cause, overriding the code's usual one; None keeps it.
    """
    return Degradation(
        code=code,
        reason=reason,
        cause=cause or CAUSES.get(code, code.value),
        instead=instead,
        reference=reference,
    )


def degraded(
    media: Media,
    reason: str,
    *extra: tuple[str, str | None],
    code: Code | None = None,
    cause: str | None = None,
    duration_seconds: float | None = None,
) -> Rendered:
    """The result for media that cannot be shown: the what/why/where block, and ``save`` when the
    bytes are here anyway.

    Args:
        media: What is known of the media (family, facts, bytes, where it is).
        reason: Why it is not shown, one sentence.
        *extra: More ``(label, value)`` rows for the block.
        code: The degradation's code; None uses the media's own error code (for media without
            bytes), else bad data.
        cause: The badge's short cause; None for the code's usual one.
        duration_seconds: The clip's length, when known; None otherwise.
    """
    why = code or media.error_code or Code.BAD_DATA
    return Rendered(
        title=media.headline,
        body=degraded_block(media.family, media.facts(*extra), reason, media.where, media.palette),
        actions=(SAVE,) if media.data is not None else (),
        data=media.data,
        degradation=degradation(why, reason, cause=cause, reference=media.reference),
        media_type=media.media_type,
        filename=media.filename,
        duration_seconds=duration_seconds,
    )


def facts_table(rows: Iterable[tuple[str, str | None]]) -> Table:
    """A two-column grid of the rows whose value is known (values already clean)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")  # long URLs fold instead of losing their tail to "…"
    for label, value in rows:
        if value:
            table.add_row(label, Text(value))
    return table


def block(title: str, rows: Iterable[tuple[str, str | None]], border_style: str) -> Panel:
    """A bordered block of facts under a one-line ``title`` (clean text)."""
    return Panel(
        facts_table(rows),
        title=Text(title),
        title_align="left",
        box=box.ROUNDED,
        border_style=border_style,
        expand=False,
    )


def degraded_block(
    family: str,
    rows: Iterable[tuple[str, str | None]],
    why: str,
    where: str | None,
    palette: Palette | None = None,
) -> RenderableType:
    """The bordered "what / why / where" block shown instead of media that cannot be shown.

    Args:
        family: The media family, in the title ("image not shown here").
        rows: ``(label, value)`` rows of what the media is; a None value is left out.
        why: Why it is not shown.
        where: Where the real thing is; None when nowhere.
        palette: The theme's colours (the border); None for the default theme's.
    """
    border = (palette or Palette.default()).degraded_border
    return block(f"{family} not shown here", [*rows, ("why", why), ("where", where)], border)


def fallback_shows(envelope: Envelope) -> str:
    """What the JSON fallback shows of ``envelope``: ``text`` for a lifted hint (the reply's
    text is all there is), ``text and JSON`` for an envelope that came with the reply's text,
    else ``JSON`` (see `openwop_tui.renderers.json.render_json`)."""
    text = envelope.text
    if not text or not text.strip():
        return "JSON"
    if envelope.document is None and envelope.payload == text:
        return "text"
    return "text and JSON"


def text_of(envelope: Envelope, keys: tuple[str, ...]) -> str | None:
    """The text to draw: ``envelope.text``, a string payload, or the first string under ``keys``."""
    if envelope.text is not None:
        return envelope.text
    payload = envelope.payload
    if isinstance(payload, str):
        return payload
    if isinstance(payload, dict):
        for key in keys:
            value = payload.get(key)
            if isinstance(value, str):
                return value
    return None
