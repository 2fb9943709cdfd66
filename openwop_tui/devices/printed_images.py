"""How images are drawn where ``render`` and ``run`` print a transcript (not the app): the
terminal asked only when stdout is one (`openwop_tui.devices.terminal`), else half-blocks or
nothing by the output's colour; and the Rich console options a kitty or sixel image needs to be
written at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from openwop_tui.devices.terminal import (
    DEFAULT_TIMEOUT,
    ImageSupport,
    Stream,
    detect_image_mode,
)

__all__ = ["for_printing", "graphics_console_options"]


def for_printing(
    requested: str,
    *,
    stdin: Stream,
    stdout: Stream,
    environ: Mapping[str, str],
    colour: bool,
    timeout: float = DEFAULT_TIMEOUT,
    colours: str | None = "truecolor",
) -> ImageSupport:
    """How ``render`` and ``run`` draw images on ``stdout``.

    ``kitty`` and ``sixel`` are drawn to any output, a pipe too (the console is made to pass them:
    `graphics_console_options`); ``auto`` asks the terminal when stdout (and stdin, where the
    answers come) is one, else draws half-blocks, or nothing when the output has no colour to draw
    them with.

    Args:
        requested: The ``images`` setting: ``auto``, ``kitty``, ``sixel``, ``halfblock`` or
            ``none``.
        stdin: The input, where the terminal answers.
        stdout: The output drawn on.
        environ: The environment (``TERM``, tmux, ``OPENWOP_TUI_IMAGES``…).
        colour: True when the output has colour to draw half-blocks with.
        timeout: Seconds to wait for the terminal's answers.
        colours: The console's colour system (Rich's name; None: no colour): ``--colors 16`` with
            ``--images kitty`` cannot name a kitty image (its id is the placeholders' colour), and
            the image then says so instead of vanishing.
    """
    if requested == "auto" and not (stdin.isatty() and stdout.isatty()):
        if colour:
            return ImageSupport("halfblock", "the output is not a terminal: half-blocks")
        return ImageSupport(
            "none", "the output is plain text (not a colour terminal, or NO_COLOR is set)"
        )
    support = detect_image_mode(
        requested, stdin=stdin, stdout=stdout, environ=environ, timeout=timeout
    )
    if support.mode == "halfblock" and not colour and requested == "auto":
        return ImageSupport("none", "the output has no colours (NO_COLOR is set)")
    if requested == "kitty":  # the console is made true colour for it, unless --colors says not
        return replace(support, colours=colours or "no")
    return support


def graphics_console_options(mode: str) -> dict[str, object]:
    """Rich `Console` options a printed transcript needs for ``mode``: kitty and sixel
    commands are control sequences, which Rich writes only to a terminal, so it is told the
    output is one; kitty names its image by the placeholders' colour, so colour is on."""
    if mode == "kitty":
        return {"force_terminal": True, "color_system": "truecolor", "no_color": False}
    if mode == "sixel":
        return {"force_terminal": True}
    return {}
