"""Every key of the app, by place, made from the bindings themselves: what F1 shows.

The help cannot drift from the keys because it is not written apart from them. The app's keys
come from the key table (`openwop_tui.keymap`, after the config's ``[keys]``); each place a
person can be in (the input, the transcript, the attachments, a question's form, the search
bar, the events panel, a JSON tree) lists its widget classes, and their own ``BINDINGS`` are
its keys, each with its help line (the binding's ``tooltip``, which the footer also shows on
hover). A binding added to one of those widgets shows up in F1 with it; one added without a
help line fails tests/ui/test_key_help.py, as does a widget with keys that is in no place.

`sections` puts the focused place first ("Here"), then the keys that work everywhere, then the
other places; each key is listed once per place. A binding a place leaves out while a setting
is off (the transcript's vim-style keys) is not listed then (`Place.optional`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

from openwop_tui.ui import keys
from openwop_tui.ui.transcript.keys import vim_binding
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.interrupt_form import InterruptForm
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.widgets.prompt import PromptInput
from openwop_tui.ui.widgets.search_bar import SearchBar, SearchInput
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel
from openwop_tui.ui.widgets.timeline_view import TimelineView


@dataclass(frozen=True, slots=True)
class KeyLine:
    """One line of the help: keys, and what they do there."""

    keys: str
    """As a person reads them: ``F1 / Ctrl+G``, ``E``, ``0…9``."""
    does: str
    name: str | None = None
    """The ``[keys]`` name, for the app's own keys (they can be moved)."""


@dataclass(frozen=True, slots=True)
class Section:
    """The keys of one place."""

    title: str
    lines: tuple[KeyLine, ...]
    here: bool = False
    """The place the focus was in when the help was asked for."""


@dataclass(frozen=True, slots=True)
class Place:
    """Somewhere the focus can be, and the widget classes whose keys work there."""

    title: str
    widgets: tuple[type[Widget], ...]
    own: tuple[KeyLine, ...] = ()
    """Keys the widget reads itself rather than binds (the input's), listed first."""
    optional: Callable[[App[Any], Binding], bool] | None = field(default=None, compare=False)
    """Whether a binding is left out in ``app`` now (a setting that is off)."""


def _vim_off(app: App[Any], binding: Binding) -> bool:
    """The transcript's vim-style keys are listed only while ``vim_keys`` is on."""
    config = getattr(app, "config", None)
    return vim_binding(binding) and not getattr(config, "vim_keys", False)


#: The input's keys that are not bindings (`PromptInput._on_key` reads them).
_PROMPT_OWN = (
    KeyLine("↑ / ↓", "on the first / last line: earlier / later messages you sent"),
    KeyLine("Ctrl+C / Ctrl+V", "copy / paste (Ctrl+Z undoes: the input's editing keys)"),
)

PLACES: tuple[Place, ...] = (
    Place("In the input", (PromptInput,), _PROMPT_OWN),
    Place("In the transcript", (TranscriptView,), optional=_vim_off),
    Place("On the attachments", (AttachmentChips,)),
    Place("In a question's form", (InterruptForm,)),
    Place("In the search bar", (SearchBar, SearchInput)),
    Place("In the events panel and the timeline", (TimelinePanel, TimelineView)),
    Place("In a JSON tree (an event, the inspector)", (JsonTree,)),
)

#: Keys whose Textual names are not what a person reads.
_NAMES = {
    "escape": "Esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "space": "Space",
    "enter": "Enter",
    "tab": "Tab",
    "delete": "Del",
    "backspace": "Backspace",
    "home": "Home",
    "end": "End",
    "slash": "/",
    "minus": "-",
    "asterisk": "*",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "backslash": "\\",
}


def key_shown(key: str) -> str:
    """One Textual key as a person reads it: ``ctrl+d`` -> ``Ctrl+D``, ``E`` stays ``E``
    (letters keep their case: ``e`` and ``E`` are different keys), ``slash`` -> ``/``."""
    *modifiers, base = key.strip().split("+")
    if len(base) == 1:
        name = base.upper() if modifiers and base.isalpha() else base
    else:
        name = _NAMES.get(base, base.upper() if base[0] == "f" and base[1:].isdigit() else base)
    return "+".join([*(modifier.capitalize() for modifier in modifiers), name])


