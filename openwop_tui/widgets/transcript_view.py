"""The scrolling transcript: a line-cached history on top, live widgets below.

Fold changes come in through `apply`. New items become live widgets at the bottom; a streamed
token updates only its own reply. When more than `live_limit` settled widgets are live, the
oldest are turned into Rich renderables, handed to the `HistoryLog` and removed, so mounting,
layout and memory stay flat however long the conversation runs. ``anchor()`` keeps the view
pinned to the bottom until the user scrolls up.

An item can still change once it is in the history: a streamed envelope's completing fragment
(protocol.md §4.3, rule E1) may arrive after many other items pushed the first fragment out of
the live region. Such an update is drawn again and replaces the item's lines in the history.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from rich.console import RenderableType
from textual import events
from textual.containers import VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget

from openwop_tui import present
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.transcript import (
    Added,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Item,
    Notice,
    Updated,
)
from openwop_tui.widgets.envelope_view import EnvelopeView
from openwop_tui.widgets.history import HistoryLog
from openwop_tui.widgets.items import AssistantMessage, ItemStatic, is_settled

EnvelopeMounted = Callable[[EnvelopeView], Awaitable[None] | None]
EnvelopeRenderer = Callable[[Envelope], Awaitable[Rendered]]


class TranscriptView(VerticalScroll, can_focus=False):
    """Everything said in this session, newest at the bottom.

    Not a Tab stop itself (PageUp/PageDown scroll it from anywhere): Tab goes straight to the
    envelopes, and Shift+Tab from the input to the newest one.
    """

    DEFAULT_CSS = """
    TranscriptView { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    TranscriptView.-verbose ItemStatic.-verbose { display: block; }
    """

    @dataclass
    class WidthChanged(Message):
        """The view settled at a new width (sent once a resize has paused): redraw what was
        drawn for the old width, such as images."""

        width: int

    def __init__(self, *, live_limit: int = 40, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn_width = 0
        self._resize_timer: Timer | None = None
        self.live_limit = live_limit
        self.history = HistoryLog(id="history")
        self._widgets: dict[str, Widget] = {}
        self.on_envelope: EnvelopeMounted | None = None
        """Called with each new envelope view (the app fetches and renders it)."""
        self.render_envelope: EnvelopeRenderer | None = None
        """Renders an envelope that changed after it moved to the history (the app fetches its
        asset and runs its renderer); without one such a change is not drawn."""

    def compose(self) -> Iterable[Widget]:
        yield self.history

    def on_mount(self) -> None:
        self.anchor()

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if not self._drawn_width:
            self._drawn_width = width
            return
        if width == self._drawn_width:
            return
        # Debounced: dragging a window edge sends many resizes; redraw once it stops.
        if self._resize_timer is not None:
            self._resize_timer.stop()
        self._resize_timer = self.set_timer(0.2, self._announce_width)

    def _announce_width(self) -> None:
        self._drawn_width = self.size.width
        self.post_message(self.WidthChanged(self._drawn_width))

    @property
    def show_verbose(self) -> bool:
        """Whether lifecycle lines (verbose notices) are shown, live and in the history."""
        return self.has_class("-verbose")

    @show_verbose.setter
    def show_verbose(self, value: bool) -> None:
        self.set_class(value, "-verbose")
        self.history.show_verbose = value

    @property
    def live_count(self) -> int:
        """Transcript widgets currently mounted (not counting the history)."""
        return len(self._widgets)

    def widget_for(self, item: Item) -> Widget | None:
        """The live widget showing ``item``, if it is still live."""
        return self._widgets.get(item.id)

    async def apply(self, changes: Iterable[Change]) -> None:
        """Draw a batch of fold changes (none once the view is gone: the app is closing and
        the run's last events, a cancel's ``node.cancelled``, still arrive)."""
        for change in changes:
            if not self.is_attached:
                return
            if isinstance(change, Added):
                await self._add(change.item)
            elif isinstance(change, Updated):
                await self._update(change)
        await self._retire()

    async def _add(self, item: Item) -> None:
        widget: Widget
        if isinstance(item, AssistantTurn):
            widget = AssistantMessage(item)
        elif isinstance(item, EnvelopeItem):
            widget = EnvelopeView(item)
        else:
            widget = ItemStatic(item)
        self._widgets[item.id] = widget
        await self.mount(widget)
        if isinstance(widget, EnvelopeView) and self.on_envelope is not None:
            result = self.on_envelope(widget)
            if result is not None:
                await result

    async def _update(self, change: Updated) -> None:
        widget = self._widgets.get(change.item.id)
        if widget is None:
            if self.history.holds(change.item.id):
                self._redraw_retired(change.item)
            return
        if isinstance(widget, AssistantMessage):
            if change.delta is not None:
                await widget.append(change.delta)
            else:
                await widget.finish()
        elif isinstance(widget, ItemStatic):
            widget.refresh_item()
        elif isinstance(widget, EnvelopeView) and self.on_envelope is not None:
            # A later fragment of a streamed envelope: draw it again.
            result = self.on_envelope(widget)
            if result is not None:
                await result

    async def _retire(self) -> None:
        """Move the oldest settled widgets into the line-cached history."""
        excess = len(self._widgets) - self.live_limit
        if excess <= 0:
            return
        retired: list[Widget] = []
        for item_id, widget in list(self._widgets.items()):
            if len(retired) >= excess or not is_settled(widget):
                break  # keep order: never retire past an item still changing
            item = getattr(widget, "item", None)
            self.history.add(
                widget.to_renderable(),  # type: ignore[attr-defined]
                verbose=isinstance(item, Notice) and item.verbose,
                spaced=not isinstance(item, Notice),
                key=item_id,
            )
            del self._widgets[item_id]
            retired.append(widget)
        if retired:
            await self.remove_children(retired)

    def _redraw_retired(self, item: Item) -> None:
        """Draw an item that changed after it moved to the history, in its place there."""
        if not isinstance(item, EnvelopeItem):
            self.history.replace(item.id, _renderable(item))
        elif self.render_envelope is not None:
            # Off the event loop (the asset may be fetched); a newer fragment's draw replaces
            # one still running, so the history ends on the last fragment the fold saw.
            self.run_worker(
                self._redraw_envelope(item, self.render_envelope),
                group=f"history-{item.id}",
                exclusive=True,
            )

    async def _redraw_envelope(self, item: EnvelopeItem, render: EnvelopeRenderer) -> None:
        rendered = await render(item.envelope)
        self.history.replace(item.id, present.envelope(rendered))

    async def clear(self) -> None:
        """Empty the transcript view."""
        self.workers.cancel_node(self)  # redraws of items about to be forgotten
        self.history.clear()
        await self.remove_children(list(self._widgets.values()))
        self._widgets.clear()


def _renderable(item: Item) -> RenderableType:
    """What the history draws for an item other than an envelope (as its live widget would)."""
    if isinstance(item, AssistantTurn):
        return AssistantMessage(item).to_renderable()
    assert not isinstance(item, EnvelopeItem)
    return ItemStatic(item).to_renderable()
