"""The command palette's own commands: every action of the app, by a name a person would type.

Each command runs an app action by name (`App.run_action`), the same one its key runs, so the
palette and the keys cannot drift apart. A command is offered only when the app has its action
(`keys.available`): the table can name actions that later work adds (sessions, export, search,
record, the workflow picker, attach) and they appear once the app implements them. The keys
shown next to a command are the ones in effect, after the config's ``[keys]``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from inspect import isawaitable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from openwop_tui.ui import keys


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    """One entry of the palette."""

    name: str
    """What the user reads and types, e.g. ``Sessions: open, rename or delete``."""
    action: str
    """The app action it runs."""
    help: str
    key: str | None = None
    """The `keys.ACTIONS` name whose keys are shown, if the action has keys."""


#: Textual's own palette commands that `COMMANDS` below already offers (the app leaves them out
#: of its system commands, so the palette lists each once).
OWN_SYSTEM_COMMANDS = frozenset({"Theme", "Quit"})


def _lab(name: str, switch: str, value: str, help: str) -> PaletteCommand:
    """A palette command that sets one degradation-lab switch.

    Args:
        name: The command's name in the palette.
        switch: The lab switch it sets (``images``, ``colours``…).
        value: The value it sets the switch to.
        help: What the setting does, shown after ``degradation lab:``.
    """
    return PaletteCommand(name, f"lab_set({switch!r}, {value!r})", f"degradation lab: {help}")


#: The degradation lab's switches (`openwop_tui.ui.controllers.profile`): every item redraws at
#: once.
LAB_COMMANDS: tuple[PaletteCommand, ...] = (
    PaletteCommand("New chat", "new_chat", "in a tab of its own: the others stay open", "new_chat"),
    PaletteCommand(
        "Close this tab", "close_tab", "its session stays in the sessions list", "close_tab"
    ),
    PaletteCommand("Rename this chat", "rename_chat", "the title in the status line"),
    PaletteCommand(
        "Edit the last message and send it again",
        "edit_last",
        "E on it · replaces the last exchange (the session keeps it)",
    ),
    PaletteCommand(
        "Regenerate the last reply", "regenerate", "r on your last message · sends it again"
    ),
    PaletteCommand("Answer the open question", "focus_form", "back to the question's form", "form"),
    _lab("Images: off", "images", "none", "describe every image instead of drawing it"),
    _lab("Images: half-blocks", "images", "halfblock", "pixels from half-block characters"),
    _lab("Images: kitty", "images", "kitty", "kitty graphics"),
    _lab("Images: sixel", "images", "sixel", "sixel graphics"),
    _lab("Colours: true colour", "colours", "truecolor", "24-bit colour"),
    _lab("Colours: 256", "colours", "256", "the 256-colour palette"),
    _lab("Colours: 16", "colours", "16", "the 16 standard colours"),
    _lab("Colours: none", "colours", "none", "no colour: bold and italic only"),
    _lab("Audio: off", "audio", "off", "never play sound"),
    _lab("Audio: on", "audio", "on", "play sound when the machine can"),
    _lab("Media fetching: off", "fetching", "off", "download no media URL"),
    _lab("Media fetching: on", "fetching", "on", "download media URLs"),
    _lab("Width: 80", "width", "80", "draw items 80 columns wide"),
    _lab("Width: 120", "width", "120", "draw items 120 columns wide"),
    _lab("Width: full", "width", "full", "draw items as wide as the window"),
)

COMMANDS: tuple[PaletteCommand, ...] = (
    PaletteCommand(
        "Sessions: open, rename or delete a session", "sessions", "saved chats", "sessions"
    ),
    PaletteCommand(
        "Settings: theme, images, audio, host, workflow",
        "settings",
        "and where the config, sessions, log and downloads are",
        "settings",
    ),
    PaletteCommand("Export this session", "export", "Markdown, JSONL or SSE", "export"),
    PaletteCommand("Search the transcript", "search", "messages, envelopes and JSON", "search"),
    PaletteCommand(
        "Search every session",
        "search_all",
        "words from any stored chat; Enter opens it at the match",
        "search_all",
    ),
    PaletteCommand("Record the stream to a file", "record", "raw SSE, replayable"),
    PaletteCommand("Themes: change the colours", "change_theme", "dark, light, high contrast"),
    PaletteCommand("Cancel the run", "cancel_run", "asks the host to stop", "cancel_run"),
    PaletteCommand(
        "Timeline: show or hide beside the transcript", "toggle_events", "every run event", "events"
    ),
    PaletteCommand(
        "Timeline: every run event, filtered", "timeline", "a screen of its own", "timeline"
    ),
    PaletteCommand(
        "Statistics of the runs", "stats", "node timings, tokens, first token, rate", "stats"
    ),
    PaletteCommand("Doctor: will this setup work", "doctor", "terminal, machine and host"),
    PaletteCommand(
        "Lifecycle lines: show or hide", "toggle_verbose", "node started, usage…", "lifecycle"
    ),
    PaletteCommand("Save as…: choose the folder", "save_as", "the selected item's file"),
    PaletteCommand("Copy the last reply", "copy_last_reply", "to the clipboard and a file"),
    PaletteCommand("Go to the transcript", "focus_transcript", "move through items by keys"),
    PaletteCommand("Discard queued messages", "discard_queued", "messages waiting for the run"),
    PaletteCommand("Pick a workflow", "pick_workflow", "which workflow chat runs"),
    PaletteCommand("Attach to a run", "attach", "follow a run already on the host"),
    PaletteCommand(
        "Attach a file to the next message",
        "attach_file",
        "a picture, a document or a clip; /attach PATH too",
        "attach_file",
    ),
    PaletteCommand(
        "Record a voice message", "record_voice", "attached to the next message", "record_voice"
    ),
    PaletteCommand("Help: every key", "help", "keys and hints", "help"),
    PaletteCommand("Lab: capabilities and switches", "lab", "what this terminal supports", "lab"),
    PaletteCommand(
        "Lab: matrix view of the selected envelope", "matrix", "drawn under each profile"
    ),
    *LAB_COMMANDS,
    PaletteCommand("Vim keys: on", "vim_keys(True)", "j/k, g/G, Ctrl+D/U move in the transcript"),
    PaletteCommand("Vim keys: off", "vim_keys(False)", "only the arrows, Home/End, PgUp/PgDn"),
    PaletteCommand("Clear the screen", "clear", "the history is kept", "clear"),
    PaletteCommand("Quit", "quit", "asks first while a run is going", "quit"),
)


@dataclass(frozen=True, slots=True)
class Offered:
    """One line of the palette, ready to run."""

    name: str
    help: str
    run: Callable[[], Awaitable[object]]


class AppCommands(Provider):
    """The palette's lines, in order: the keys of the place the focus is in (the footer's),
    the app's `COMMANDS` that apply now, then Textual's own commands (Keys, Maximize,
    Screenshot…) less those the app's already offer (its Theme and Quit). Registered alone in
    ``App.COMMANDS``, so Textual's come after the app's rather than heading the list."""

    def _here(self) -> list[Offered]:
        """The footer's keys of the focused place (its widgets' bindings, not the app's)."""
        # The help's key table (and every widget whose keys it lists) loads when the palette
        # first opens, not with the app.
        from openwop_tui.ui import key_help

        offered = []
        seen: set[str] = set()
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if active.node is self.app or not binding.show or not active.enabled:
                continue
            if binding.action in seen:
                continue
            seen.add(binding.action)
            help_line = binding.tooltip or binding.description
            offered.append(
                Offered(
                    f"Here: {binding.description}",
                    f"{key_help.key_shown(key)} · {help_line}",
                    partial(self.app.run_action, binding.action, active.node),
                )
            )
        return offered

    def _commands(self) -> list[Offered]:
        """`COMMANDS` the app has and that apply now, with their keys in effect."""
        keymap = keys.in_effect(self.app)
        offered = []
        for command in COMMANDS:
            action = command.action.partition("(")[0]
            if not keys.available(self.app, command.action) or not self.app.check_action(
                action, ()
            ):
                continue
            shown = command.help
            if command.key is not None:
                shown = f"{keys.display(keymap[command.key])} · {shown}"
            offered.append(
                Offered(command.name, shown, partial(self.app.run_action, command.action))
            )
        return offered

    def _textuals(self) -> list[Offered]:
        """Textual's own commands, after the app's."""
        return [
            Offered(command.title, command.help, partial(_call, command.callback))
            for command in self.app.get_system_commands(self.screen)
            if command.title not in OWN_SYSTEM_COMMANDS and command.discover
        ]

    def _offered(self) -> list[Offered]:
        return [*self._here(), *self._commands(), *self._textuals()]

    async def discover(self) -> Hits:
        """Everything, when nothing is typed yet, in order."""
        for line in self._offered():
            yield DiscoveryHit(line.name, line.run, line.name, line.help)

    async def search(self, query: str) -> Hits:
        """Lines whose name matches ``query`` (fuzzy, as Textual's own)."""
        matcher = self.matcher(query)
        for line in self._offered():
            score = matcher.match(line.name)
            if score > 0:
                yield Hit(score, matcher.highlight(line.name), line.run, line.name, line.help)


async def _call(callback: Callable[[], object]) -> None:
    """Run one of Textual's command callbacks (plain or a coroutine function)."""
    result = callback()
    if isawaitable(result):
        await result
