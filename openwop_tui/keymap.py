"""Every key binding of the app in one table, changeable from the config file's ``[keys]``.

Each entry has a name (the ``[keys]`` name and the Textual binding id), the action it runs, its
default keys and what it does; the app's and the prompt's ``BINDINGS`` are built from it, the help
screen lists it and the command palette shows the keys next to each command. A user's ``[keys]``
table (``help = "ctrl+g"``) is checked here, once, when the config is read: an unknown name, a
key Textual cannot name, a bare letter (it would be typed into the input, never reach the app) or
one key given to two actions is a `ValueError` with a sentence; `Config` turns it into a
`ConfigError`. The app hands the result to `App.set_keymap`, which swaps the keys of the
bindings with these ids.

Function keys have control- or alt-key alternatives (F1 Ctrl+G, F2 Ctrl+T, F3 Alt+L, F4 Ctrl+\\,
F5 Alt+A): many laptops and terminals take the function keys for themselves. Ctrl+N is New
chat, as in other chat apps, in a tab of its own. The tab keys are those every terminal sends
and browsers use: Ctrl+PgDn/PgUp to the next or previous tab (Ctrl+Tab and Ctrl+Shift+Tab too
where the terminal tells them from Tab: kitty, foot, WezTerm, Ghostty), Ctrl+Shift+PgDn/PgUp to
move one, Alt+1…9 to jump (9: the last), Ctrl+F4 or Alt+X to close (Ctrl+W is the input's: it
deletes a word). The control letters left over are the input's own. None of the
defaults is one that Textual's `TextArea` (the prompt) or `App` already binds.
F9 (the timeline screen), F8 (statistics) and F10 (settings) have none: no control letter is
left that the input does not keep (`RESERVED`), and all are in the palette; ``[keys]`` can add
one.

No Textual here: the config (and so the command-line tools) read this table;
`openwop_tui.ui.keys` makes Textual bindings of it.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class KeyAction:
    """One bindable action."""

    name: str
    """The name in ``[keys]`` and the binding id."""
    action: str
    """The Textual action the keys run, e.g. ``scroll_transcript(-1)``."""
    keys: str
    """Default keys, comma-separated, in Textual's names (``ctrl+g``, ``f1``, ``pageup``)."""
    title: str
    """A few words, for the footer and the command palette."""
    description: str
    """What it does, for the help screen."""
    show: bool = False
    """Shown in the footer."""
    priority: bool = False
    """Checked before the focused widget's own keys."""


