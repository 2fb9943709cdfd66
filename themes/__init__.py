"""Themes shipped with openwop-tui (installed as ``openwop_tui.themes``).

Textual `Theme` objects; the app registers them at start so ``theme = "openwop-light"`` works in
the config file alongside Textual's built-in themes, and Textual's theme picker (command palette,
"Change theme") lists them. Everything the app draws takes its colours from the active theme:
widgets through CSS variables, Rich renderables through `openwop_tui.draw.palette.Palette`.

* ``openwop-dark`` (the default; ``openwop`` is its old name, kept so existing config files work);
* ``openwop-light``: dark text on a warm white, accents dark enough to read on it;
* ``openwop-high-contrast``: white on pure black, saturated accents, and no dimmed text (the
  muted variables are plain white: secondary text is told apart by place, not by greyness).

Accent colours were chosen for a contrast ratio of at least 4.5 (7 for high contrast) against
the background; `Palette.from_theme` enforces the same floor on whatever theme is active.
"""

from __future__ import annotations

from dataclasses import replace

from textual.theme import Theme

__all__ = ["DARK", "DEFAULT", "HIGH_CONTRAST", "LIGHT", "OPENWOP", "THEMES"]

DEFAULT = "openwop-dark"
"""The theme used when neither the config file nor the remembered choice names one."""

DARK = Theme(
    name="openwop-dark",
    primary="#4EA1D3",
    secondary="#7A8FA6",
    accent="#F2A541",
    warning="#F2C14E",
    error="#E5534B",
    success="#57AB5A",
    foreground="#D7DCE2",
    background="#111418",
    surface="#1A1F25",
    panel="#232A31",
    dark=True,
)

OPENWOP = replace(DARK, name="openwop")
"""The dark theme under its first name, so ``theme = "openwop"`` keeps working."""

LIGHT = Theme(
    name="openwop-light",
    primary="#005A9C",
    secondary="#4F5D6E",
    accent="#A4510B",
    warning="#8A5A00",
    error="#B42318",
    success="#1E6B2F",
    foreground="#1C2128",
    background="#F7F5F0",
    surface="#EDEAE3",
    panel="#E2DED5",
    dark=False,
    variables={
        # Textual's muted text is the foreground at 60 % over the background: too faint here.
        "text-muted": "#4F5866",
        "footer-key-foreground": "#005A9C",
    },
)

HIGH_CONTRAST = Theme(
    name="openwop-high-contrast",
    primary="#00BFFF",
    secondary="#FFFFFF",
    accent="#FFD400",
    warning="#FFD400",
    error="#FF5C5C",
    success="#3DFF6E",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    dark=True,
    variables={
        "text-muted": "#FFFFFF",
        "text-disabled": "#D0D0D0",
        "border": "#FFFFFF",
        "border-blurred": "#BDBDBD",
        "footer-key-foreground": "#FFD400",
        "footer-description-foreground": "#FFFFFF",
        "block-cursor-background": "#FFD400",
        "block-cursor-foreground": "#000000",
        "block-cursor-text-style": "bold",
        "input-selection-background": "#00BFFF 50%",
    },
)

THEMES = (DARK, LIGHT, HIGH_CONTRAST, OPENWOP)
