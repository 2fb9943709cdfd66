"""The colours of everything drawn as Rich renderables, taken from the Textual theme.

No Textual here: the app turns its theme into a `Palette` (`openwop_tui.ui.theme_palette`);
the print commands use `Palette.default`, the default theme's palette written out.

Widgets style themselves with theme variables in CSS (``$primary``, ``$text-muted``). Renderers,
`openwop_tui.present.items` and the printer build Rich renderables, which know nothing of CSS: they
take their styles from a `Palette` made from the active theme instead, so a light or a
high-contrast theme recolours every item, and no ANSI colour name ("cyan", "yellow") is written
anywhere else. Switching theme makes a new palette; views redraw with it.

Rich itself styles some things by name (``markdown.code``, ``json.key``, ``repr.number``) from
its default theme, in ANSI colours: ``markdown.code`` is "bold cyan on black", a black slab on a
light theme. `Palette.rich_theme` maps every one of those names onto the palette, and `Themed`
draws a renderable with that mapping in force, so Rich's named styles follow the theme too.

Every foreground role is checked against the background for a WCAG contrast ratio of at least
`MIN_CONTRAST` (`HIGH_CONTRAST_MIN` for a theme named ``*high-contrast*``), and pushed towards the
text colour until it meets it: a theme with a pale warning colour on white still gets a legible
warning. A high-contrast theme gets no dimmed text at all.

Pure: plain colour strings in, Rich styles out.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import TYPE_CHECKING

from rich.color import Color as RichColor
from rich.color import ColorParseError, ColorType
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.default_styles import DEFAULT_STYLES
from rich.measure import Measurement
from rich.style import Style
from rich.theme import Theme as RichTheme

if TYPE_CHECKING:
    # (Rich's syntax module loads Pygments: imported where code is first highlighted, not
    # with the palette, which the app's first frame needs and no code on it.)
    from rich.syntax import SyntaxTheme

__all__ = [
    "DEFAULT_THEME",
    "HIGH_CONTRAST_MIN",
    "MIN_CONTRAST",
    "Palette",
    "Themed",
    "contrast",
]

DEFAULT_THEME = "openwop-dark"
"""The theme `Palette.default` describes (the app's default; see `openwop_tui.themes`)."""

MIN_CONTRAST = 4.5
"""WCAG AA for body text: every foreground role against the background."""
HIGH_CONTRAST_MIN = 7.0
"""WCAG AAA, for a high-contrast theme."""


def _rgb(colour: str) -> tuple[int, int, int]:
    """``#RRGGBB`` (or any colour Rich parses) as a triplet."""
    return RichColor.parse(colour).get_truecolor()


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02X}{:02X}{:02X}".format(*rgb)


def _blend(first: str, second: str, factor: float) -> str:
    """``first`` moved ``factor`` (0 to 1) of the way to ``second``."""
    one, two = _rgb(first), _rgb(second)
    return _hex(tuple(round(a + (b - a) * factor) for a, b in zip(one, two, strict=True)))  # type: ignore[arg-type]


def _luminance(colour: str) -> float:
    def channel(value: int) -> float:
        scaled = value / 255
        return scaled / 12.92 if scaled <= 0.03928 else ((scaled + 0.055) / 1.055) ** 2.4

    red, green, blue = _rgb(colour)
    return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two colours (1 to 21)."""
    one, two = _luminance(first), _luminance(second)
    return (max(one, two) + 0.05) / (min(one, two) + 0.05)


def _legible(colour: str, background: str, towards: str, minimum: float) -> str:
    """``colour``, moved step by step towards ``towards`` until it reads on ``background``.

    Args:
        colour: The colour wanted, ``#rrggbb``.
        background: The colour it is drawn on.
        towards: The colour it is moved towards (in tenths); returned when no step reads.
        minimum: The contrast ratio it must reach (WCAG, 1 to 21).
    """
    for step in range(11):
        candidate = _blend(colour, towards, step / 10)
        if contrast(candidate, background) >= minimum:
            return candidate
    return _hex(_rgb(towards))


def _colour_of(style: str) -> str:
    """The foreground colour of a style string, as ``#RRGGBB`` (the palette only holds hex)."""
    colour = Style.parse(style).color
    return "" if colour is None else _hex(colour.get_truecolor())


