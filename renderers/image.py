"""The ``image`` renderer: real terminal pixels (kitty graphics, sixel), else half-blocks.

``context.images`` says how to draw; ``context.graphics`` says what the output takes. Kitty and
sixel are drawn by `openwop_tui.devices.graphics` into the cell box the image needs (scaled down,
never
up, keeping its aspect ratio, with the measured cell size); asked for one the output does not
take, the renderer draws half-blocks and records it (`Code.NO_GRAPHICS`: "sixel unavailable →
half-blocks"). ``Rendered.detail`` names what was drawn.

Half-blocks: each cell shows two pixels, one above the other (``▄`` with a background and a
foreground colour), so one pixel is one cell wide and half a cell tall and images keep their
aspect ratio. Pillow scales first with LANCZOS (rich-pixels' own ``resize`` uses
nearest-neighbour). Every mode is capped at `MAX_ROWS` rows so a tall image does not push the
chat off screen, and lays transparency on the theme's background.

Only web formats (PNG, JPEG, GIF, WebP) are decoded: the format is named from the first bytes
and anything else is refused before any decoder sees it (`Code.UNSUPPORTED`), and Pillow is
told to try only those four.

Decoding is guarded: the header is read first and an image with more pixels than
``context.max_image_pixels`` is not decoded (the decompression-bomb guard); an animation shows its
first frame only. Decoding is also budgeted process-wide (renderers run in worker threads): at
most `MAX_CONCURRENT_DECODES` images decode at once, within `DECODE_PIXEL_BUDGET` pixels in
flight, so a dozen small files that each decode to a huge bitmap are taken one or two at a time.
Whatever stops an image from being drawn, the user gets the what/why/where block.
A drawn image also carries its caption and its cell box.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from io import BytesIO
from typing import TYPE_CHECKING, Literal

from rich.console import Group, RenderableType
from rich.text import Text

from openwop_tui.devices.graphics import (
    WEB_FORMATS,
    KittyGraphic,
    SixelGraphic,
    cell_box,
    picture,
    sniff,
)
from openwop_tui.devices.graphics.formats import WEB_NAMES
from openwop_tui.devices.graphics.kitty import MAX_CELLS
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
from openwop_tui.renderers.base import Code, Degradation, RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead

if TYPE_CHECKING:
    # Pillow and rich-pixels are imported when an image is first drawn: the registry loads
    # this module at start, and the app's first frame does not wait for them
    # (tests/ui/test_first_frame.py).
    from PIL import Image
    from rich_pixels import Pixels

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


Pixel = Literal["kitty", "sixel"]


def _decode(image: Image.Image, size: tuple[int, int], background: str) -> tuple[Pixels, int]:
    """Decode the first frame and scale it to ``size`` half-block pixels; count the frames."""
    frames = _first_frame(image)
    return _pixels(image, size, background), frames


def _first_frame(image: Image.Image) -> int:
    """Load the first frame; the number of frames (counting GIF frames reads the whole file)."""
    frames = getattr(image, "n_frames", 1)
    image.seek(0)
    image.load()
    return int(frames)


def _draw_pixels(
    image: Image.Image,
    mode: Pixel,
    pixels: tuple[int, int],
    cells: tuple[int, int],
    context: RenderContext,
) -> tuple[KittyGraphic | SixelGraphic, int]:
    """Decode the first frame and encode it for ``mode`` (in a decoder thread: encoding costs); the
    graphic and the image's frame count.

    Args:
        image: The opened image.
        mode: ``kitty`` or ``sixel``.
        pixels: The size the picture is scaled to, ``(width, height)`` in pixels.
        cells: ``(columns, rows)`` the graphic covers.
        context: The drawing context (background colour, cell size, tmux, colours).
    """
    frames = _first_frame(image)
    background = context.palette.background
    if mode == "kitty":
        # kitty stretches an image over its cells: give it exactly their pixels, the picture
        # at the top left on the background, so it keeps its aspect ratio.
        cell_w, cell_h = context.graphics.cell_size
        canvas = (cells[0] * cell_w, cells[1] * cell_h)
        board = picture(image, pixels, background, canvas)
        graphics = context.graphics
        kitty = KittyGraphic(board, cells, tmux=graphics.tmux, truecolor=graphics.truecolor)
        return kitty, frames
    sixel = SixelGraphic(picture(image, pixels, background), cells, context.graphics.cell_size[1])
    return sixel, frames


#: Modes Pillow resizes directly; anything else (palette, CMYK, 16-bit…) is converted first.
_RESIZABLE = frozenset({"RGB", "RGBA", "L", "LA"})


def _fit(width: int, height: int, cells: int) -> tuple[int, int]:
    scale = min(1.0, max(cells, 1) / width, 2 * MAX_ROWS / height)
    fitted_w, fitted_h = max(1, round(width * scale)), max(1, round(height * scale))
    return fitted_w, fitted_h + fitted_h % 2  # half-blocks pair rows: keep the height even


def _pixels(image: Image.Image, size: tuple[int, int], background: str = "#000000") -> Pixels:
    from PIL import Image, ImageColor  # (see TYPE_CHECKING)
    from rich_pixels import HalfcellRenderer, Pixels

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


def drawing_mode(context: RenderContext) -> tuple[Pixel | Literal["halfblock"], Degradation | None]:
    """What is drawn for ``context``, and the fallback record when it is not what was asked."""
    wanted = context.images
    if wanted == "kitty" or wanted == "sixel":
        if wanted in context.graphics.protocols:
            return wanted, None
        reason = (
            f"{wanted} graphics are not available here ({context.graphics.reason}): "
            "drawn in half-blocks"
        )
        return "halfblock", degradation(
            Code.NO_GRAPHICS, reason, instead="half-blocks", cause=f"{wanted} unavailable"
        )
    return "halfblock", None


def _unsupported(media: Media) -> Rendered | None:
    """The result for bytes of a format that is not decoded, named from its first bytes
    (nothing parses them); ``None`` for a web format or bytes that look like nothing known."""
    assert media.data is not None
    name = sniff(media.data)
    if name is None or name in WEB_FORMATS:
        return None
    reason = f"{name} is not a web image format: not decoded (this client decodes {WEB_NAMES})"
    return degraded(
        media, reason, ("format", name), code=Code.UNSUPPORTED, cause=f"{name} not decoded"
    )


def _open(media: Media) -> Image.Image | Rendered:
    """The image opened (its header read, by a web-format decoder only), or the result saying
    why it cannot be."""
    from PIL import Image, UnidentifiedImageError  # (see TYPE_CHECKING)

    assert media.data is not None
    refused = _unsupported(media)
    if refused is not None:
        return refused
    what = media.media_type or "image"
    try:
        with warnings.catch_warnings():
            # Pillow's own bomb warning fires at a fixed limit; ours (below) is the one that counts.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(BytesIO(media.data), formats=WEB_FORMATS)
    except Image.DecompressionBombError as error:
        return degraded(
            media, f"not decoded (decompression-bomb guard): {error}", code=Code.TOO_LARGE
        )
    except UnidentifiedImageError:
        reason = f"cannot decode {what}: not a {WEB_NAMES.replace(' and ', ' or ')} image"
        return degraded(media, reason, code=Code.UNSUPPORTED)
    except (OSError, ValueError, SyntaxError) as error:
        return degraded(media, f"cannot decode {what}: {error}", code=Code.BAD_DATA)


@register("image", name="Image", needs_bytes=True, redraw_on_resize=True)
def render_image(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw an image in kitty graphics, sixel or half-blocks, or say exactly why not and where
    to get it."""
    shown_as_text = text_instead(envelope, context)
    if shown_as_text is not None:
        return shown_as_text
    media = load_media(envelope, context, "image")
    if media.data is None:
        return degraded(media, media.error or "no image data")
    opened = _open(media)
    if isinstance(opened, Rendered):
        return opened
    from PIL import Image  # (loaded by `_open`: see TYPE_CHECKING)

    with opened as image:
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
        mode, fallback = drawing_mode(context)
        drawn: RenderableType
        try:
            if mode == "halfblock":
                size = _fit(width, height, context.width)
                cells = (size[0], size[1] // 2)
                image.draft(None, size)  # JPEG can decode at a fraction of full size: faster
                with DECODES.admit(image.size[0] * image.size[1]):
                    drawn, frames = _DECODER.submit(
                        _decode, image, size, context.palette.background
                    ).result()
            else:
                box = (min(context.width, MAX_CELLS), MAX_ROWS)
                pixels, cells = cell_box(image.size, box, context.graphics.cell_size)
                image.draft(None, pixels)
                with DECODES.admit(image.size[0] * image.size[1]):
                    drawn, frames = _DECODER.submit(
                        _draw_pixels, image, mode, pixels, cells, context
                    ).result()
        except (OSError, ValueError, SyntaxError, EOFError) as error:
            reason = f"cannot decode {media.media_type or 'image'}: {error}"
            return degraded(media, reason, ("dimensions", dimensions), code=Code.BAD_DATA)

    caption = _caption(media, dimensions, frames)
    if fallback is None and frames > 1:
        fallback = degradation(
            Code.FIRST_FRAME,
            f"an animated image of {frames:,} frames: only the first is drawn",
            instead="first frame",
        )
    return Rendered(
        title=media.headline,
        body=Group(drawn, caption),
        actions=(SAVE, OPEN),
        data=media.data,
        media_type=media.media_type,
        filename=media.filename,
        caption=caption,
        cells=cells,
        detail="half-blocks" if mode == "halfblock" else mode,
        fallback=fallback,
    )
