"""The capabilities screen: what the terminal and machine were probed to support, and the lab.

The top half says what was found before the app took the terminal (`openwop_tui.devices.terminal`:
the image protocol and why, the cell size; the colours the console drives; whether sound can
play and why not). The bottom half is the active `Profile`, one switch a line, each with its key:
pressing it moves the switch to its next value and every item of the transcript redraws under
it at once (`openwop_tui.ui.controllers.profile.switch`). ``m`` opens the matrix view of the
selected
envelope.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from openwop_tui.devices.profile import (
    COLOUR_LABELS,
    COLOURS,
    IMAGE_LABELS,
    IMAGE_MODES,
    WIDTHS,
    Profile,
    width_label,
)
from openwop_tui.draw.palette import Palette
from openwop_tui.text.sanitize import clean_own
from openwop_tui.ui import theme_palette


@dataclass(frozen=True, slots=True)
class Probed:
    """What was found about this terminal and machine (never changed by the lab)."""

    images: str
    images_reason: str
    cell_size: tuple[int, int] | None
    colours: str
    """The console's colour system (``truecolor``, ``256``, ``standard``…)."""
    audio: bool | None
    """``None``: not probed yet (the app probes once it connects)."""
    audio_reason: str
    size: tuple[int, int]
    host_takes: str | None = None
    """What the connected host takes from a person beside words (`openwop_tui.doctor.
    attachments_check`); ``None``: not connected yet."""


def _next(values: tuple[object, ...], current: object) -> object:
    index = values.index(current) if current in values else -1
    return values[(index + 1) % len(values)]


#: Each switch: (key, switch name, how its value reads, the value after the current one).
def switches(profile: Profile, no_audio: str | None = None) -> list[tuple[str, str, str, str]]:
    """(key, switch, shown value, next value as the switch's word) for each switch;
    ``no_audio``: why this machine plays no sound (audio then shows off, and why)."""
    following_width = _next(WIDTHS, profile.width)
    audio = "on" if profile.audio else "off"
    if no_audio:
        audio = f"off: {no_audio}" + (" (switch on)" if profile.audio else "")
    return [
        (
            "i",
            "images",
            IMAGE_LABELS[profile.images],
            str(_next(IMAGE_MODES, profile.images)),
        ),
        ("c", "colours", COLOUR_LABELS[profile.colours], str(_next(COLOURS, profile.colours))),
        ("a", "audio", audio, "off" if profile.audio else "on"),
        (
            "f",
            "fetching",
            "on" if profile.fetching else "off",
            "off" if profile.fetching else "on",
        ),
        (
            "w",
            "width",
            width_label(profile.width),
            width_label(following_width if isinstance(following_width, int) else None),
        ),
    ]


def _label(switch: str, word: str) -> str:
    """How a switch's value word reads (``halfblock`` → ``half-blocks``)."""
    if switch == "images":
        return IMAGE_LABELS.get(word, word)
    if switch == "colours":
        return COLOUR_LABELS.get(word, word)
    return word


#: The console's colour systems as a person reads them.
CONSOLE_COLOURS = {"truecolor": "true colour", "256": "256", "standard": "16", "windows": "16"}


class CapabilitiesScreen(ModalScreen[None]):
    """Probed capabilities above, the lab's switches below."""

    DEFAULT_CSS = """
    CapabilitiesScreen { align: center middle; }
    CapabilitiesScreen > VerticalScroll {
        width: 90%; max-width: 100; height: auto; max-height: 90%;
        background: $panel; border: round $primary; padding: 0 1;
    }
    CapabilitiesScreen Static { height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("i", "flip('images')", "Images"),
        Binding("c", "flip('colours')", "Colours"),
        Binding("a", "flip('audio')", "Audio"),
        Binding("f", "flip('fetching')", "Fetching"),
        Binding("w", "flip('width')", "Width"),
        Binding("m", "matrix", "Matrix"),
    ]

    def __init__(self, probed: Probed, profile: Profile, no_audio: str | None = None) -> None:
        """``no_audio``: why this machine plays no sound (``no PortAudio``), when it cannot."""
        super().__init__()
        self.probed = probed
        self.profile = profile
        self.no_audio = no_audio

    def compose(self) -> ComposeResult:
        scroll = VerticalScroll()
        scroll.border_title = "Capabilities and the degradation lab"
        with scroll:
            yield Static(self.probed_table(), id="probed")
            yield Static(self.profile_table(), id="profile")

    def show(self, profile: Profile) -> None:
        """The active profile changed (here or from the palette): show it."""
        self.profile = profile
        if self.is_mounted:
            self.query_one("#profile", Static).update(self.profile_table())

    async def action_flip(self, switch: str) -> None:
        """Move a switch to its next value (the app redraws every item under it)."""
        for _key, name, _shown, following in switches(self.profile):
            if name == switch:
                await self.app.run_action(f"lab_set({name!r}, {following!r})")
                return

    async def action_matrix(self) -> None:
        self.dismiss()
        await self.app.run_action("matrix")

    def _palette(self) -> Palette:
        return theme_palette.of(self.app.current_theme)

    def probed_table(self) -> Table:
        """What was found about the terminal and the machine."""
        probed, palette = self.probed, self._palette()
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        grid.add_row(Text("This terminal", style=f"bold {palette.accent}"), "")
        cell = f" · cell {probed.cell_size[0]}x{probed.cell_size[1]} px" if probed.cell_size else ""
        # The probe's own sentences about this terminal and machine (environment, replies).
        grid.add_row("images", Text(clean_own(f"{probed.images}{cell}: {probed.images_reason}")))
        colours = CONSOLE_COLOURS.get(probed.colours, probed.colours)
        grid.add_row("colours", Text(clean_own(f"{colours} (what the terminal is driven in)")))
        sound = "not probed yet" if probed.audio is None else ("yes" if probed.audio else "no")
        grid.add_row("audio", Text(clean_own(f"{sound}: {probed.audio_reason}")))
        grid.add_row("size", Text(f"{probed.size[0]}x{probed.size[1]} cells"))
        grid.add_row(Text("This host", style=f"bold {palette.accent}"), "")
        # The doctor's sentence, from the discovery document (its strings cleaned as it came).
        takes = probed.host_takes or "not known yet: the host has not answered discovery"
        grid.add_row("attachments", Text(clean_own(takes)))
        return grid

    def profile_table(self) -> Group:
        """The active profile, a switch a line, each with its key and its next value."""
        palette = self._palette()
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column()
        grid.add_row("", "", "", "")
        grid.add_row(Text("The lab", style=f"bold {palette.accent}"), "", "", "")
        for key, name, shown, following in switches(self.profile, self.no_audio):
            grid.add_row(
                Text(f"[{key}]", style=palette.accent),
                name,
                Text(shown, style="bold"),
                Text(f"next: {_label(name, following)}", style=palette.muted),
            )
        grid.add_row(Text("[m]", style=palette.accent), "matrix", "the selected envelope", "")
        described = self.profile.describe(self.no_audio)
        return Group(grid, Text(described, style=palette.muted))
