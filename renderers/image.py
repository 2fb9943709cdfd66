"""The ``image`` renderer: terminal pixels from half-block characters.

Each cell shows two pixels, one above the other (``▄`` with a background and a foreground colour),
so one pixel is one cell wide and half a cell tall and images keep their aspect ratio. Pillow
scales first with LANCZOS (rich-pixels' own ``resize`` uses nearest-neighbour); images are never
enlarged, and are capped at `MAX_ROWS` rows so a tall one does not push the chat off screen.

Decoding is guarded: the header is read first and an image with more pixels than
``context.max_image_pixels`` is not decoded (the decompression-bomb guard); an animation shows its
first frame only. Decoding is also budgeted process-wide (renderers run in worker threads): at
most `MAX_CONCURRENT_DECODES` images decode at once, within `DECODE_PIXEL_BUDGET` pixels in
flight, so a dozen small files that each decode to a huge bitmap are taken one or two at a time.
Whatever stops an image from being drawn, the user gets the what/why/where block.
A drawn image also carries its caption and its cell box on their own, so the app can draw the same
bytes with kitty graphics or sixel in the same space (`openwop_tui.widgets.pixel_image`).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from io import BytesIO

from PIL import Image, ImageColor, UnidentifiedImageError
from rich.console import Group, RenderableType
from rich.text import Text
from rich_pixels import HalfcellRenderer, Pixels

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import (
    OPEN,
    SAVE,
    Media,
    degradation,
    degraded,
    join,
    load_media,
)
from openwop_tui.renderers.base import Code, RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead

#: The tallest an image is drawn, in terminal rows (two pixels each).
MAX_ROWS = 24

#: Images decoding at once, in the whole process.
MAX_CONCURRENT_DECODES = 2

#: Pixels (width x height as decoded) of all images decoding at once: about 200 MB as RGBA.
#: One image past it still decodes, alone (its own ceiling is ``context.max_image_pixels``).
DECODE_PIXEL_BUDGET = 48_000_000


class DecodeBudget:
    """Admits image decodes while they fit: a count of decodes and a total of pixels in flight.

    A decode waits (in its worker thread) until both fit; one that is over the pixel budget on
    its own is admitted once nothing else is decoding, so it is never starved.
    """

    def __init__(
        self,
        max_concurrent: int = MAX_CONCURRENT_DECODES,
        max_pixels: int = DECODE_PIXEL_BUDGET,
    ) -> None:
        self.max_concurrent = max(1, max_concurrent)
        self.max_pixels = max_pixels
        self.active = 0
        """Decodes admitted and not finished."""
        self.pixels = 0
        """Pixels of the decodes admitted and not finished."""
        self._changed = threading.Condition()

    def fits(self, pixels: int) -> bool:
        """Whether a decode of ``pixels`` may start now (the caller holds no lock: a snapshot)."""
        if self.active >= self.max_concurrent:
            return False
        return self.active == 0 or self.pixels + pixels <= self.max_pixels

    @contextmanager
    def admit(self, pixels: int) -> Iterator[None]:
        """Hold a place for a decode of ``pixels`` for the ``with`` block, waiting for one."""
        with self._changed:
            self._changed.wait_for(lambda: self.fits(pixels))
            self.active += 1
            self.pixels += pixels
        try:
            yield
        finally:
            with self._changed:
                self.active -= 1
                self.pixels -= pixels
                self._changed.notify_all()


#: The process-wide budget every image decode goes through.
DECODES = DecodeBudget()

#: The threads decodes run on. Not the caller's: glibc gives each thread a malloc arena of its
#: own and keeps a freed bitmap's memory there, so twelve decodes taken one at a time across
#: twelve worker threads still held twelve bitmaps (1.7 GB measured); on two threads they hold
#: at most two.
_DECODER = ThreadPoolExecutor(MAX_CONCURRENT_DECODES, thread_name_prefix="image-decode")


def _decode(image: Image.Image, size: tuple[int, int], background: str) -> tuple[Pixels, int]:
    """Decode the first frame and scale it to ``size``; also count the frames."""
    frames = getattr(image, "n_frames", 1)  # counting GIF frames reads the whole file
    image.seek(0)
    image.load()
    return _pixels(image, size, background), frames


#: Modes Pillow resizes directly; anything else (palette, CMYK, 16-bit…) is converted first.
_RESIZABLE = frozenset({"RGB", "RGBA", "L", "LA"})


def _fit(width: int, height: int, cells: int) -> tuple[int, int]:
    scale = min(1.0, max(cells, 1) / width, 2 * MAX_ROWS / height)
    fitted_w, fitted_h = max(1, round(width * scale)), max(1, round(height * scale))
    return fitted_w, fitted_h + fitted_h % 2  # half-blocks pair rows: keep the height even


def _pixels(image: Image.Image, size: tuple[int, int], background: str = "#000000") -> Pixels:
    if image.mode not in _RESIZABLE:
        alpha = "A" in image.getbands() or "transparency" in image.info
        image = image.convert("RGBA" if alpha else "RGB")
    # Scale first, at the source's own mode (Pillow premultiplies alpha for RGBA and LA), with a
    # cheap integer reduction before LANCZOS; then lay what is left on the theme's background,
    # so a transparent area looks transparent (half-block cells have no alpha).
    small = image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0).convert("RGBA")
    canvas = Image.new("RGBA", size, ImageColor.getrgb(background))
    canvas.alpha_composite(small)
    pixels: Pixels = Pixels.from_image(canvas.convert("RGB"), renderer=HalfcellRenderer())
    return pixels


def _caption(media: Media, dimensions: str, frames: int) -> RenderableType:
    first = f"first of {frames:,} frames" if frames > 1 else None
    line = join(media.title, dimensions, media.media_type, media.size_text, first)
    details = Text(line, style=media.palette.muted)
    if media.alt:
        return Group(Text(media.alt, style="italic"), details)
    return details


@register("image", name="Image", needs_bytes=True, redraw_on_resize=True)
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
        return degraded(
            media, f"not decoded (decompression-bomb guard): {error}", code=Code.TOO_LARGE
        )
    except UnidentifiedImageError:
        return degraded(
            media,
            f"cannot decode {media.media_type or 'image'}: not a known format",
            code=Code.UNSUPPORTED,
        )
    except (OSError, ValueError, SyntaxError) as error:
        return degraded(
            media, f"cannot decode {media.media_type or 'image'}: {error}", code=Code.BAD_DATA
        )

    with image:
        width, height = image.size
        media = replace(media, media_type=media.media_type or Image.MIME.get(image.format or ""))
        dimensions = f"{width:,}x{height:,} px"
        if width * height > context.max_image_pixels:
            reason = (
                f"not decoded (decompression-bomb guard): {width * height:,} pixels "
                f"> {context.max_image_pixels:,} allowed"
            )
            return degraded(media, reason, ("dimensions", dimensions), code=Code.TOO_LARGE)
        if context.images == "none":
            reason = f"not drawn: {context.images_off_reason}"
            return degraded(media, reason, ("dimensions", dimensions), code=Code.IMAGES_OFF)
        try:
            size = _fit(width, height, context.width)
            image.draft(None, size)  # JPEG can decode at a fraction of full size: much faster
            decoded_w, decoded_h = image.size  # what draft left to decode
            with DECODES.admit(decoded_w * decoded_h):
                pixels, frames = _DECODER.submit(
                    _decode, image, size, context.palette.background
                ).result()
        except (OSError, ValueError, SyntaxError, EOFError) as error:
            reason = f"cannot decode {media.media_type or 'image'}: {error}"
            return degraded(media, reason, ("dimensions", dimensions), code=Code.BAD_DATA)

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
        detail="half-blocks",
        fallback=degradation(
            Code.FIRST_FRAME,
            f"an animated image of {frames:,} frames: only the first is drawn",
            instead="first frame",
        )
        if frames > 1
        else None,
    )