def _background_of(style: str) -> str:
    colour = Style.parse(style).bgcolor
    return "" if colour is None else _hex(colour.get_truecolor())


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
    background: str = "#121212"
    """The theme's background (``#RRGGBB``): what transparent image pixels are laid on."""
    surface: str = "#1E1E1E"
    """A raised background (``#RRGGBB``): code blocks, inline code."""
    primary: str = "#0178D4"
    """Links, the host name, file blocks (a plain colour)."""
    secondary: str = "#8A8FA6"
    """Tool calls, quotes, headings inside markdown (a plain colour)."""
    code_on_surface: bool = True
    """Code is drawn on `surface` (the theme's own choice of `code_theme`); ``False``: on the
    Pygments style's own background (a style the user chose: `with_code_theme`)."""

    @classmethod
    def from_colours(
        cls, colours: Mapping[str, str], *, dark: bool, high_contrast: bool = False
    ) -> Palette:
        """The palette of a theme's colours (``#RRGGBB`` by theme variable name: ``background``,
        ``foreground``, ``text-muted``, ``primary``, ``secondary``, ``accent``, ``success``,
        ``warning``, ``error``, ``surface``, ``border``; a missing one gets a fallback), every
        foreground role legible on the background."""
        background = colours.get("background") or ("#121212" if dark else "#EFEFEF")
        foreground = colours.get("foreground") or ("#E0E0E0" if dark else "#1E1E1E")
        floor = HIGH_CONTRAST_MIN if high_contrast else MIN_CONTRAST

        def hex_of(name: str, fallback: str) -> str:
            return colours.get(name) or fallback

        def legible(colour: str) -> str:
            return _legible(colour, background, foreground, floor)

        text = legible(foreground)
        if high_contrast:
            muted = text  # no greyed-out text: secondary text is told apart by place
        else:
            default_muted = _blend(foreground, background, 0.4)
            muted = legible(hex_of("text-muted", default_muted))
        primary = legible(hex_of("primary", "#0178D4"))
        secondary = legible(hex_of("secondary", primary))
        accent = legible(hex_of("accent", primary))
        success = legible(hex_of("success", "#4EBF71"))
        warning = legible(hex_of("warning", "#FEA62B"))
        error = legible(hex_of("error", "#B93C5B"))
        surface = hex_of("surface", background)
        border = hex_of("border", primary)
        # Borders are large, so 3:1 (WCAG's floor for non-text) is enough.
        border = _legible(border, background, foreground, 3.0 if not high_contrast else floor)
        selection = _blend(primary, background, 0.75)
        return cls(
            text=text,
            muted=muted,
            user=f"bold {primary}",
            assistant=f"bold {success}",
            streaming=f"bold {warning}",
            accent=f"bold {accent}",
            success=success,
            warning=warning,
            error=f"bold {error}",
            border=border,
            degraded_border=warning,
            selection=f"on {selection}",
            match=f"bold {background} on {accent}",
            code_theme="monokai" if dark else "xcode",
            dark=dark,
            background=background,
            surface=surface,
            primary=primary,
            secondary=secondary,
        )

    @classmethod
    def default(cls) -> Palette:
        """The palette of the default theme, for printing outside the app."""
        return _default()

    # ------------------------------------------------------------ derived

    def colours(self) -> frozenset[str]:
        """Every colour (``#RRGGBB``) this palette draws with, foreground or background."""
        found: set[str] = set()
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, str) and field.name != "code_theme":
                found.update(c for c in (_colour_of(value), _background_of(value)) if c)
        return frozenset(found)

    def syntax_theme(self) -> SyntaxTheme:
        """The Pygments style `code_theme`, on the palette's `surface` rather than its own
        background (monokai's would be a dark slab on a light theme); a style the user chose,
        whole, on its own background (its colours are made for it)."""
        if not self.code_on_surface:
            return _own_syntax_theme(self.code_theme)
        return _syntax_theme(self.code_theme, self.surface)

    def with_code_theme(self, name: str | None) -> Palette:
        """This palette with code highlighted in the Pygments style ``name``, on that style's
        own background; ``None``: the theme's own choice (this palette as it is)."""
        if name is None:
            return self
        return replace(self, code_theme=name, code_on_surface=False)

    def rich_theme(self, *, colour_names: bool = True) -> RichTheme:
        """Rich's named styles (``markdown.*``, ``json.*``, ``repr.*``, …) in this palette.

        With ``colour_names``, the styles Rich names after colours (``"cyan"``, ``"red"``) are
        mapped too, so a plugin renderer that writes one still follows the theme; the tests
        turn it off to catch a built-in renderer that writes one."""
        return _rich_theme(self, colour_names)


