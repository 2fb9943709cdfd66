"""The key table (`openwop_tui.keymap`) as Textual sees it: bindings with ids a keymap can move,
the keys an app runs after its keymap, and whether the app has an action.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding
from textual.dom import DOMNode

from openwop_tui.keymap import (
    ACTIONS,
    ALSO_RUNS,
    APP_KEYS,
    NAMED_KEYS,
    PROMPT_KEYS,
    RESERVED,
    KeyAction,
    check_keymap,
    display,
    effective,
)

__all__ = [
    "ACTIONS",
    "ALSO_RUNS",
    "APP_KEYS",
    "NAMED_KEYS",
    "PROMPT_KEYS",
    "RESERVED",
    "KeyAction",
    "available",
    "bindings",
    "check_keymap",
    "display",
    "in_effect",
]


def in_effect(app: DOMNode) -> dict[str, str]:
    """Every action's keys as ``app`` runs them: after its `App.set_keymap`.

    Textual 8.2 has a setter but no public getter for the keymap, so this one place reads it."""
    keymap = getattr(app, "_keymap", None)
    return effective(keymap if isinstance(keymap, Mapping) else {})


def bindings(entries: Iterable[KeyAction]) -> list[Binding]:
    """Textual bindings for ``entries``, with their names as ids so a keymap can move them; an
    entry's other meanings (`ALSO_RUNS`) follow it, with its keys and id (``[keys]`` moves
    them together), its ``show`` and its priority."""
    made = []
    for entry in entries:
        made.append(
            Binding(
                entry.keys,
                entry.action,
                entry.title,
                show=entry.show,
                priority=entry.priority,
                tooltip=entry.description,
                id=entry.name,
            )
        )
        made.extend(
            Binding(
                entry.keys,
                also.action,
                also.title,
                show=entry.show,
                priority=entry.priority,
                tooltip=also.description,
                id=entry.name,
            )
            for also in ALSO_RUNS
            if also.name == entry.name
        )
    return made


def available(node: DOMNode, action: str) -> bool:
    """Whether ``node`` (the app) has the method behind ``action`` (``name`` or ``name(args)``)."""
    name = action.partition("(")[0]
    return callable(getattr(node, f"action_{name}", None))
