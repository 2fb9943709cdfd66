"""The tab bar: one label per open chat, the current one lit, each with its run's mark and a
close control.

A label is the tab's number (Alt+1…9 goes there), its mark, the chat's title (the stored
session's: its first message's first line until renamed) cut to fit, and a close mark (`CLOSE`):

* ``●`` a run is live in the tab;
* ``?`` its run waits for an answer (a question form, a conversation's turn);
* ``✓`` / ``✗`` its run ended (completed / failed or cancelled) while the tab was not looked at:
  the mark goes once the tab is shown.

A click on a label shows that tab, a click on its close mark closes it, and a label dragged onto
another moves it there. The bar says what was asked (`TabBar.Chosen`, `TabBar.Closed`,
`TabBar.Moved`); the tabs controller (`openwop_tui.ui.controllers.tabs`) does it and tells the bar
the labels again (`TabBar.show`). With one chat open there is nothing to choose between, and the
bar is hidden: the screen is the one-chat screen it always was.

Labels share the width: each title gets an equal part (between `MIN_TITLE` and `MAX_TITLE`
characters); when even the shortest do not fit, the tabs around the current one are shown and
the count of those left out is written at each end, in angle quotes (`BEFORE`, `AFTER`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

__all__ = ["MAX_TITLE", "MIN_TITLE", "Label", "Layout", "Spot", "TabBar", "lay_out", "pieces"]

#: The most of a title a label shows (longer ones end in "…").
MAX_TITLE = 24
#: The least of a title a label is cut to before tabs are left out of the bar.
MIN_TITLE = 6
#: What closes a tab when clicked, at the end of its label.
CLOSE = "\N{MULTIPLICATION SIGN}"
#: Before and after the count of tabs left out at either end of the bar.
BEFORE = "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}"
AFTER = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"

Mark = Literal["", "live", "asking", "done", "failed"]

_MARKS: dict[str, tuple[str, str]] = {
    "live": ("●", "$text-accent"),
    "asking": ("?", "bold $text-warning"),
    "done": ("✓", "$text-success"),
    "failed": ("✗", "$text-error"),
}


@dataclass(frozen=True, slots=True)
class Label:
    """What one tab's label says."""

    title: str
    """The chat's title (the client's own words or the store's cleaned title)."""
    mark: Mark = ""
    """Its run's state (module docstring)."""


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a tab's label is on the bar: columns ``start`` (included) to ``end``."""

    index: int
    start: int
    end: int
    close: int
    """The column of its close mark."""


def _cut(title: str, room: int) -> str:
    return title if len(title) <= room else title[: max(room - 1, 0)] + "…"


def pieces(number: int, label: Label, room: int) -> list[tuple[str, str]]:
    """One label as (text, what it is): ``number``, ``mark``, ``title``, ``close``."""
    parts = [(f" {number} ", "number")]
    if label.mark:
        parts.append((f"{_MARKS[label.mark][0]} ", "mark"))
    parts += [(_cut(label.title, room), "title"), (f" {CLOSE} ", "close")]
    return parts


def _chrome(number: int, label: Label) -> int:
    """The columns of a label besides its title: number, mark and close mark."""
    return len(f" {number} ") + (2 if label.mark else 0) + 3


def _width(number: int, label: Label, room: int) -> int:
    return _chrome(number, label) + len(_cut(label.title, room))


@dataclass(frozen=True, slots=True)
class Layout:
    """The labels fitted to the bar's width (`lay_out`)."""

    spots: list[Spot]
    """Where each shown tab's label is."""
    room: int
    """Characters each title is cut to."""
    before: int
    """Tabs left out before the first shown."""
    after: int
    """Tabs left out after the last shown."""


#: Columns the counts of tabs left out take (`BEFORE`, `AFTER`).
_EDGE = 3


