"""The cell box an image takes, and the picture scaled into it.

A terminal cell is ``cell`` pixels (width, height), from the probe or a common default. An image
is scaled down (never up) to fit ``columns`` x ``rows`` cells keeping its aspect ratio; the box
is the cells that scaled picture covers. For kitty, which stretches an image over its cells, the
picture is laid on a canvas of exactly the box's pixels, in the theme's background colour, so
it is never distorted; sixel draws pixels as they are and gets the picture alone.
Transparency is laid on the background too: terminals draw no alpha the same way.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Pillow is imported when a picture is drawn, not with this module: the app's first
    # frame does not wait for it (tests/ui/test_first_frame.py).
    from PIL import Image


__all__ = ["cell_box", "flatten", "picture"]


def cell_box(
    size: tuple[int, int], box: tuple[int, int], cell: tuple[int, int]
) -> tuple[tuple[int, int], tuple[int, int]]:
    """``(picture pixels, cells)`` for an image of ``size`` pixels in at most ``box`` cells.

    The picture keeps the aspect ratio (to the pixel) and is never enlarged; the cells are the
    smallest box of whole cells that holds it.
    """
    (width, height), (columns, rows) = size, box
    cell_w, cell_h = max(1, cell[0]), max(1, cell[1])
    width, height = max(1, width), max(1, height)
    scale = min(1.0, max(1, columns) * cell_w / width, max(1, rows) * cell_h / height)
    pixels = (max(1, math.floor(width * scale)), max(1, math.floor(height * scale)))
    cells = (
        min(max(1, columns), math.ceil(pixels[0] / cell_w)),
        min(max(1, rows), math.ceil(pixels[1] / cell_h)),
    )
    return pixels, cells


def flatten(image: Image.Image, background: str) -> Image.Image:
    """``image`` as RGB, its transparent parts laid on ``background`` (``#RRGGBB``)."""
    if image.mode == "RGB":
        return image
    from PIL import Image, ImageColor  # (when a picture is drawn: see TYPE_CHECKING)

    rgba = image.convert("RGBA")
    canvas = Image.new("RGBA", rgba.size, ImageColor.getrgb(background))
    canvas.alpha_composite(rgba)
    return canvas.convert("RGB")


def picture(
    image: Image.Image,
    pixels: tuple[int, int],
    background: str,
    canvas: tuple[int, int] | None = None,
) -> Image.Image:
    """``image`` (already its first frame) scaled to ``pixels`` over ``background``, as RGB.

    Args:
        image: The image, already its first frame.
        pixels: The size to scale it to, ``(width, height)`` in pixels.
        background: The colour transparency is flattened onto, as a CSS colour (``#rrggbb``).
        canvas: When given, the size in pixels of a board of the background the image is laid at the
            top left of; None returns the scaled image alone.
    """
    from PIL import Image, ImageColor  # (when a picture is drawn: see TYPE_CHECKING)

    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        alpha = "A" in image.getbands() or "transparency" in image.info
        image = image.convert("RGBA" if alpha else "RGB")
    # Scaled at the source's own mode (Pillow premultiplies alpha), then flattened.
    scaled = flatten(image.resize(pixels, Image.Resampling.LANCZOS, reducing_gap=3.0), background)
    if canvas is None or canvas == pixels:
        return scaled
    board = Image.new("RGB", canvas, ImageColor.getrgb(background))
    board.paste(scaled, (0, 0))
    return board