#: The app's own actions. Help and the palette list only the ones the app has (`available`), so
#: the table can name actions that later work adds; until then their keys do nothing.
APP_KEYS: tuple[KeyAction, ...] = (
    KeyAction("cancel_run", "cancel_run", "escape", "Cancel run", "cancel the running run", True),
    KeyAction("help", "help", "f1,ctrl+g", "Help", "this help: every key", True),
    KeyAction(
        "events",
        "toggle_events",
        "f2,ctrl+t",
        "Events",
        "event timeline beside the transcript: every run event, filtered, with lint marks",
        True,
    ),
    KeyAction(
        "timeline",
        "timeline",
        "f9",
        "Timeline",
        "the event timeline as a screen of its own",
    ),
    KeyAction(
        "stats",
        "stats",
        "f8",
        "Stats",
        "run statistics: node timings as bars, tokens per node and model, first token, rate",
    ),
    KeyAction(
        "new_chat",
        "new_chat",
        "ctrl+n",
        "New chat",
        "a new chat in a tab of its own: the chats already open stay open, and in the sessions "
        "list (Ctrl+O)",
        True,
    ),
    KeyAction(
        "close_tab",
        "close_tab",
        "ctrl+f4,alt+x",
        "Close tab",
        "close this tab (asks first while its run is live); its session stays in the sessions "
        "list; closing the last one leaves a new chat",
    ),
    KeyAction("next_tab", "next_tab(1)", "ctrl+pagedown,ctrl+tab", "Next tab", "the next tab"),
    KeyAction(
        "previous_tab",
        "next_tab(-1)",
        "ctrl+pageup,ctrl+shift+tab",
        "Previous tab",
        "the previous tab",
    ),
    KeyAction(
        "move_tab_right",
        "move_tab(1)",
        "ctrl+shift+pagedown",
        "Move tab right",
        "move this tab one place right (or drag its label)",
    ),
    KeyAction(
        "move_tab_left",
        "move_tab(-1)",
        "ctrl+shift+pageup",
        "Move tab left",
        "move this tab one place left (or drag its label)",
    ),
    # Before the prompt, which would type the character an old terminal's Alt+digit arrives as
    # (`openwop_tui.ui.keys.ALT_DIGITS`).
    *(
        KeyAction(
            f"tab_{n}", f"go_to_tab({n})", f"alt+{n}", f"Tab {n}", f"go to tab {n}", priority=True
        )
        for n in range(1, 9)
    ),
    KeyAction("tab_9", "go_to_tab(9)", "alt+9", "Last tab", "go to the last tab", priority=True),
    KeyAction(
        "lifecycle",
        "toggle_verbose",
        "f3,alt+l",
        "Lifecycle",
        "show or hide lifecycle lines (node started, usage…)",
        True,
    ),
    KeyAction(
        "form",
        "focus_form",
        "f5,alt+a",
        "Answer",
        "from the input: back to the open question's form (the newest one)",
        True,
    ),
    KeyAction(
        "settings",
        "settings",
        "f10",
        "Settings",
        "settings: where the config, sessions, log and downloads are; theme, code theme, "
        "images, audio, host, API key and workflow, applied at once",
    ),
    KeyAction("sessions", "sessions", "ctrl+o", "Sessions", "open, rename or delete a session"),
    KeyAction(
        "attach_file",
        "attach_file",
        # (Not Alt+F: a terminal without the kitty keyboard protocol sends it as ESC f, which
        # Textual reads as Ctrl+→, a word to the right, as iTerm's natural editing does.)
        "f12,alt+u",
        "Attach",
        "attach a file to the next message: a picture, a document or a clip",
    ),
    KeyAction(
        "attachments",
        "focus_attachments",
        "alt+up",
        "Attachments",
        "go to the attachments above the message: ←/→ choose, Del removes one",
    ),
    KeyAction(
        "record_voice",
        "record_voice",
        "f11,alt+r",
        "Record",
        "record a voice message (the same key stops, Esc discards): attached to the next one",
    ),
    KeyAction("search", "search", "ctrl+f", "Search", "search the transcript"),
    KeyAction(
        "search_all",
        "search_all",
        "ctrl+shift+f,alt+s",
        "Search all",
        "search every stored session as you type; Enter opens one at the match",
        # Before the input, which would type Alt+S's "s". (Alt+S beside Ctrl+Shift+F: most
        # terminals send Ctrl+Shift+F as Ctrl+F, the transcript's search.)
        priority=True,
    ),
    KeyAction(
        "transcript",
        "enter_transcript",
        "ctrl+up",
        "Transcript",
        "from anywhere: into the transcript, at the newest item",
        priority=True,  # before the input's own Ctrl+Up
    ),
    KeyAction(
        "next_place",
        "next_place",
        "tab",
        "Next",
        "the next place: the events panel, the transcript, the attachments, the input… "
        "(a ring: Shift+Tab goes back through the same places)",
    ),
    KeyAction(
        "previous_place",
        "previous_place",
        "shift+tab",
        "Previous",
        "the previous place in the same ring (from the input: the transcript, at the newest item)",
        priority=True,  # before a widget's own Shift+Tab, so every place goes back the same way
    ),
    KeyAction("export", "export", "ctrl+s", "Export", "export this session to a file"),
    KeyAction(
        "palette", "command_palette", "ctrl+p", "Commands", "command palette: every action", True
    ),
    KeyAction("clear", "clear", "ctrl+l", "Clear", "clear the screen (the history is kept)"),
    KeyAction(
        "lab",
        "lab",
        "f4,ctrl+backslash",
        "Lab",
        "degradation lab: what the terminal supports, and switches for images, colours, audio…",
    ),
    KeyAction("page_up", "scroll_transcript(-1)", "pageup", "Page up", "scroll the transcript up"),
    KeyAction(
        "page_down", "scroll_transcript(1)", "pagedown", "Page down", "scroll the transcript down"
    ),
    KeyAction("quit", "quit", "ctrl+q", "Quit", "quit (asks first while a run is going)", True),
)

