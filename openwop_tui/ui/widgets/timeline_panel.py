"""The event timeline as a panel: a filter line above the rows (`TimelineView`).

The same panel is docked beside the transcript (F2, where the raw events panel was) and fills
the timeline screen (`openwop_tui.ui.screens.timeline`). It draws and reads keys only: what it
shows, the filter kept per chat and the links to transcript items are the timeline controller's
(`openwop_tui.ui.controllers.timeline`), which it tells of a changed filter by `FilterChanged`.

The filter line takes the `openwop_tui.inspect.timeline.RowFilter` grammar (``node.*``,
``node:respond``, ``has:findings``, ``code:OW214``, free words) plus ``item:ID``: only the events
that made transcript item ``ID``. ``/`` (in the rows) goes to the filter; Enter or ↓ in the
filter goes back to the rows.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input

from openwop_tui.ui.widgets.timeline_view import TimelineView

PLACEHOLDER = "filter: node.*  node:ID  has:findings  code:OW214  item:ID  words"


class TimelinePanel(Vertical):
    """A filter line and the timeline's rows."""

    DEFAULT_CSS = """
    TimelinePanel { height: 1fr; border: tall $primary; }
    TimelinePanel:focus-within { border: tall $accent; }
    TimelinePanel > Input { height: 1; border: none; padding: 0 1; }
    TimelinePanel#events { dock: right; width: 45%; border: none; border-left: tall $primary;
        display: none; margin-top: 1; }
    TimelinePanel#events.-visible { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter", tooltip="to the filter line"),
    ]

    class FilterChanged(Message):
        """The filter line was edited."""

        def __init__(self, panel: TimelinePanel, text: str) -> None:
            super().__init__()
            self.panel = panel
            self.text = text

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = "timeline"
        # Made here, not in compose: the controller fills them as soon as the panel exists,
        # which can be before its children are mounted.
        self.filter_input = Input(placeholder=PLACEHOLDER, id="timeline-filter", compact=True)
        self.view = TimelineView(id="timeline-rows")

    def compose(self) -> ComposeResult:
        yield self.filter_input
        yield self.view

    def show_filter(self, text: str) -> None:
        """Put ``text`` in the filter line (a kept filter); the `FilterChanged` this posts
        names the filter already in force, which the controller ignores."""
        field = self.filter_input
        if field.value != text:
            field.value = text

    def say(self, title: str) -> None:
        """What the title says (counts, following or paused, the filter's problem)."""
        self.border_title = title

    def action_focus_filter(self) -> None:
        self.filter_input.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.FilterChanged(self, event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.view.focus()

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and self.filter_input.has_focus:
            event.stop()
            self.view.focus()
