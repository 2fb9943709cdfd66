"""The colours of everything drawn as Rich renderables, taken from the Textual theme.

Widgets style themselves with theme variables in CSS (``$primary``, ``$text-muted``). Renderers,
`openwop_tui.present` and the printer build Rich renderables, which know nothing of CSS: they
take their styles from a `Palette` made from the active theme instead, so a light or a
high-contrast theme recolours every item, and no ANSI colour name ("cyan", "yellow") is written
anywhere else. Switching theme makes a new palette; views redraw with it.

Pure: reads a `Theme` object, touches no app.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

__all__ = ["DEFAULT_THEME", "Palette"]

DEFAULT_THEME = "textual-dark"


@dataclass(frozen=True, slots=True)
class Palette:
    """Semantic Rich style strings (``"bold #0178D4"``), one per role."""

    text: str
    """Body text."""
    muted: str
    """Secondary text: sizes, timings, lifecycle lines."""
    user: str
    """The "You" heading."""
    assistant: str
    """The "Assistant" heading of a finished reply."""
    streaming: str
    """The heading of a reply still arriving."""
    accent: str
    """Titles of envelopes, labels of facts."""
    success: str
    warning: str
    """Cut markers, degraded blocks, warnings."""
    error: str
    border: str
    """Borders of cards and blocks."""
    degraded_border: str
    """Border of a "not shown here" block."""
    selection: str
    """Background of the selected item."""
    match: str
    """Search matches."""
    code_theme: str
    """The Pygments style for code and JSON."""
    dark: bool

    @classmethod
    def from_theme(cls, theme: Theme) -> Palette:
        """The palette of a Textual theme (its generated colour system)."""
        colours = theme.to_color_system().generate()

        def hex_of(name: str, fallback: str) -> str:
            value = colours.get(name)
            if value is None or value.startswith("auto"):
                return fallback
            return Color.parse(value).hex6

        foreground = hex_of("foreground", "#E0E0E0" if theme.dark else "#1E1E1E")
        background = hex_of("background", "#121212" if theme.dark else "#EFEFEF")
        muted = Color.parse(foreground).blend(Color.parse(background), 0.4).hex6
        primary = hex_of("primary", "#0178D4")
        selection = Color.parse(primary).blend(Color.parse(background), 0.75).hex6
        return cls(
            text=foreground,
            muted=muted,
            user=f"bold {hex_of('secondary', primary) if not theme.dark else primary}",
            assistant=f"bold {hex_of('success', '#4EBF71')}",
            streaming=f"bold {hex_of('warning', '#FEA62B')}",
            accent=f"bold {hex_of('accent', primary)}",
            success=hex_of("success", "#4EBF71"),
            warning=hex_of("warning", "#FEA62B"),
            error=f"bold {hex_of('error', '#B93C5B')}",
            border=hex_of("border", primary),
            degraded_border=hex_of("warning", "#FEA62B"),
            selection=f"on {selection}",
            match=f"bold on {hex_of('accent', '#FEA62B')}",
            code_theme="monokai" if theme.dark else "friendly",
            dark=theme.dark,
        )

    @classmethod
    def default(cls) -> Palette:
        """The palette of the default theme, for printing outside the app."""
        return cls.from_theme(BUILTIN_THEMES[DEFAULT_THEME])
