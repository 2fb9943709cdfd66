"""The `Palette` of a Textual theme: the one place a theme's colours become Rich styles.

`openwop_tui.draw.palette` builds a palette from plain ``#RRGGBB`` colours and imports no
Textual; this module reads a Textual `Theme` (its generated colour system, where a variable may
be an ANSI name, ``auto``, or carry an alpha) into those colours. Views ask for it on every
draw, so `of` remembers the palette of each theme.
"""

from __future__ import annotations

from functools import cache

from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES, Theme

from openwop_tui.draw.palette import Palette

__all__ = ["from_theme", "named", "of"]

#: The theme variables a palette is made from.
NAMES = (
    "foreground",
    "text-muted",
    "primary",
    "secondary",
    "accent",
    "success",
    "warning",
    "error",
    "surface",
    "border",
)


def from_theme(theme: Theme) -> Palette:
    """The palette of ``theme``, every foreground role legible on its background."""
    generated = theme.to_color_system().generate()

    def hex_of(name: str, background: str | None) -> str | None:
        value = generated.get(name)
        if value is None or value.startswith("auto"):
            return None
        try:
            parsed = Color.parse(value)
        except ColorParseError:
            return None
        if parsed.ansi is not None:
            # "ansi_blue" is whatever the terminal makes of it, unknown here: Rich styles get
            # the fallback, which is at least legible on a background of its kind.
            return None
        if parsed.a >= 1:
            return parsed.hex6
        if background is None:
            return None
        # A variable with alpha ("#FFFFFF 60%") is what it looks like over the background.
        return Color.parse(background).blend(parsed.with_alpha(1), parsed.a).hex6

    background = hex_of("background", None) or ("#121212" if theme.dark else "#EFEFEF")
    colours = {"background": background}
    for name in NAMES:
        found = hex_of(name, background)
        if found is not None:
            colours[name] = found
    return Palette.from_colours(
        colours, dark=theme.dark, high_contrast="high-contrast" in theme.name
    )


_BY_THEME: dict[str, Palette] = {}


def of(theme: Theme) -> Palette:
    """`from_theme`, remembered per theme (views ask for it on every draw)."""
    key = repr(theme)  # Theme is a mutable dataclass: not hashable, but its repr is its colours
    found = _BY_THEME.get(key)
    if found is None:
        found = _BY_THEME[key] = from_theme(theme)
    return found


@cache
def named(name: str) -> Palette:
    """The palette of a shipped or built-in theme by name (`KeyError` if there is none)."""
    from openwop_tui.themes import THEMES  # the package's own themes, as well as Textual's

    by_name = {theme.name: theme for theme in (*BUILTIN_THEMES.values(), *THEMES)}
    return from_theme(by_name[name])