#: The prompt's keys, read by `PromptInput._on_key` (not bindings: see there why).
PROMPT_KEYS: tuple[KeyAction, ...] = (
    KeyAction("send", "send", "enter", "Send", "send the message"),
    KeyAction(
        "newline",
        "newline",
        "shift+enter,ctrl+j",
        "New line",
        "a new line in the message (Ctrl+J works in every terminal)",
    ),
)

ACTIONS: dict[str, KeyAction] = {entry.name: entry for entry in APP_KEYS + PROMPT_KEYS}


@dataclass(frozen=True, slots=True)
class AlsoRuns:
    """Another action the keys of an `APP_KEYS` entry run, where that entry's does not apply.

    One key, one meaning at a time: Esc cancels a live run, keeps the exchange while the last
    message is edited, discards a voice message being recorded. Each is a binding of its own
    (the app's ``check_action`` enables the one that applies, so the footer names what Esc does
    there) with the entry's id, so ``[keys]`` moves them together."""

    name: str
    """The `APP_KEYS` entry whose keys these are."""
    action: str
    title: str
    """The footer's words while this meaning applies."""
    description: str
    """When it applies and what it does, for the help screen."""


#: The other meanings of the app's keys. At most one meaning of a key applies at a time (the
#: app's ``check_action`` makes them exclusive: while recording, Esc discards the clip and
#: nothing else; with a run live it cancels the run, an edit or not).
ALSO_RUNS: tuple[AlsoRuns, ...] = (
    AlsoRuns(
        "cancel_run",
        "discard_recording",
        "Discard recording",
        "while a voice message is recorded: discard it (nothing else)",
    ),
    AlsoRuns(
        "cancel_run",
        "cancel_edit",
        "Keep exchange",
        "while your last message is edited in the input: keep the exchange as it was",
    ),
)

_MODIFIERS = ("ctrl", "alt", "shift", "meta", "super", "hyper")
#: Named keys Textual knows (tests/ui/test_keys.py checks each against `textual.keys`).
NAMED_KEYS = frozenset(
    {
        "escape",
        "enter",
        "tab",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        "space",
        *(f"f{number}" for number in range(1, 25)),
    }
)
#: Keys the prompt (Textual's `TextArea`) and the screen keep for themselves: given to an app
#: action they would never reach it while the input has focus (tests/ui/test_keys.py compares this
#: with Textual's bindings).
RESERVED = frozenset(
    {
        "up", "down", "left", "right", "home", "end", "backspace", "delete", "tab", "shift+tab",
        "ctrl+left", "ctrl+right", "ctrl+shift+left", "ctrl+shift+right", "shift+home",
        "shift+end", "shift+up", "shift+down", "shift+left", "shift+right", "ctrl+a", "ctrl+e",
        "ctrl+w", "ctrl+backspace", "alt+backspace", "ctrl+d", "alt+delete", "ctrl+x", "ctrl+c",
        "ctrl+v", "ctrl+u", "ctrl+k", "ctrl+shift+k", "ctrl+z", "ctrl+y", "f6", "f7",
        "super+x", "super+c", "super+z", "super+y", "super+backspace",
    }
)  # fmt: skip
_PRINTABLE = frozenset(string.ascii_letters + string.digits + string.punctuation)
_DISPLAY = {"escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn", "up": "↑", "down": "↓"}


