"""What this machine's output can do: draw pixels (which protocols, what cell size), play sound.

The devices probe it (`openwop_tui.devices.terminal`, `openwop_tui.devices.audio`); the
renderers are told it in their context (`openwop_tui.renderers.base.RenderContext`), so these
types live on the devices' floor, below the renderers. Pure data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["AudioSupport", "Graphics", "ImageMode"]

ImageMode = Literal["kitty", "sixel", "halfblock", "none"]
"""How images are asked to be drawn: kitty graphics, sixel, half-block characters, or not at all."""


@dataclass(frozen=True, slots=True)
class Graphics:
    """What the output can draw in real pixels (from the terminal probe, or forced by a flag).

    A renderer asked for ``kitty`` or ``sixel`` draws it only when the protocol is in
    ``protocols``; otherwise it draws half-blocks and says why (``reason``).
    """

    protocols: frozenset[str] = frozenset()
    """The pixel protocols the output takes: ``kitty``, ``sixel``."""
    cell_size: tuple[int, int] = (10, 20)
    """One cell in pixels (width, height): measured by the probe, else a common size."""
    tmux: bool = False
    """Inside tmux: kitty commands are wrapped in its passthrough sequence."""
    truecolor: bool = True
    """The output writes 24-bit colours (kitty ids are colours; else they are 256-colour
    indices)."""
    reason: str = "the terminal offers no pixel graphics"
    """Why a protocol not in ``protocols`` is not there (for the fallback's sentence)."""


@dataclass(frozen=True, slots=True)
class AudioSupport:
    """Whether this machine can play sound, and if not, why (shown to the user verbatim)."""

    available: bool
    reason: str | None = None
