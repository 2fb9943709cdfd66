"""The matrix view: one envelope drawn under each lab profile, stacked, each with its badge.

Each panel is the envelope as the app would draw it under that profile
(`openwop_tui.ui.controllers.profile`
rendered it with the profile's context: images off, no audio, 80 columns…), in that profile's
colours (`openwop_tui.devices.profile.Downgraded`) and at its width, headed by the profile's name
and
what it changes; the badge under each says which renderer drew it and which fallback ran.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from openwop_tui.devices.profile import Downgraded, Profile
from openwop_tui.draw.palette import Palette, Themed
from openwop_tui.present import items as present
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.ui import theme_palette


class MatrixPanel(Static):
    """One profile's drawing."""

    DEFAULT_CSS = "MatrixPanel { height: auto; border: round $primary; padding: 0 1; }"


class MatrixScreen(ModalScreen[None]):
    """The selected envelope under each profile."""

    DEFAULT_CSS = """
    MatrixScreen { align: center middle; }
    MatrixScreen > VerticalScroll { width: 95%; height: 95%; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,m", "dismiss", "Close"),
    ]

    def __init__(
        self,
        envelope: Envelope,
        drawn: list[tuple[str, Profile, Rendered]],
        no_audio: str | None = None,
    ) -> None:
        """``drawn``: (name, profile, drawing) under each preset; ``no_audio``: why this
        machine plays no sound, when it cannot (each profile's audio then reads off, and why)."""
        super().__init__()
        self.envelope = envelope
        self.drawn = drawn
        self.no_audio = no_audio

    def compose(self) -> ComposeResult:
        palette = theme_palette.of(self.app.current_theme)
        scroll = VerticalScroll(can_focus=True)
        scroll.border_title = Content(
            f"matrix · {self.envelope.display or 'json'} · {self.envelope.kind}"
        )
        scroll.border_subtitle = Content("↑ ↓ PgUp PgDn scroll · Esc closes")
        with scroll:
            for name, profile, rendered in self.drawn:
                yield self.panel(name, profile, rendered, palette)

    def on_mount(self) -> None:
        # Focused at once, so the keys scroll the panels (not the transcript underneath).
        self.query_one(VerticalScroll).focus()

    def panel(
        self, name: str, profile: Profile, rendered: Rendered, palette: Palette
    ) -> MatrixPanel:
        """One profile's panel: the envelope as drawn under it, in its colours.

        Args:
            name: The panel's border title.
            profile: The lab profile it is drawn under; its colours and width bound the panel.
            rendered: The envelope as drawn under that profile.
            palette: The theme's colours.
        """
        body = Group(
            Text(profile.describe(self.no_audio), style=f"italic {palette.muted}"),
            present.envelope(rendered, palette),
        )
        shown = Downgraded(Themed(body, palette), profile.colours)
        panel = MatrixPanel(shown, classes="matrix-panel")
        panel.border_title = Content(name)
        if profile.width is not None:
            panel.styles.max_width = profile.width + 4  # the border and padding
        return panel