def check_key(key: str) -> str:
    """``key`` normalised (lower case, no spaces), or `ValueError` saying what is wrong."""
    parts = [part.strip() for part in key.strip().split("+")]
    if not key.strip() or any(not part for part in parts):
        raise ValueError(f"{key!r} is not a key (write it like ctrl+g, f1 or pageup)")
    *modifiers, base = parts
    modifiers = [modifier.lower() for modifier in modifiers]
    for modifier in modifiers:
        if modifier not in _MODIFIERS:
            raise ValueError(
                f"{key!r}: unknown modifier {modifier!r} (use {', '.join(_MODIFIERS)})"
            )
    if len(set(modifiers)) != len(modifiers):
        raise ValueError(f"{key!r} names a modifier twice")
    if len(base) == 1:
        if base not in _PRINTABLE:
            raise ValueError(f"{key!r}: {base!r} is not a key Textual can name")
        if not set(modifiers) - {"shift"}:
            raise ValueError(
                f"{key!r} would be typed into the input, not reach the app: add ctrl or alt"
            )
        # Textual names ctrl+letter in lower case; shift is a separate modifier.
        base = base.lower() if base.isalpha() else base
    else:
        base = base.lower()
        if base not in NAMED_KEYS:
            raise ValueError(
                f"{key!r}: unknown key {base!r} (named keys: f1…f24, "
                f"{', '.join(sorted(k for k in NAMED_KEYS if not k[1:].isdigit()))})"
            )
        if base == "space" and not set(modifiers) - {"shift"}:
            raise ValueError(f"{key!r} would be typed into the input: add ctrl or alt")
    return "+".join([*modifiers, base])


def check_keymap(table: object) -> dict[str, str]:
    """A validated ``[keys]`` table (name -> ``"key,key"``), normalised; `ValueError` if not.

    Besides each key (`check_key`), no key may run two actions once the defaults of the names not
    in ``table`` are counted, since one of the two would silently never run."""
    if not isinstance(table, Mapping):
        raise ValueError('[keys] must be a table of action = "key" lines')
    keymap: dict[str, str] = {}
    for name, value in table.items():
        if name not in ACTIONS:
            raise ValueError(
                f"[keys]: unknown action {name!r}; known: {', '.join(sorted(ACTIONS))}"
            )
        if not isinstance(value, str):
            raise ValueError(f'[keys]: {name} must be a string such as "ctrl+g" or "f1,ctrl+g"')
        try:
            checked = [check_key(key) for key in value.split(",")]
        except ValueError as error:
            raise ValueError(f"[keys]: {name}: {error}") from None
        for key in checked:
            if key in RESERVED:
                raise ValueError(
                    f"[keys]: {name}: {key} is the input's own key (editing, moving, copying); "
                    "choose another"
                )
        keymap[name] = ",".join(checked)
    owner: dict[str, str] = {}
    for name, given in effective(keymap).items():
        for key in given.split(","):
            if key in owner:
                raise ValueError(f"[keys]: {key} is given to both {owner[key]} and {name}")
            owner[key] = name
    return keymap


def effective(keymap: Mapping[str, str]) -> dict[str, str]:
    """Every action's keys: the defaults with ``keymap`` laid over them."""
    return {name: keymap.get(name, entry.keys) for name, entry in ACTIONS.items()}


def display(keys: str) -> str:
    """``f1,ctrl+g`` -> ``F1 / Ctrl+G``: how help and the palette write keys."""
    shown = []
    for key in keys.split(","):
        *modifiers, base = key.split("+")
        name = _DISPLAY.get(base, base.upper() if len(base) == 1 else base.capitalize())
        shown.append("+".join([*(modifier.capitalize() for modifier in modifiers), name]))
    return " / ".join(shown)
