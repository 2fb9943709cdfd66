"""Real terminal pixels: kitty graphics and sixel encoders, and what feeds them.

One concern per module, none of them touching a terminal (they return strings):

* `formats`: which image formats are decoded at all (web formats only) and naming the others
  from their first bytes, before any decoder sees them;
* `fit`: the cell box an image takes, keeping its aspect ratio, and the picture scaled into it
  over the theme's background;
* `kitty`: the kitty graphics protocol (PNG payload, base64 in 4096-byte chunks, quiet replies)
  drawn as Unicode placeholder cells, so an image is ordinary text cells a scrolling view, a
  pipe or tmux carries;
* `sixel`: the sixel encoder (a Pillow-quantised palette, bands of six rows, run lengths);
* `tmux`: tmux's passthrough wrapping.

Half-blocks (two pixels a cell) stay with rich-pixels, in the image renderer.
"""

from __future__ import annotations

from openwop_tui.devices.graphics.fit import cell_box, picture
from openwop_tui.devices.graphics.formats import WEB_FORMATS, sniff
from openwop_tui.devices.graphics.kitty import KittyGraphic
from openwop_tui.devices.graphics.sixel import SixelGraphic
from openwop_tui.devices.graphics.tmux import passthrough

__all__ = [
    "WEB_FORMATS",
    "KittyGraphic",
    "SixelGraphic",
    "cell_box",
    "passthrough",
    "picture",
    "sniff",
]
