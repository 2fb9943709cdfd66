"""The ``file`` renderer: a download chip for a file the terminal does not draw.

It shows what the file is (safe name, media type, advertised and real size, alt, title) and
offers ``save`` and ``open`` when the bytes are here; when they are not (the fetch was refused or
failed, or only a URL came), it degrades with the reason and the URL.
"""

from __future__ import annotations

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import OPEN, SAVE, block, degraded, load_media
from openwop_tui.renderers.base import RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead


@register("file", name="File", needs_bytes=True)
def render_file(envelope: Envelope, context: RenderContext) -> Rendered:
    """Describe a file and offer to save or open it."""
    shown_as_text = text_instead(envelope, context)
    if shown_as_text is not None:
        return shown_as_text
    media = load_media(envelope, context, "file")
    if media.data is None:
        return degraded(media, media.error or "no file data")
    name = media.name or media.title or media.filename
    rows = [*media.facts(), ("save as", media.filename), ("where", media.where)]
    return Rendered(
        title=media.headline,
        body=block(f"file · {name}", rows, context.palette.border),
        actions=(SAVE, OPEN),
        data=media.data,
        media_type=media.media_type,
        filename=media.filename,
    )
