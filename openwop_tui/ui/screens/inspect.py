"""The envelope inspector: the envelope as the host sent it, beside the run event it came in.

An envelope is not a frame on the stream (protocol.md §0): the client finds it inside a run
event. To debug a workflow you want both, so this screen shows the envelope document and the
source event's raw JSON side by side, plus what the client made of them (the display value the
renderer registry was keyed on, and why it is not shown in full, if it is not) and the lint
findings about the event (`openwop_tui.inspect`: code, severity, message, path, source).

Both documents are lazy JSON trees (`openwop_tui.ui.widgets.json_tree`): opening the screen on a
10 MB envelope costs its top levels, not the document, and each tree folds, unfolds and copies
its JSON or a JSON path (the copy goes through `openwop_tui.devices.clipboard`, here).

Drawn in the active theme's palette, and drawn again when the theme changes (the trees keep
what is folded).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.theme import Theme
from textual.widgets import Static

from openwop_tui.core.own_media import OWN_EVENT
from openwop_tui.devices import clipboard
from openwop_tui.devices import desktop as actions
from openwop_tui.draw.palette import Palette, Themed
from openwop_tui.inspect.findings import Finding
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import clean
from openwop_tui.ui import theme_palette
from openwop_tui.ui.screens.event import findings_text
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.workers import Deferred


def drawn(rendered: Rendered, palette: Palette) -> Text:
    """How the client drew the envelope: its badge, then each record of what it could not do
    (or did another way), field by field: code, reason, what instead, the reference.

    A boundary: all of it is a renderer's text (perhaps a plugin's), so it is cleaned here."""
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
    """Envelope and source event, side by side, each a JSON tree (Tab moves between them)."""

    DEFAULT_CSS = """
    InspectScreen { align: center middle; }
    InspectScreen > Horizontal { width: 95%; height: 90%; background: $panel; }
    InspectScreen Horizontal > Vertical { width: 1fr; border: round $primary; padding: 0 1; }
    InspectScreen Horizontal > Vertical:focus-within { border: round $accent; }
    InspectScreen #summary { height: auto; max-height: 50%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("i", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def __init__(
        self,
        envelope: Envelope,
        rendered: Rendered | None,
        *,
        downloads: Path | None = None,
        findings: Sequence[Finding] = (),
    ) -> None:
        """A screen for one envelope: what the host sent and what the client made of it.

        Args:
            envelope: The envelope inspected.
            rendered: What the client drew it as; None when it has not been drawn.
            downloads: The folder a copy is also saved to; None for the default download folder,
                `openwop_tui.devices.desktop.download_dir`.
            findings: The lint findings about the envelope's event, listed under what the client
                made of it.
        """
        super().__init__()
        self.envelope = envelope
        self.rendered = rendered
        self.downloads = downloads
        self.findings = list(findings)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.query_one("#envelope-json", JsonTree).focus()

    def _theme_changed(self, theme: Theme) -> None:
        # The trees redraw themselves; the summary is text drawn in the palette.
        self.query_one("#summary-text", Static).update(self._summary())

    def _summary(self) -> Themed:
        envelope = self.envelope
        palette = theme_palette.of(self.app.current_theme)
        summary = Text()
        summary.append("display ", style="bold")
        summary.append(f"{envelope.display or 'none'} → renderer ")
        summary.append(
            # A boundary: the registry key of the renderer that drew it (perhaps a plugin's).
            clean(
                self.rendered.renderer
                if self.rendered and self.rendered.renderer
                else envelope.display or "json"
            ),
            style=palette.accent,
        )
        if self.rendered is not None:
            summary.append_text(drawn(self.rendered, palette))
        summary.append("\nlint ", style="bold")
        summary.append_text(findings_text(self.findings, palette))
        return Themed(summary, palette)

    def compose(self) -> ComposeResult:
        envelope, event = self.envelope, self.envelope.source
        document = envelope.document if envelope.document is not None else envelope.payload
        keys = Content("c copy · p path · * unfold all · Tab ⇄")
        with Horizontal():
            left = Vertical()
            left.border_title = Content(f"envelope · {envelope.kind}")
            left.border_subtitle = keys
            with left:
                summary = VerticalScroll(id="summary")
                summary.can_focus = False  # Tab goes from tree to tree
                with summary:
                    yield Static(self._summary(), id="summary-text")
                yield JsonTree(document, id="envelope-json")
            right = Vertical()
            right.border_title = Content(
                # A user's own attachment came from their message, not from a run event.
                "your message · as sent"
                if event.type == OWN_EVENT
                else f"source event · {event.type} · sequence {event.sequence}"
            )
            right.border_subtitle = keys
            with right:
                raw = event.raw if event.raw is not None else dict(event.payload)
                yield JsonTree(raw, id="event-json")

    def on_json_tree_copy_requested(self, message: JsonTree.CopyRequested) -> None:
        message.stop()
        self.run_worker(Deferred(lambda: self._copy(message)), group="copy", exclusive=True)

    async def _copy(self, message: JsonTree.CopyRequested) -> None:
        """Build the text off the event loop (a subtree can be megabytes), then copy it."""
        text = await asyncio.to_thread(message.build)
        folder = self.downloads or actions.download_dir(None)
        outcome = await clipboard.copy_text(self.app, text, folder, what=message.what)
        self.notify(outcome.message, severity=outcome.severity, markup=False)
