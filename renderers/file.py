"""The ``file`` renderer: a download chip, and an inline preview for a text-like file.

It shows what the file is (safe name, media type, advertised and real size, alt, title) and
offers ``save`` and ``open`` when the bytes are here; when they are not (the fetch was refused or
failed, or only a URL came), it degrades with the reason and the URL. A text-like file (JSON,
CSV, Markdown, source code …) also shows its first lines, highlighted, or its first rows as a
table (`openwop_tui.renderers.preview`); binary content never previews as text.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import OPEN, SAVE, block, degradation, degraded, load_media
from openwop_tui.renderers.base import Code, RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead
from openwop_tui.renderers.preview import preview


@register("file", name="File", needs_bytes=True)
def render_file(envelope: Envelope, context: RenderContext) -> Rendered:
    """Describe a file, preview it when it is text, and offer to save or open it."""
    shown_as_text = text_instead(envelope, context)
    if shown_as_text is not None:
        return shown_as_text
    media = load_media(envelope, context, "file")
    if media.data is None:
        return degraded(media, media.error or "no file data")
    name = media.name or media.title or media.filename
    found = preview(media.data, media.media_type, media.filename, context.palette, media.save_hint)
    rows = [*media.facts(), ("save as", media.filename), ("where", media.where)]
    if found is not None and found.refused is not None:
        rows.append(("preview", f"none: {found.refused}"))
    chip = block(f"file · {name}", rows, context.palette.border)
    body: RenderableType = chip
    detail = fallback = None
    if found is not None and found.body is not None:
        parts: list[RenderableType] = [chip, found.body]
        if found.note:
            parts.append(Text(found.note, style=context.palette.muted))
        body, detail = Group(*parts), f"preview · {found.kind}"
    elif found is not None and found.refused is not None:
        fallback = degradation(
            Code.BAD_DATA,
            f"not previewed: {found.refused}",
            instead="no preview",
            cause="binary content",
        )
    return Rendered(
        title=media.headline,
        body=body,
        actions=(SAVE, OPEN),
        data=media.data,
        media_type=media.media_type,
        filename=media.filename,
        detail=detail,
        fallback=fallback,
    )