def keys_shown(keys_given: str) -> str:
    """``up,k`` -> ``↑ / k``."""
    return " / ".join(key_shown(key) for key in keys_given.split(","))


def _own_bindings(widget: type[DOMNode]) -> list[Binding]:
    """The bindings ``widget`` declares itself (not those it inherits from Textual)."""
    declared = widget.__dict__.get("BINDINGS", ())
    return [binding for binding in declared if isinstance(binding, Binding)]


def _help_of(binding: Binding) -> str:
    return binding.tooltip or binding.description


def place_lines(app: App[Any], place: Place) -> tuple[KeyLine, ...]:
    """The keys of ``place`` in ``app`` now: one line per meaning (bindings that share an
    action and a help line, or a footer group, are one line with their keys together)."""
    lines: list[KeyLine] = list(place.own)
    if PromptInput in place.widgets:
        in_effect = keys.in_effect(app)
        lines[:0] = [
            KeyLine(keys.display(in_effect[entry.name]), entry.description, entry.name)
            for entry in keys.PROMPT_KEYS
        ]
    # One line per meaning: bindings with the same help line (the clip's ten digits) share it.
    merged: dict[str, list[str]] = {}
    for widget in place.widgets:
        for binding in _own_bindings(widget):
            if binding.system or (place.optional is not None and place.optional(app, binding)):
                continue
            merged.setdefault(_help_of(binding), []).extend(binding.key.split(","))
    lines.extend(KeyLine(_together(given), does) for does, given in merged.items())
    return tuple(lines)


def _together(given: Sequence[str]) -> str:
    """Keys of one meaning: a run of digits as ``0…9``, the rest as they are."""
    digits = [key for key in given if key.isdigit()]
    rest = [key_shown(key) for key in given if not key.isdigit()]
    if len(digits) > 2:
        rest.insert(0, f"{digits[0]}…{digits[-1]}")
    else:
        rest[:0] = digits
    return " / ".join(rest)


def app_lines(app: App[Any]) -> tuple[KeyLine, ...]:
    """The app's own keys (those it has: `keys.available`), as moved by ``[keys]``; a key's
    other meanings (`keys.ALSO_RUNS`) on its line; then the screen's own keys that no entry of
    the table took (Textual's Ctrl+C, copying the selected text)."""
    in_effect = keys.in_effect(app)
    lines = []
    taken: set[str] = set()
    for entry in keys.APP_KEYS:
        if not keys.available(app, entry.action):
            continue
        given = in_effect[entry.name]
        taken.update(given.split(","))
        meanings = [entry.description] + [
            also.description
            for also in keys.ALSO_RUNS
            if also.name == entry.name and keys.available(app, also.action)
        ]
        lines.append(KeyLine(keys.display(given), "; ".join(meanings), entry.name))
    for binding in Screen.BINDINGS:
        if isinstance(binding, Binding) and not binding.system:
            left = [key for key in binding.key.split(",") if key not in taken]
            if left and binding.description:
                lines.append(KeyLine(keys_shown(",".join(left)), binding.description.lower()))
    return tuple(lines)


def place_of(focused: DOMNode | None) -> Place | None:
    """The place ``focused`` is in (its own class or one of its containers')."""
    if focused is None:
        return None
    for node in focused.ancestors_with_self:
        for place in PLACES:
            if isinstance(node, place.widgets):
                return place
    return None


def sections(app: App[Any], focused: DOMNode | None) -> list[Section]:
    """The help's sections: the place of ``focused`` first, then every place's keys."""
    here = place_of(focused)
    made = []
    if here is not None:
        made.append(Section(f"Here: {here.title.lower()}", place_lines(app, here), here=True))
    made.append(Section("Everywhere", app_lines(app)))
    made.extend(
        Section(place.title, place_lines(app, place)) for place in PLACES if place is not here
    )
    return [section for section in made if section.lines]


def every_line(found: Iterable[Section]) -> list[tuple[str, str, str]]:
    """(section, keys, does) of each line, in order: what the help screen shows."""
    return [(section.title, line.keys, line.does) for section in found for line in section.lines]
