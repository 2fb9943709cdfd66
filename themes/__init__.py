"""Themes shipped with openwop-tui (installed as ``openwop_tui.themes``).

Textual `Theme` objects; the app registers them at start so ``theme = "openwop"`` works in the
config file alongside Textual's built-in themes.
"""

from __future__ import annotations

from textual.theme import Theme

OPENWOP = Theme(
    name="openwop",
    primary="#4EA1D3",
    secondary="#7A8FA6",
    accent="#F2A541",
    warning="#F2C14E",
    error="#E5534B",
    success="#57AB5A",
    background="#111418",
    surface="#1A1F25",
    panel="#232A31",
    dark=True,
)

THEMES = (OPENWOP,)
