"""A key's echo drawn at once, ahead of the screen's next frame.

Textual draws a changed widget in the screen's next frame: a timer ticking 60 times a second
draws every widget changed since the last, after laying the screen out again if any asked for
it. A key typed into the prompt waited for the next tick (8 ms on average), then for whatever
else that frame drew: a streaming reply's new lines, a layout of the whole screen (issue 26:
a key typed 30 ms into a rich answer shared its frame with the reply's first lines and the
footer's new key, 8-26 ms on a loaded machine, where drawing the prompt alone takes 1-2).

`draw_now` draws one widget's changed lines at once, in a frame of their own, where the screen
stands now; everything else changed is left for the next frame, as before. It is only done
where the widget's place cannot have moved since the screen was last laid out: it asked for no
layout itself, the terminal was not resized, the screen is the one shown and no batch of
updates is open. A layout still due for the rest of the screen (a reply growing above the
prompt, a key added to the footer below it) does not move a prompt docked at the bottom whose
size did not change; the next frame draws it again anyway, so a frame later the screen is
exactly what Textual would have drawn. Keys still waiting (`keys_waiting`) are left to be
drawn with the last of them.
"""

from __future__ import annotations

from contextlib import suppress

from textual.events import Key
from textual.message_pump import MessagePump
from textual.widget import Widget

__all__ = ["draw_now", "key_queued", "keys_waiting"]


def draw_now(widget: Widget) -> bool:
    """Draw ``widget``'s changed lines now, alone (see the module's docstring); whether it
    was drawn (``False``: left to the next frame)."""
    try:
        screen = widget.screen
    except Exception:  # (not on a screen any more: nothing to draw)
        return False
    app = widget.app
    compositor = screen._compositor
    if (
        not screen.is_current
        or app._batch_count
        or widget._layout_required
        or widget not in compositor.visible_widgets
        or compositor.size != screen.size
    ):
        return False
    # What it marked to repaint, taken now: the screen's next frame (told of the change by a
    # message still on its way) finds nothing left of it to draw.
    compositor.update_widgets({widget})
    if not compositor._dirty_regions:
        return False
    app._display(screen, compositor.render_update(screen_stack=app._background_screens))
    return True


def keys_waiting(widget: Widget, screen: MessagePump | None = None) -> bool:
    """Whether keys wait to reach ``widget``: in its own queue, its screen's or the app's (a
    burst typed, or typed ahead, is drawn with its last key: one drawing, not one a key).
    ``screen``: the screen it is on, when the caller has it (found from the widget, it is a
    walk up its parents)."""
    pumps: list[MessagePump] = [widget, widget.app]
    if screen is not None:
        pumps.append(screen)
    else:
        with suppress(Exception):  # (not on a screen any more: its own queue and the app's)
            pumps.append(widget.screen)
    return key_queued(pumps)


def key_queued(pumps: list[MessagePump]) -> bool:
    """Whether a key waits in any of ``pumps``' queues."""
    for pump in pumps:
        # (Textual's queue keeps its messages in ``values``; nothing else shows what waits.)
        waiting = getattr(pump._message_queue, "values", ())
        if any(isinstance(message, Key) for message in waiting):
            return True
    return False