def lay_out(labels: list[Label], current: int, width: int) -> Layout:
    """Fit the labels in ``width`` columns. Every title gets the same room; when even the
    shortest (`MIN_TITLE`) do not fit, the tabs nearest the current one are kept."""
    count = len(labels)
    if not count:
        return Layout([], 0, 0, 0)
    fixed = sum(_chrome(i + 1, label) for i, label in enumerate(labels))
    room = min(MAX_TITLE, max(len(label.title) for label in labels))
    while room > MIN_TITLE and fixed + sum(min(len(lb.title), room) for lb in labels) > width:
        room -= 1
    first, last = 0, count  # the shown tabs: [first, last)

    def needed(first: int, last: int) -> int:
        edges = (_EDGE if first else 0) + (_EDGE if last < count else 0)
        return sum(_width(i + 1, labels[i], room) for i in range(first, last)) + edges

    while last - first > 1 and needed(first, last) > width:
        # Leave out the tab farthest from the current one.
        if current - first > last - 1 - current:
            first += 1
        else:
            last -= 1
    spots = []
    column = _EDGE if first else 0
    for i in range(first, last):
        end = column + _width(i + 1, labels[i], room)
        spots.append(Spot(i, column, end, end - 2))
        column = end
    return Layout(spots, room, first, count - last)


class TabBar(Widget):
    """The open chats as labels (module docstring)."""

    DEFAULT_CSS = """
    TabBar { height: 1; background: $panel-darken-1; color: $text-muted; }
    TabBar.-single { display: none; }
    """

    ALLOW_SELECT: ClassVar[bool] = False

    @dataclass
    class Chosen(Message):
        """A label was clicked: show tab ``index``."""

        index: int

    @dataclass
    class Closed(Message):
        """A label's close mark was clicked: close tab ``index``."""

        index: int

    @dataclass
    class Moved(Message):
        """Label ``index`` was dragged onto label ``to``: move the tab there."""

        index: int
        to: int

    def __init__(self, *, id: str | None = None) -> None:
        # No tab yet: hidden as with one (`show`), also in a first frame drawn before any tab
        # is made (`openwop_tui.ui.first_frame`).
        super().__init__(id=id, classes="-single")
        self.labels: list[Label] = []
        """Each tab's label, in order."""
        self.current = 0
        """The tab shown."""
        self._spots: list[Spot] = []
        self._pressed: int | None = None
        """The label the mouse went down on (a drag moves it)."""
        self._dragged = False

    def show(self, labels: list[Label], current: int) -> None:
        """The tabs as they are now: draw them (hidden while there is only one)."""
        if labels == self.labels and current == self.current:
            return
        self.labels, self.current = list(labels), current
        self.set_class(len(labels) < 2, "-single")
        self.refresh()

    def render(self) -> Content:
        layout = lay_out(self.labels, self.current, self.size.width)
        self._spots = layout.spots
        drawn: list[tuple[str, str]] = []
        if layout.before:
            drawn.append((f"{BEFORE}{layout.before} ", "$text-muted"))
        for spot in layout.spots:
            label = self.labels[spot.index]
            lit = spot.index == self.current
            # The others in the bar's own colour (muted, from its CSS); the shown one lit.
            on = " on $surface" if lit else ""
            for text, kind in pieces(spot.index + 1, label, layout.room):
                if kind == "mark":
                    style = _MARKS[label.mark][1] + on
                elif lit:
                    style = ("bold $text-primary" if kind == "number" else "bold $foreground") + on
                else:
                    style = ""
                drawn.append((text, style))
        if layout.after:
            drawn.append((f" {layout.after}{AFTER}", "$text-muted"))
        return Content.assemble(*drawn)

    def _at(self, x: int) -> Spot | None:
        return next((spot for spot in self._spots if spot.start <= x < spot.end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        spot = self._at(event.x)
        self._pressed = spot.index if spot is not None else None
        self._dragged = False
        if spot is not None:
            self.capture_mouse()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        pressed, self._pressed = self._pressed, None
        self.release_mouse()
        spot = self._at(event.x)
        if pressed is not None and spot is not None and spot.index != pressed:
            self._dragged = True  # (the click that follows is the drag's end, not a choice)
            self.post_message(self.Moved(pressed, spot.index))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self._dragged:
            self._dragged = False
            return
        spot = self._at(event.x)
        if spot is None:
            return
        if spot.close <= event.x < spot.close + 1:
            self.post_message(self.Closed(spot.index))
        else:
            self.post_message(self.Chosen(spot.index))
