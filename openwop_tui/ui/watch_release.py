"""A widget that watches another object lets go of it when the widget is closed.

Textual keeps a watcher where the watched attribute lives: ``self.watch(obj, "attr", ...)``
(and ``data_bind``, which calls it) adds ``(self, callback)`` to ``obj``'s own list. The list
drops closed widgets only when ``attr`` changes again, so a short-lived widget watching a
long-lived object stays reachable from it, with its styles, caches and message queue, until
that attribute next changes: often never (Textual issue 6666, open in the Textual the app
depends on).

The app met it in its footer. Textual's `Footer` is composed again whenever the keys on offer
change (a run starting and ending, a panel opened), and each `FooterKey` it makes is bound to
the footer's ``compact``, which never changes: every turn left a dozen closed keys behind, a
third of what 300 short turns grew the app by (issue 26). (The app's footer now keeps its keys,
`openwop_tui.ui.widgets.footer`; the release stays for every other widget that watches.)

`install` wraps `DOMNode.watch` to note, on the watching node, which objects it watches, and
`MessagePump._close_messages` (every node's closing, removal included) to take its entries
out of those objects' lists once it is closing. Textual would skip those entries anyway (a
closing node's callback is never called again), so nothing a user sees changes; the closed
widget is freed as soon as nothing else holds it. Installed once, before the app composes
(`openwop_tui.ui.leaks`); checked against the Textual the app depends on
(`tests/ui/test_watch_release.py`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode
from textual.message_pump import MessagePump

__all__ = ["install"]

_INSTALLED = "_openwop_watch_release"
#: Where a node notes what it watches: (a weak reference to the watched object, the attribute).
_WATCHED = "_openwop_watched"
#: Textual's own name for the watchers it keeps on a watched object (`textual.reactive._watch`).
_WATCHERS = "__watchers"


def install() -> None:
    """Wrap `DOMNode.watch` and `MessagePump._close_messages` (once: a second call changes
    nothing)."""
    if getattr(DOMNode, _INSTALLED, False):
        return
    watch = DOMNode.watch
    close_messages = MessagePump._close_messages

    def watch_noted(
        self: DOMNode, obj: DOMNode, attribute_name: str, callback: Any, init: bool = True
    ) -> None:
        """Textual's `DOMNode.watch`, the watched object noted on ``self``.

        Args:
            obj: What is watched (the app, a parent widget...).
            attribute_name: Its reactive attribute watched.
            callback: Called with the old and new values when the attribute changes.
            init: Whether the callback is called once at once.
        """
        watch(self, obj, attribute_name, callback, init=init)
        if obj is not self:  # (its own watchers go with it: Textual clears them as it closes)
            _note(self, obj, attribute_name)

    async def close_messages_releasing(self: MessagePump, wait: bool = True) -> None:
        was_open = not (self._closed or self._closing)
        try:
            await close_messages(self, wait)
        finally:
            if was_open:
                release(self)

    _wrap(DOMNode, "watch", watch, watch_noted)
    _wrap(MessagePump, "_close_messages", close_messages, close_messages_releasing)
    setattr(DOMNode, _INSTALLED, True)


def _note(node: DOMNode, obj: object, attribute_name: str) -> None:
    """Note on ``node`` that it watches ``obj.attribute_name`` (once per pair)."""
    try:
        ref = weakref.ref(obj)
    except TypeError:
        return  # (an object that cannot be referred to weakly is not a long-lived node)
    watched: list[tuple[weakref.ref[object], str]] = node.__dict__.setdefault(_WATCHED, [])
    if not any(seen() is obj and name == attribute_name for seen, name in watched):
        watched.append((ref, attribute_name))


def release(node: MessagePump) -> None:
    """Take ``node``'s entries out of the watcher lists of everything it watches."""
    watched: list[tuple[weakref.ref[object], str]] = node.__dict__.pop(_WATCHED, [])
    for ref, attribute_name in watched:
        obj = ref()
        if obj is None:
            continue
        by_attribute: dict[str, list[tuple[object, object]]] = getattr(obj, _WATCHERS, {})
        watchers = by_attribute.get(attribute_name)
        if watchers:
            # A new list, not the old one changed: Textual may be going through the old one
            # (a watcher whose callback closes a node) and must not have entries skipped.
            by_attribute[attribute_name] = [entry for entry in watchers if entry[0] is not node]


def _wrap(
    owner: type, name: str, original: Callable[..., Any], wrapper: Callable[..., Any]
) -> None:
    """Put ``wrapper`` in place of ``original`` on ``owner``, under its names.

    Args:
        owner: The class whose method is wrapped.
        name: The method's name.
        original: The method as Textual defines it.
        wrapper: What calls it, and does more.
    """
    wrapper.__name__ = original.__name__
    wrapper.__qualname__ = original.__qualname__
    wrapper.__doc__ = original.__doc__
    setattr(owner, name, wrapper)