#: The palette of the default theme (`openwop_tui.ui.theme_palette.from_theme`), written out so
#: that drawing outside the app (and a `RenderContext` made anywhere) needs no Textual; a test
#: keeps it equal to the derivation.
_DEFAULT = Palette(
    text="#D7DCE2",
    muted="#888C91",
    user="bold #4EA1D3",
    assistant="bold #57AB5A",
    streaming="bold #F1C14E",
    accent="bold #F1A541",
    success="#57AB5A",
    warning="#F1C14E",
    error="bold #E4534B",
    border="#4EA1D3",
    degraded_border="#F1C14E",
    selection="on #203747",
    match="bold #111418 on #F1A541",
    code_theme="monokai",
    dark=True,
    background="#111418",
    surface="#1A1F25",
    primary="#4EA1D3",
    secondary="#7A8FA6",
)


def _default() -> Palette:
    return _DEFAULT


@cache
def _syntax_theme(name: str, background: str) -> SyntaxTheme:
    """The Pygments style ``name`` drawn on ``background``."""
    from rich.syntax import PygmentsSyntaxTheme

    class _SurfacedSyntaxTheme(PygmentsSyntaxTheme):
        """A Pygments style drawn on a given background (made here, with Rich's syntax
        module: see the import above)."""

        def __init__(self, name: str, background: str) -> None:
            super().__init__(name)
            self._background_color = background
            self._background_style = Style(bgcolor=background)

    return _SurfacedSyntaxTheme(name, background)


@cache
def _own_syntax_theme(name: str) -> SyntaxTheme:
    from rich.syntax import PygmentsSyntaxTheme

    return PygmentsSyntaxTheme(name)


def _ansi_map(palette: Palette) -> dict[int, str]:
    """The palette colour standing in for each of the 16 ANSI colours (bright ones as normal)."""
    text, muted = _colour_of(palette.text), palette.muted
    roles = {
        0: text,  # black text is the body text on a light theme, invisible on a dark one
        1: _colour_of(palette.error),
        2: palette.success,
        3: palette.warning,
        4: palette.primary,
        5: palette.secondary,
        6: _colour_of(palette.accent),
        7: text,
    }
    mapped = {number: _colour_of(colour) or text for number, colour in roles.items()}
    mapped.update({number + 8: mapped[number] for number in range(8)})
    mapped[8] = _colour_of(muted)  # bright black is grey: muted text
    return mapped


def _recolour(style: Style, palette: Palette, ansi: dict[int, str]) -> Style:
    """``style`` with its colours taken from the palette (attributes kept)."""
    muted = _colour_of(palette.muted)

    def foreground(colour: RichColor | None) -> str | None:
        if colour is None or colour.type == ColorType.DEFAULT:
            return None
        if colour.number is not None and colour.number < 16:
            return ansi[colour.number]
        return muted  # any other fixed colour Rich uses is decoration (progress bars, rules)

    color = foreground(style.color)
    bgcolor = None if style.bgcolor is None or style.bgcolor.type == ColorType.DEFAULT else ""
    if bgcolor is not None:
        bgcolor = palette.surface
    dim = style.dim
    if dim and color is None:
        # Terminals (and Textual) draw "dim" as a blend towards the background: on a
        # high-contrast theme that is exactly what must not happen.
        color, dim = muted, False
    return Style(
        color=color,
        bgcolor=bgcolor,
        bold=style.bold,
        italic=style.italic,
        underline=style.underline,
        strike=style.strike,
        reverse=style.reverse,
        dim=dim,
    )


def _is_colour(name: str) -> bool:
    try:
        RichColor.parse(name)
    except ColorParseError:
        return False
    return True


@cache
def _rich_theme(palette: Palette, colour_names: bool) -> RichTheme:
    ansi = _ansi_map(palette)
    styles = {
        name: _recolour(style, palette, ansi)
        for name, style in DEFAULT_STYLES.items()
        if colour_names or not _is_colour(name)
    }
    styles["markdown.code"] = Style(bold=True, color=_colour_of(palette.accent))
    styles["markdown.code_block"] = Style(color=_colour_of(palette.text), bgcolor=palette.surface)
    return RichTheme(styles, inherit=True)


_THEME_LOCK = threading.RLock()
"""Rich keeps one theme stack per console; renders that push onto it take turns."""


class Themed:
    """Draws ``inner`` with Rich's named styles in ``palette``'s colours (`Palette.rich_theme`).

    The whole of ``inner`` is rendered while the theme is pushed, so no named style is looked
    up after it is popped.
    """

    def __init__(
        self, inner: RenderableType, palette: Palette, *, colour_names: bool = True
    ) -> None:
        self.inner = inner
        self.theme = palette.rich_theme(colour_names=colour_names)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        with _THEME_LOCK, console.use_theme(self.theme):
            segments = list(console.render(self.inner, options))
        yield from segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        with _THEME_LOCK, console.use_theme(self.theme):
            return Measurement.get(console, options, self.inner)
