"""The envelope inspector: the envelope as the host sent it, beside the run event it came in.

An envelope is not a frame on the stream (protocol.md §0): the client finds it inside a run
event. To debug a workflow you want both, so this screen shows the envelope document and the
source event's raw JSON side by side, plus what the client made of them (the display value the
renderer registry was keyed on, and why it is not shown in full, if it is not).

Drawn in the active theme's palette, and drawn again when the theme changes.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.theme import Theme
from textual.widgets import Static

from openwop_tui.palette import Palette, Themed
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.renderers.json import json_text
from openwop_tui.sanitize import clean


def drawn(rendered: Rendered, palette: Palette) -> Text:
    """How the client drew the envelope: its badge, then each record of what it could not do
    (or did another way), field by field: code, reason, what instead, the reference."""
    text = Text()
    text.append("\ndrawn ", style="bold")
    text.append(clean(rendered.badge), style=palette.muted)
    for label, note in (
        ("not shown in full", rendered.degradation),
        ("fallback", rendered.fallback),
        ("hint set aside", rendered.hint),
    ):
        if note is None:
            continue
        style = palette.warning if note is rendered.degradation else palette.muted
        text.append(f"\n{label}: ", style=f"bold {style}")
        text.append(clean(note.reason), style=style)
        for field, value in (
            ("code", note.code.value),
            ("reason", note.reason),
            ("instead", note.instead),
            ("reference", note.reference or "none"),
        ):
            text.append(f"\n  {field} ", style="bold")
            text.append(clean(value))
    return text


class InspectScreen(ModalScreen[None]):
    """Envelope and source event, side by side."""

    DEFAULT_CSS = """
    InspectScreen { align: center middle; }
    InspectScreen > Horizontal { width: 95%; height: 90%; background: $panel; }
    InspectScreen VerticalScroll { width: 1fr; border: round $primary; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("i", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(self, envelope: Envelope, rendered: Rendered | None) -> None:
        super().__init__()
        self.envelope = envelope
        self.rendered = rendered

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        self.refresh(recompose=True)

    def compose(self) -> ComposeResult:
        envelope, event = self.envelope, self.envelope.source
        palette = Palette.of(self.app.current_theme)
        summary = Text()
        summary.append("display ", style="bold")
        summary.append(f"{clean(envelope.display or 'none')} → renderer ")
        summary.append(
            clean(
                self.rendered.renderer
                if self.rendered and self.rendered.renderer
                else envelope.display or "json"
            ),
            style=palette.accent,
        )
        if self.rendered is not None:
            summary.append_text(drawn(self.rendered, palette))
        document = envelope.document if envelope.document is not None else envelope.payload
        with Horizontal():
            left = VerticalScroll()
            left.border_title = Content(f"envelope · {clean(envelope.kind)}")
            with left:
                yield Static(Themed(Group(summary, Text(), json_text(document)), palette))
            right = VerticalScroll()
            right.border_title = Content(
                f"source event · {clean(event.type)} · sequence {event.sequence}"
            )
            with right:
                raw = event.raw if event.raw is not None else dict(event.payload)
                yield Static(Themed(json_text(raw), palette))
