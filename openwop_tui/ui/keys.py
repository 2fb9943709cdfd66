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
    AlsoRuns,
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


#: What Textual reads Alt+1…9 as from a terminal without the kitty keyboard protocol (xterm,
#: tmux, GNOME Terminal send ESC and the digit): macOS's Option+digit character, ``™`` for
#: Alt+2 (``textual/_ansi_sequences.py``). Bound beside ``alt+N`` (`bindings`), so Alt+1…9 reach
#: the app in every terminal (tests/ui/test_tabs_keys.py checks these against Textual's table).
ALT_DIGITS = {
    "alt+1": "inverted_exclamation_mark",
    "alt+2": "trade_mark_sign",
    "alt+3": "pound_sign",
    "alt+4": "cent_sign",
    "alt+5": "infinity",
    "alt+6": "section_sign",
    "alt+7": "pilcrow_sign",
    "alt+8": "bullet",
    "alt+9": "\N{FEMININE ORDINAL INDICATOR}",
}


def with_legacy(keys: str) -> str:
    """``keys`` (``alt+2``) and what Textual reads each as from a terminal that sends it the
    old way (`ALT_DIGITS`)."""
    return ",".join(
        f"{key},{ALT_DIGITS[key]}" if key in ALT_DIGITS else key for key in keys.split(",")
    )


def bindings(entries: Iterable[KeyAction]) -> list[Binding]:
    """Textual bindings for ``entries``, with their names as ids so a keymap can move them; an
    entry's other meanings (`ALSO_RUNS`) follow it, with its keys and id (``[keys]`` moves
    them together), its ``show`` and its priority."""
    made: list[Binding] = []
    for entry in entries:
        meanings: list[KeyAction | AlsoRuns] = [entry]
        meanings += [also for also in ALSO_RUNS if also.name == entry.name]
        made.extend(
            Binding(
                with_legacy(entry.keys),
                meaning.action,
                meaning.title,
                show=entry.show,
                priority=entry.priority,
                tooltip=meaning.description,
                id=entry.name,
            )
            for meaning in meanings
        )
    return made


def available(node: DOMNode, action: str) -> bool:
    """Whether ``node`` (the app) has the method behind ``action`` (``name`` or ``name(args)``)."""
    name = action.partition("(")[0]
    return callable(getattr(node, f"action_{name}", None))
