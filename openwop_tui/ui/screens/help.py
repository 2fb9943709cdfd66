"""The help panel: every key, as configured, and what to type to the demo host.

The key list is made from the bindings themselves (`openwop_tui.ui.key_help`): the keys of the
place the focus was in first, then the app's (with the keymap in effect, so a key moved in the
config file shows where it went, and an action the app does not have yet is not listed), then
every other place's. The panel fills the screen but for a margin and scrolls by keys (Up/Down,
PgUp/PgDn, Home/End) and mouse: at 80x24 the keys come first, then the hints.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from openwop_tui.ui import key_help, keys
from openwop_tui.ui.screens.help_tasks import Places, task_answers

HINTS = """\
## Sending

**Enter** sends; a message sent while a run streams waits (shown as *queued* above the
input) and is sent when the run ends. New output keeps the view at the bottom until you
scroll up.

## The demo host

With no `--host`, openwop-tui starts its own OpenWOP host on loopback. Ask it for
**image**, **audio**, **code**, **card**, **file** or **json**, or say **show me everything**
for the whole tour, including media that cannot be shown and how the client says so.
**fail** shows a failed run; **slow** streams a long reply you can cancel with `Esc`.

## When something cannot be shown

An image, sound or file that cannot be drawn or played here is described instead: what it
is (media type, size, alt text, name), why it is not shown, and where to get it (the URL, or
*save* to write the bytes to a file).

## Changing keys

In the config file, a `[keys]` table: `help = "ctrl+g"`, `events = "f2,ctrl+t"`. Each
action's name is in brackets after what it does.
"""


class KeyRow(Static):
    """One line of the key list: the keys in a column, then what they do."""

    DEFAULT_CSS = "KeyRow { height: auto; }"

    def __init__(self, shown: str, does: str) -> None:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=22, no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(Text(shown, style="bold"), Text(does))
        super().__init__(grid)
        self.keys_shown = shown
        self.does = does


class HelpScreen(ModalScreen[None]):
    """Key bindings and hints."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 100%; height: 100%;
        margin: 1 2; background: $panel; border: round $primary; padding: 0 1;
        border-title-align: center; border-subtitle-align: right;
    }
    HelpScreen .keys-heading { text-style: bold; }
    HelpScreen .keys-section { text-style: bold; color: $accent; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close"),
        # On the screen, not the scroll view: whatever has focus (a link in the hints), the keys
        # scroll the panel.
        Binding("up", "scroll('up')", "Up", show=False),
        Binding("down", "scroll('down')", "Down", show=False),
        Binding("pageup", "scroll('page_up')", "Page up", show=False),
        Binding("pagedown,space", "scroll('page_down')", "Page down", show=False),
        Binding("home", "scroll('home')", "Top", show=False),
        Binding("end", "scroll('end')", "Bottom", show=False),
    ]

    def __init__(self, places: Places | None = None, focused: DOMNode | None = None) -> None:
        """``places``: where the app keeps things (the platform's defaults when not given);
        ``focused``: what had the focus when help was asked for (its place's keys first)."""
        super().__init__()
        self._places = places
        self._focused = focused

    def compose(self) -> ComposeResult:
        panel = VerticalScroll(id="help-scroll")
        panel.border_title = "openwop-tui · keys"
        panel.border_subtitle = "↑↓ PgUp PgDn Home End scroll · Esc closes"
        with panel:
            yield Static(
                "Every key (the config file's [keys] table changes them):",
                classes="keys-heading",
                markup=False,
            )
            for section in key_help.sections(self.app, self._focused):
                yield Static(section.title, classes="keys-section", markup=False)
                for line in section.lines:
                    does = f"{line.does} [{line.name}]" if line.name else line.does
                    yield KeyRow(line.keys, does)
            in_effect = keys.in_effect(self.app)
            keys_shown = {
                name: keys.display(given)
                for name, given in in_effect.items()
                if keys.available(self.app, keys.ACTIONS[name].action)
            }
            places = self._places or Places.defaults(Path.cwd())
            yield Markdown(HINTS)
            # After the hints: the paths are this machine's, so a snapshot of the panel's top
            # stays the same on every machine.
            yield Markdown(task_answers(places, keys_shown))

    def action_scroll(self, where: str) -> None:
        """Scroll the panel: ``up``, ``down``, ``page_up``, ``page_down``, ``home``, ``end``."""
        panel = self.query_one("#help-scroll", VerticalScroll)
        moves = {
            "up": panel.scroll_up,
            "down": panel.scroll_down,
            "page_up": panel.scroll_page_up,
            "page_down": panel.scroll_page_down,
            "home": panel.scroll_home,
            "end": panel.scroll_end,
        }
        moves[where](animate=False)
