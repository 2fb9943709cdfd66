"""An image in real terminal pixels, kitty graphics or sixel, drawn by textual-image.

Used only when `openwop_tui.terminal` settled on kitty or sixel before the app started; the
renderer's half-block body stays the default, and stays what the line-cached history keeps. The
picture takes the cell box the half-blocks would have taken (never wider than the body, never
taller than the renderer's cap), so the transcript lays out the same in every mode.

textual-image is imported here on first use, never when this module is imported, and tamed first:

* its import-time probing is switched off (the queries it would send after Textual has taken stdin
  would race Textual's input thread): ``capture_terminal_response`` is replaced, before its
  renderables bind the name, by one that fails at once, and ``get_cell_size`` is given the cell
  size measured in ``__main__`` (or textual-image's own VT340 default) so it asks nothing either;
* its kitty mode writes the image straight to ``sys.__stdout__`` from inside ``render``, beside
  Textual's writer thread; those writes go through Textual's driver instead, in order with the
  frames (and nowhere under the headless test driver).

Those are textual-image 0.12 internals: if they are not where expected, the image is drawn in
half-blocks and the log says why, rather than letting the library probe a live terminal.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable
from io import BytesIO
from typing import Any, Literal

from PIL import Image
from textual.widget import Widget

from openwop_tui.renderers.base import Rendered
from openwop_tui.terminal import ImageSupport

log = logging.getLogger(__name__)

DEFAULT_CELL = (10, 20)
"""A cell's size in pixels when nobody said (textual-image's VT340 default)."""

KITTY_MAX_CELLS = 297
"""textual-image numbers kitty placeholder rows and columns with 297 diacritics: no more cells."""


class PixelsUnavailable(RuntimeError):
    """textual-image cannot be used here; the half-blocks are drawn instead."""


def fit_cells(
    source: tuple[int, int], box: tuple[int, int], cell: tuple[int, int]
) -> tuple[int, int]:
    """The cells (columns, rows) an image of ``source`` pixels fills inside ``box`` cells, when a
    cell is ``cell`` pixels, keeping its aspect ratio (to within half a cell)."""
    (width, height), (columns, rows), (cell_w, cell_h) = source, box, cell
    scale = min(columns * cell_w / max(width, 1), rows * cell_h / max(height, 1))
    fitted_columns = min(columns, max(1, round(width * scale / cell_w)))
    fitted_rows = min(rows, max(1, round(height * scale / cell_h)))
    return fitted_columns, fitted_rows


def scaled_picture(
    data: bytes, box: tuple[int, int], cell: tuple[int, int], limit: int | None = None
) -> tuple[Image.Image, tuple[int, int]]:
    """Decode ``data`` (first frame) and scale it to exactly the pixels of the cells it takes.

    textual-image stretches an image to its widget's cell box; handing it that many pixels
    already means it resizes nothing, and the aspect ratio is ours. Runs in a thread.
    """
    with warnings.catch_warnings():
        # The renderer has already applied the decompression-bomb guard to these bytes.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with Image.open(BytesIO(data)) as image:
            image.seek(0)
            columns, rows = fit_cells(image.size, box, cell)
            if limit is not None:
                columns, rows = min(columns, limit), min(rows, limit)
            size = (columns * cell[0], rows * cell[1])
            image.draft(None, size)
            alpha = "A" in image.getbands() or "transparency" in image.info
            picture = image.convert("RGBA" if alpha else "RGB")
    return picture.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0), (columns, rows)


_widgets: dict[str, Callable[..., Widget]] = {}
_loading = threading.Lock()


def _refuse_to_probe(*_args: Any, **_kwargs: Any) -> Any:
    from textual_image._terminal import TerminalError

    raise TerminalError("openwop-tui probes the terminal itself, before the app starts")


def _send_through_textual(*, payload: str | None = None, **keys: int | str | None) -> None:
    """textual-image's kitty message writer, sending through Textual's driver, not stdout."""
    from textual._context import active_app

    sequence = "".join(
        (
            "\x1b_G",
            ",".join(f"{key}={value}" for key, value in keys.items() if value is not None),
            f";{payload}" if payload else "",
            "\x1b\\",
        )
    )
    try:
        driver = getattr(active_app.get(), "_driver", None)
    except LookupError:
        return  # no app: the picture is not on any screen
    if driver is not None:
        driver.write(sequence)


def _load(cell: tuple[int, int]) -> None:
    """Import textual-image with its probing off; note the widget class for each protocol."""
    with _loading:
        if not _widgets:
            _load_once(cell)


def _load_once(cell: tuple[int, int]) -> None:
    try:
        from textual_image import _terminal

        for name in ("capture_terminal_response", "get_cell_size", "CellSize"):
            getattr(_terminal, name)  # they must be there to be replaced
        if not hasattr(_terminal.get_cell_size, "_result"):
            setattr(_terminal.get_cell_size, "_result", _terminal.CellSize(*cell))  # noqa: B010
        setattr(_terminal, "capture_terminal_response", _refuse_to_probe)  # noqa: B010
        # The renderables' package probes when imported: only now that probing fails at once.
        from textual_image.renderable import sixel, tgp
        from textual_image.renderable.tgp import Image as KittyRenderable
        from textual_image.widget import SixelImage, TGPImage

        for module in (sixel, tgp):  # bound by name there: replaced again for later calls
            setattr(module, "capture_terminal_response", _refuse_to_probe)  # noqa: B010
        getattr(tgp, "_send_tgp_message")  # noqa: B009
        setattr(tgp, "_send_tgp_message", _send_through_textual)  # noqa: B010
    except (ImportError, AttributeError) as error:
        raise PixelsUnavailable(f"textual-image is not usable: {error}") from error

    class KittyPicture(TGPImage, Renderable=KittyRenderable):
        """The kitty picture, deleted from the terminal's memory when it leaves the screen."""

        def on_unmount(self) -> None:
            renderable = getattr(self, "_renderable", None)
            if renderable is not None:
                renderable.cleanup()
                self._renderable = None

    _widgets.update(kitty=KittyPicture, sixel=SixelImage)


def picture_widget(
    mode: Literal["kitty", "sixel"], picture: Image.Image, cells: tuple[int, int]
) -> Widget:
    """The textual-image widget for a prepared picture (textual-image must be loaded)."""
    widget = _widgets[mode](picture, classes="pixels")
    widget.styles.width, widget.styles.height = cells
    return widget


def prepare(
    rendered: Rendered, support: ImageSupport
) -> tuple[Literal["kitty", "sixel"], Image.Image, tuple[int, int]] | None:
    """Everything slow for a picture, for a thread: import, decode, scale. ``None`` when the
    half-blocks should be drawn instead (degraded, not an image, or textual-image unusable)."""
    mode = support.mode
    if mode == "halfblock" or mode == "none" or rendered.degraded or rendered.caption is None:
        return None
    if rendered.data is None or rendered.cells is None:
        return None
    cell = support.cell_size or DEFAULT_CELL
    try:
        _load(cell)
        limit = KITTY_MAX_CELLS if mode == "kitty" else None
        picture, cells = scaled_picture(rendered.data, rendered.cells, cell, limit)
    except Exception as error:  # draw the half-blocks: never crash on a picture
        log.warning("drawing %s in half-blocks: %s: %s", mode, type(error).__name__, error)
        return None
    return mode, picture, cells
