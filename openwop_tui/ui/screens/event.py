"""One run event, opened from the timeline: its JSON as a lazy tree, and its lint findings.

The tree is `openwop_tui.ui.widgets.json_tree.JsonTree` (fold, unfold, ``c`` copies the JSON,
``p`` a JSON path; the copy goes through `openwop_tui.devices.clipboard`, as in the envelope
inspector). Above it, each finding about the event: its code, severity, source and message,
and the JSON path it is about, so a host author reads what is wrong where it is. ``t`` goes to
the transcript item the event made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from openwop_tui.devices import clipboard, desktop
from openwop_tui.draw.palette import Palette
from openwop_tui.inspect.findings import Finding, Severity
from openwop_tui.ui import theme_palette
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.widgets.timeline_view import Entry, TimelineView
from openwop_tui.ui.workers import Deferred

_SIGNS = {Severity.ERROR: "✖", Severity.WARNING: "⚠", Severity.INFO: "·"}


def findings_text(findings: Sequence[Finding], palette: Palette) -> Text:
    """The findings, worst first, one a line: ``⚠ OW214 warning · message · $.path (source)``."""
    text = Text()
    if not findings:
        text.append("no lint findings", style=palette.muted)
        return text
    styles = {
        Severity.ERROR: palette.error,
        Severity.WARNING: palette.warning,
        Severity.INFO: palette.muted,
    }
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    for number, finding in enumerate(sorted(findings, key=lambda f: order[f.severity])):
        if number:
            text.append("\n")
        style = styles[finding.severity]
        text.append(f"{_SIGNS[finding.severity]} {finding.code} ", style=f"bold {style}")
        text.append(f"{finding.severity.value} · ", style=style)
        text.append(finding.message)
        if finding.path:
            text.append(f" · {finding.path}", style=palette.accent)
        text.append(f" ({finding.source})", style=palette.muted)
    return text


class EventScreen(ModalScreen[None]):
    """A run event's JSON tree and findings."""

    DEFAULT_CSS = """
    EventScreen { align: center middle; }
    EventScreen > Vertical { width: 95%; height: 90%; background: $panel;
        border: round $primary; padding: 0 1; }
    EventScreen #findings { height: auto; max-height: 40%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("t", "go_to_item", "To item"),
    ]

    def __init__(
        self,
        entry: Entry,
        findings: Sequence[Finding],
        items: Sequence[str] = (),
        *,
        downloads: Path | None = None,
    ) -> None:
        """A screen for one timeline row's event.

        Args:
            entry: The timeline row whose event is shown.
            findings: The lint findings about the event.
            items: The ids of the transcript items the event made or changed, named in the title.
            downloads: The folder a copy is also saved to; None for the default download folder.
        """
        super().__init__()
        self.entry = entry
        self.findings = list(findings)
        self.items = list(items)
        self.downloads = downloads

    def compose(self) -> ComposeResult:
        event = self.entry.event
        box = Vertical()
        # The items are named by the fold's own ids; the event's type was cleaned by `normalize`.
        made = f" · made {', '.join(self.items)}" if self.items else ""
        box.border_title = Content(f"event · {event.type} · sequence {event.sequence}{made}")
        box.border_subtitle = Content("c copy · p path · * unfold all · t to item · Esc")
        with box:
            scroll = VerticalScroll(id="findings")
            scroll.can_focus = False
            with scroll:
                yield Static(self._findings(), id="findings-text")
            raw = event.raw if event.raw is not None else dict(event.payload)
            yield JsonTree(raw, id="event-json")

    def _findings(self) -> Text:
        return findings_text(self.findings, theme_palette.of(self.app.current_theme))

    def on_mount(self) -> None:
        self.query_one(JsonTree).focus()

    def action_go_to_item(self) -> None:
        self.dismiss()
        self.app.post_message(TimelineView.GoToItem(self.entry))

    def on_json_tree_copy_requested(self, message: JsonTree.CopyRequested) -> None:
        message.stop()
        self.run_worker(Deferred(lambda: self._copy(message)), group="copy", exclusive=True)

    async def _copy(self, message: JsonTree.CopyRequested) -> None:
        """Build the text off the event loop (an event can be megabytes), then copy it."""
        text = await asyncio.to_thread(message.build)
        folder = self.downloads or desktop.download_dir(None)
        outcome = await clipboard.copy_text(self.app, text, folder, what=message.what)
        self.notify(outcome.message, severity=outcome.severity, markup=False)
