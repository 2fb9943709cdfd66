"""The ``image`` renderer: terminal pixels from half-block characters.

Each cell shows two pixels, one above the other (``▄`` with a background and a foreground colour),
so one pixel is one cell wide and half a cell tall and images keep their aspect ratio. Pillow
scales first with LANCZOS (rich-pixels' own ``resize`` uses nearest-neighbour); images are never
enlarged, and are capped at `MAX_ROWS` rows so a tall one does not push the chat off screen.

Decoding is guarded: the header is read first and an image with more pixels than
``context.max_image_pixels`` is not decoded (the decompression-bomb guard); an animation shows its
first frame only. Whatever stops an image from being drawn, the user gets the what/why/where block.
A drawn image also carries its caption and its cell box on their own, so the app can draw the same
bytes with kitty graphics or sixel in the same space (`openwop_tui.widgets.pixel_image`).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from io import BytesIO

from PIL import Image, UnidentifiedImageError
from rich.console import Group, RenderableType
from rich.text import Text
from rich_pixels import HalfcellRenderer, Pixels

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import OPEN, SAVE, Media, degraded, join, load_media
from openwop_tui.renderers.base import RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead

#: The tallest an image is drawn, in terminal rows (two pixels each).
MAX_ROWS = 24

#: Modes Pillow resizes directly; anything else (palette, CMYK, 16-bit…) is converted first.
_RESIZABLE = frozenset({"RGB", "RGBA", "L", "LA"})


def _fit(width: int, height: int, cells: int) -> tuple[int, int]:
    scale = min(1.0, max(cells, 1) / width, 2 * MAX_ROWS / height)
    fitted_w, fitted_h = max(1, round(width * scale)), max(1, round(height * scale))
    return fitted_w, fitted_h + fitted_h % 2  # half-blocks pair rows: keep the height even


def _pixels(image: Image.Image, size: tuple[int, int]) -> Pixels:
    if image.mode not in _RESIZABLE:
        alpha = "A" in image.getbands() or "transparency" in image.info
        image = image.convert("RGBA" if alpha else "RGB")
    # Scale first, at the source's own mode (Pillow premultiplies alpha for RGBA and LA), with a
    # cheap integer reduction before LANCZOS; then lay what is left on black, so a transparent
    # area shows as the dark background it has on most terminals.
    small = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0).convert("RGBA")
    canvas = Image.new("RGBA", size, (0, 0, 0, 255))
    canvas.alpha_composite(small)
    pixels: Pixels = Pixels.from_image(canvas.convert("RGB"), renderer=HalfcellRenderer())
    return pixels


def _caption(media: Media, dimensions: str, frames: int) -> RenderableType:
    first = f"first of {frames:,} frames" if frames > 1 else None
    line = join(media.title, dimensions, media.media_type, media.size_text, first)
    if media.alt:
        return Group(Text(media.alt, style="italic"), Text(line, style="dim"))
    return Text(line, style="dim")


@register("image")
def render_image(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw an image in half-block pixels, or say exactly why not and where to get it."""
    shown_as_text = text_instead(envelope, context)
    if shown_as_text is not None:
        return shown_as_text
    media = load_media(envelope, context, "image")
    if media.data is None:
        return degraded(media, media.error or "no image data")
    try:
        with warnings.catch_warnings():
            # Pillow's own bomb warning fires at a fixed limit; ours (below) is the one that counts.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(BytesIO(media.data))
    except Image.DecompressionBombError as error:
        return degraded(media, f"not decoded (decompression-bomb guard): {error}")
    except UnidentifiedImageError:
        return degraded(media, f"cannot decode {media.media_type or 'image'}: not a known format")
    except (OSError, ValueError, SyntaxError) as error:
        return degraded(media, f"cannot decode {media.media_type or 'image'}: {error}")

    with image:
        width, height = image.size
        media = replace(media, media_type=media.media_type or Image.MIME.get(image.format or ""))
        dimensions = f"{width:,}x{height:,} px"
        if width * height > context.max_image_pixels:
            reason = (
                f"not decoded (decompression-bomb guard): {width * height:,} pixels "
                f"> {context.max_image_pixels:,} allowed"
            )
            return degraded(media, reason, ("dimensions", dimensions))
        if context.images == "none":
            reason = f"not drawn: {context.images_off_reason}"
            return degraded(media, reason, ("dimensions", dimensions))
        try:
            frames = getattr(image, "n_frames", 1)  # counting GIF frames reads the whole file
            image.seek(0)
            size = _fit(width, height, context.width)
            image.draft(None, size)  # JPEG can decode at a fraction of full size: much faster
            image.load()
            pixels = _pixels(image, size)
        except (OSError, ValueError, SyntaxError, EOFError) as error:
            reason = f"cannot decode {media.media_type or 'image'}: {error}"
            return degraded(media, reason, ("dimensions", dimensions))

    caption = _caption(media, dimensions, frames)
    return Rendered(
        title=media.headline,
        body=Group(pixels, caption),
        actions=(SAVE, OPEN),
        data=media.data,
        media_type=media.media_type,
        filename=media.filename,
        caption=caption,
        cells=(size[0], size[1] // 2),
    )
