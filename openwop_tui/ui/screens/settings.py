"""The settings screen (F10, or the palette): where the app keeps things, and what to change.

It shows the real paths of this run (the config file it read, the sessions database it opened,
the log it writes, the download folder) and lets the user change the theme, how code is
highlighted (a Pygments style, previewed on a small sample as it is chosen), the images mode,
audio, the host, its API key and the workflow. Everything applies at once, without a restart.

Saving (Ctrl+S or the button) hands the values to the ``save`` coroutine the app gives it: with
a new host or key it first tries them (the app connects with them, discovery and a read that
needs the key), and only when they work are they saved and used; it answers ``None`` or the
sentence saying why not ("the host refused this key (401)", "nothing answers at …"). The
sentence is shown under the fields and the screen stays open with everything as typed, so
nothing is lost and nothing bad is saved. Esc closes without saving.

The key field is a password field: what is typed shows as dots (the "show" box shows it while
ticked), and it starts empty whatever key is in use: a key is never put on screen. Empty means
"keep the key in use"; the line under it says where that one comes from and where a new one
will be kept (the system keychain, or the config file readable only by its owner).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.syntax import Syntax
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from openwop_tui.config import IMAGE_MODES
from openwop_tui.draw.palette import Palette
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean_own, one_line

#: What the images modes mean, in the list.
_IMAGES = {
    "auto": "auto: ask the terminal",
    "kitty": "kitty graphics",
    "sixel": "sixel graphics",
    "halfblock": "half-blocks",
    "none": "none: describe images",
}

#: The code theme list's first entry: the app's theme decides (`Palette.code_theme`).
AUTO_CODE = ""

#: The code the highlight preview shows: a keyword, a string, a number, a comment, a call.
SAMPLE = '''def greet(name: str, times: int = 3) -> str:
    """Say hello, a few times."""  # a docstring
    return ", ".join(f"hello {name}" for _ in range(times))'''

Save = Callable[[Mapping[str, Any]], Awaitable[str | None]]
"""Tries and writes the values; ``None`` when saved, else why not."""
PickWorkflow = Callable[[str], Awaitable[str | None]]
"""Shows the host's workflows (the current one highlighted); the one picked, or ``None``."""


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
    """The host in use, without credentials (``""``: the embedded demo host)."""
    workflow: str
    code_theme: str | None = None
    """The Pygments style code is highlighted in (``None``: the theme's choice)."""
    code_themes: Sequence[str] = ()
    """The Pygments styles to choose from."""
    palette: Palette = field(default_factory=Palette.default)
    """The active theme's colours: the preview draws with them, as the transcript does."""
    key_note: str = ""
    """Where the key in use comes from and where a new one goes (never the key)."""
    key_refused: bool = False
    """The host refused the key in use (or wanted one): the screen opens at the key field."""


def _shown(host: str) -> str:
    """A host as typed, as the screen may say it: without credentials, controls as marks."""
    return one_line(clean_own(display_url(host))) if host else "the embedded demo host"


async def _not_saved(_values: Mapping[str, Any]) -> str:
    return "there is nowhere to save to"


