"""The settings screen (F10, or the palette): where the app keeps things, and what to change.

It shows the real paths of this run (the config file it read, the sessions database it opened,
the log it writes, the download folder) and lets the user change the theme, the images mode,
audio, the default host and the default workflow. Saving (Ctrl+S or the button) hands the values
to the ``save`` callable the app gives it, which writes the config file and answers ``None`` or
the sentence saying why not (a host that is not a URL …): the sentence is shown under the
fields and the screen stays open, so nothing is lost and nothing bad is saved. Esc closes
without saving.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from openwop_tui.config import IMAGE_MODES
from openwop_tui.text.sanitize import clean_own, one_line

#: What the images modes mean, in the list.
_IMAGES = {
    "auto": "auto: ask the terminal",
    "kitty": "kitty graphics",
    "sixel": "sixel graphics",
    "halfblock": "half-blocks",
    "none": "none: describe images",
}

Save = Callable[[Mapping[str, Any]], str | None]
"""Writes the values; ``None`` when saved, else why not."""


@dataclass(frozen=True, slots=True)
class SettingsView:
    """What the screen shows: this run's places and the values to start from."""

    config_file: Path
    sessions: Path | None
    """``None``: sessions are not kept (the store could not be opened)."""
    log: Path | None
    """``None``: logging is off."""
    downloads: Path
    theme: str
    themes: Sequence[str]
    images: str
    audio: bool
    host: str
    """``""``: the embedded demo host."""
    workflow: str


def _not_saved(_values: Mapping[str, Any]) -> str:
    return "there is nowhere to save to"


class SettingsScreen(ModalScreen[None]):
    """Places and settings; Ctrl+S saves to the config file, Esc closes."""

    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen > VerticalScroll {
        width: 100; max-width: 100%; height: auto; max-height: 100%; background: $panel;
        border: round $primary; padding: 0 1;
    }
    SettingsScreen Horizontal { height: auto; }
    SettingsScreen .name { width: 13; color: $text-muted; }
    SettingsScreen .path { width: 1fr; }
    SettingsScreen Select, SettingsScreen Input, SettingsScreen Checkbox { width: 1fr; }
    SettingsScreen #settings-places { margin-bottom: 1; height: auto; }
    SettingsScreen #settings-note { color: $text-muted; }
    SettingsScreen #settings-error { color: $text-error; text-style: bold; display: none; }
    SettingsScreen #settings-error.-shown { display: block; }
    SettingsScreen #settings-buttons { margin-top: 1; }
    SettingsScreen #settings-buttons Button { margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+s", "save", "Save", priority=True),
    ]
    # The app's AUTO_FOCUS names the prompt, which is not on this screen.
    AUTO_FOCUS = "#settings-theme"

    def __init__(self, view: SettingsView, save: Save = _not_saved) -> None:
        super().__init__()
        self.view = view
        self._save = save

    def compose(self) -> ComposeResult:
        view = self.view
        with VerticalScroll() as panel:
            panel.border_title = "Settings"
            with VerticalScroll(id="settings-places"):
                for name, path, none in (
                    ("Config file", view.config_file, ""),
                    ("Sessions", view.sessions, "not kept"),
                    ("Log", view.log, "logging is off"),
                    ("Downloads", view.downloads, ""),
                ):
                    # A path is the user's environment's (XDG_CONFIG_HOME may hold anything):
                    # its controls shown as marks, on one line, never sent to the terminal.
                    shown = one_line(clean_own(str(path))) if path else none
                    with Horizontal():
                        yield Label(name, classes="name")
                        yield Static(shown, classes="path", markup=False)
            themes = list(dict.fromkeys([*view.themes, view.theme]))
            with Horizontal():
                yield Label("Theme", classes="name")
                yield Select(
                    [(name, name) for name in themes],
                    value=view.theme,
                    allow_blank=False,
                    compact=True,
                    id="settings-theme",
                )
            with Horizontal():
                yield Label("Images", classes="name")
                yield Select(
                    [(_IMAGES.get(mode, mode), mode) for mode in IMAGE_MODES],
                    value=view.images if view.images in IMAGE_MODES else "auto",
                    allow_blank=False,
                    compact=True,
                    id="settings-images",
                )
            with Horizontal():
                yield Label("Audio", classes="name")
                yield Checkbox(
                    "play sound when the machine can", view.audio, compact=True, id="settings-audio"
                )
            with Horizontal():
                yield Label("Host", classes="name")
                yield Input(
                    view.host,
                    placeholder="empty: the embedded demo host",
                    compact=True,
                    id="settings-host",
                )
            with Horizontal():
                yield Label("Workflow", classes="name")
                yield Input(view.workflow, compact=True, id="settings-workflow")
            yield Static(
                "Host and workflow apply from the next start; flags and OPENWOP_BASE_URL win.",
                id="settings-note",
                markup=False,
            )
            yield Static("", id="settings-error", markup=False)
            with Horizontal(id="settings-buttons"):
                yield Button("Save (Ctrl+S)", id="settings-save", variant="primary", compact=True)
                yield Button("Close (Esc)", id="settings-close", compact=True)

    def values(self) -> dict[str, Any]:
        """What the fields say now, as config file values (no host: ``None``)."""
        host = self.query_one("#settings-host", Input).value.strip()
        return {
            "theme": self.query_one("#settings-theme", Select).value,
            "images": self.query_one("#settings-images", Select).value,
            "audio": self.query_one("#settings-audio", Checkbox).value,
            "host": host or None,
            "workflow": self.query_one("#settings-workflow", Input).value.strip(),
        }

    @property
    def error(self) -> str:
        """The sentence saying why the last save did not happen (``""``: none)."""
        return str(self.query_one("#settings-error", Static).content)

    def action_save(self) -> None:
        problem = self._save(self.values())
        error = self.query_one("#settings-error", Static)
        if problem is None:
            self.dismiss(None)
            return
        error.update(f"Not saved: {problem}")
        error.add_class("-shown")

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "settings-save":
            self.action_save()
        else:
            self.action_close()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()
