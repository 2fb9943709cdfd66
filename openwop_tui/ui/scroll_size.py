"""A scroll view's content grown or shrunk without the whole screen laid out again.

Textual's `Widget.virtual_size` is a reactive that lays the screen out whenever it changes:
every widget placed again, then the screen drawn. A view that grows as a run streams (the
transcript as a reply comes in, the timeline by a row an event) changed it at nearly every
frame: a flood of 10,000 events a second laid the screen out ten times a second (12-18 ms each
with the paint that followed), for a view whose place on screen had not moved.

What a view's content size can change on screen is its scroll bars: a bar appears when the
content starts to overflow (and takes a column from the content) and goes when it stops. So
`set_virtual_size` asks for a layout only when a bar may appear or go; otherwise it sets the
size, tells the bars (their thumbs, and the scroll position kept within the new size) once the
work at hand is done, and leaves the view's redraw to its owner, which asks for one after every
change anyway. (Told at every change, the bars cost more than the layout they replace where
changes come many between two frames: 10,000 items put in the view one by one, 0.7 -> 0.9 s.)
"""

from __future__ import annotations

import weakref

from textual.geometry import Size
from textual.widget import Widget

__all__ = ["bars_kept", "set_virtual_size"]

#: Views whose bars are to be told of their content's size once the work at hand is done.
_bars_due: weakref.WeakSet[Widget] = weakref.WeakSet()


def set_virtual_size(view: Widget, size: Size) -> None:
    """Give ``view`` (a scroll view that draws its own lines) the content size ``size``,
    laying the screen out again only if its scroll bars may change (`bars_kept`)."""
    if view.virtual_size == size:
        return
    if bars_kept(view, size):
        # What the reactive's setter does, less the layout: the value set, the bars told
        # after the message at hand (`_scroll_update` is Textual's own step for this, as its
        # layout calls it), once however many changes it makes.
        view.set_reactive(Widget.virtual_size, size)
        if view not in _bars_due:
            _bars_due.add(view)
            view.call_next(_tell_bars, view)
    else:
        view.virtual_size = size


def _tell_bars(view: Widget) -> None:
    _bars_due.discard(view)
    view._scroll_update(view.virtual_size)


def bars_kept(view: Widget, size: Size) -> bool:
    """Whether ``view``'s scroll bars stay as they are when its content size becomes
    ``size``: the same width (so the horizontal bar is decided as before), and a vertical bar
    that either never depends on the height (``overflow-y`` ``scroll`` or ``hidden``) or is
    shown and stays needed (the content taller than the whole view before and after, so taller
    than what a horizontal bar would leave too)."""
    old = view.virtual_size
    if size.width != old.width:
        return False
    if view.styles.overflow_y != "auto":
        return True
    height = view.container_size.height
    return view.show_vertical_scrollbar and min(old.height, size.height) > height