class SettingsScreen(ModalScreen[None]):
    """Places and settings; Ctrl+S tries and saves, Esc closes."""

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
    SettingsScreen #settings-show { width: auto; margin-left: 1; }
    SettingsScreen #settings-pick { margin-left: 1; }
    SettingsScreen .under { margin-left: 13; color: $text-muted; height: auto; }
    SettingsScreen #settings-preview { margin-left: 13; height: auto; }
    SettingsScreen #settings-places { margin-bottom: 1; height: auto; }
    SettingsScreen #settings-note { color: $text-muted; }
    SettingsScreen #settings-change { color: $text-warning; display: none; }
    SettingsScreen #settings-change.-shown { display: block; }
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

    def __init__(
        self, view: SettingsView, save: Save = _not_saved, pick: PickWorkflow | None = None
    ) -> None:
        """Show ``view``; ``save`` tries and writes, ``pick`` lists the host's workflows
        (``None``: no list to pick from, the Pick button is not shown)."""
        super().__init__()
        self.view = view
        self._save = save
        self._pick = pick
        self.saving = False
        """A save is being tried: another waits for it."""

    # ------------------------------------------------------------------ composition

    @staticmethod
    def row(name: str, *widgets: Widget) -> Horizontal:
        """One setting's line: its name, then its fields."""
        return Horizontal(Label(name, classes="name"), *widgets)

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
                    yield self.row(name, Static(shown, classes="path", markup=False))
            yield from self.compose_looks()
            yield from self.compose_host()
            yield Static(
                "Saving applies at once: a new host or key is tried first, and kept only if "
                "the host takes it. A flag or OPENWOP_* given at start wins at the next start.",
                id="settings-note",
                markup=False,
            )
            yield Static("", id="settings-change", markup=False)
            yield Static("", id="settings-error", markup=False)
            with Horizontal(id="settings-buttons"):
                yield Button("Save (Ctrl+S)", id="settings-save", variant="primary", compact=True)
                yield Button("Close (Esc)", id="settings-close", compact=True)

    def compose_looks(self) -> ComposeResult:
        """Theme, code highlighting (with its preview), images, audio."""
        view = self.view
        themes = list(dict.fromkeys([*view.themes, view.theme]))
        yield self.row(
            "Theme",
            Select(
                [(name, name) for name in themes],
                value=view.theme,
                allow_blank=False,
                compact=True,
                id="settings-theme",
            ),
        )
        styles = list(dict.fromkeys([*view.code_themes, *filter(None, [view.code_theme])]))
        yield self.row(
            "Code theme",
            Select(
                [("auto: suits the theme", AUTO_CODE), *((name, name) for name in styles)],
                value=view.code_theme or AUTO_CODE,
                allow_blank=False,
                compact=True,
                id="settings-code-theme",
            ),
        )
        yield Static(self._preview(view.code_theme), id="settings-preview")
        yield self.row(
            "Images",
            Select(
                [(_IMAGES.get(mode, mode), mode) for mode in IMAGE_MODES],
                value=view.images if view.images in IMAGE_MODES else "auto",
                allow_blank=False,
                compact=True,
                id="settings-images",
            ),
        )
        yield self.row(
            "Audio",
            Checkbox(
                "play sound when the machine can", view.audio, compact=True, id="settings-audio"
            ),
        )

    def compose_host(self) -> ComposeResult:
        """Host, API key (masked, with its note), workflow."""
        view = self.view
        yield self.row(
            "Host",
            Input(
                view.host,
                placeholder="empty: the embedded demo host",
                compact=True,
                id="settings-host",
            ),
        )
        yield self.row(
            "API key",
            Input(
                "",
                placeholder="empty: keep the key in use",
                password=True,
                compact=True,
                id="settings-key",
            ),
            Checkbox("show", False, compact=True, id="settings-show"),
        )
        yield Static(view.key_note, id="settings-key-note", classes="under", markup=False)
        workflow: list[Widget] = [Input(view.workflow, compact=True, id="settings-workflow")]
        if self._pick is not None:
            workflow.append(Button("Pick…", id="settings-pick", compact=True))
        yield self.row("Workflow", *workflow)

    def _preview(self, code_theme: str | None) -> Syntax:
        """The sample, highlighted as the transcript would draw it in ``code_theme``."""
        palette = self.view.palette.with_code_theme(code_theme)
        return Syntax(SAMPLE, "python", theme=palette.syntax_theme(), word_wrap=True)

    # ------------------------------------------------------------------ reading

    def on_mount(self) -> None:
        if self.view.key_refused:
            # The key is what the user came to change (the refusal said to press F10).
            self.query_one("#settings-key", Input).focus()

    def values(self) -> dict[str, Any]:
        """What the fields say now, as config file values (no host: ``None``; no code theme:
        ``None``; ``api_key``: what was typed, ``""`` keeps the key in use)."""
        host = self.query_one("#settings-host", Input).value.strip()
        code = self.query_one("#settings-code-theme", Select).value
        return {
            "theme": self.query_one("#settings-theme", Select).value,
            "code_theme": code if isinstance(code, str) and code != AUTO_CODE else None,
            "images": self.query_one("#settings-images", Select).value,
            "audio": self.query_one("#settings-audio", Checkbox).value,
            "host": host or None,
            "api_key": self.query_one("#settings-key", Input).value.strip(),
            "workflow": self.query_one("#settings-workflow", Input).value.strip(),
        }

    @property
    def error(self) -> str:
        """The sentence saying why the last save did not happen (``""``: none)."""
        return str(self.query_one("#settings-error", Static).content)

    @property
    def change(self) -> str:
        """What saving will change beyond this screen (a new chat, a key tried)."""
        return str(self.query_one("#settings-change", Static).content)

    # ------------------------------------------------------------------ reacting

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "settings-code-theme":
            event.stop()
            value = event.value
            name = value if isinstance(value, str) and value != AUTO_CODE else None
            self.query_one("#settings-preview", Static).update(self._preview(name))

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "settings-show":
            event.stop()
            self.query_one("#settings-key", Input).password = not event.value

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("settings-host", "settings-key"):
            event.stop()
            self._show_change()

    def _show_change(self, said: str | None = None) -> None:
        """Say what saving will change beyond this screen (``said``: that, instead)."""
        host = self.query_one("#settings-host", Input).value.strip()
        key = self.query_one("#settings-key", Input).value.strip()
        if said is not None:
            pass
        elif host != self.view.host:
            where = _shown(host)
            said = (
                f"Saving connects to {where} and starts a new chat there; this chat stays "
                "in the sessions list (Ctrl+O)."
            )
        elif key:
            said = "Saving tries this key on the host first; this chat goes on with it."
        else:
            said = ""
        change = self.query_one("#settings-change", Static)
        change.update(said)
        change.set_class(bool(said), "-shown")

    # ------------------------------------------------------------------ saving

    def action_save(self) -> None:
        if self.saving:
            return
        self.saving = True
        self.query_one("#settings-save", Button).disabled = True
        self._show_error("")
        self._saving(self.values())

    @work(exclusive=True, group="settings-save")
    async def _saving(self, values: dict[str, Any]) -> None:
        """Try and write ``values`` (in a worker: a host may take seconds to answer); closed
        when saved, else the reason shown and every field left as typed."""
        if values["host"] != (self.view.host or None) or values["api_key"]:
            self._show_change(f"Trying {_shown(values['host'] or '')}…")
        try:
            problem = await self._save(values)
        finally:
            self.saving = False
            if self.is_attached:
                self.query_one("#settings-save", Button).disabled = False
        if problem is None:
            self.dismiss(None)
            return
        self._show_error(f"Not saved: {problem}")
        self._show_change()

    def _show_error(self, text: str) -> None:
        error = self.query_one("#settings-error", Static)
        error.update(text)
        error.set_class(bool(text), "-shown")
        if text:
            # Under the fields: scrolled to on a short terminal, with the buttons below it.
            self.call_after_refresh(self.query_one("#settings-buttons").scroll_visible)

    def action_close(self) -> None:
        self.dismiss(None)

    @work(exclusive=True, group="settings-pick")
    async def _picking(self) -> None:
        assert self._pick is not None
        field_ = self.query_one("#settings-workflow", Input)
        if self.query_one("#settings-host", Input).value.strip() != self.view.host:
            self._show_error(
                "The list is the host in use's: save the new host first, then pick (or type "
                "the workflow's id)."
            )
            return
        chosen = await self._pick(field_.value.strip())
        if chosen:
            field_.value = chosen
        field_.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "settings-save":
            self.action_save()
        elif event.button.id == "settings-pick":
            self._picking()
        else:
            self.action_close()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()
