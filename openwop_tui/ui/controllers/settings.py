"""The settings screen's controller: what it shows, and saving what the user changed.

The places shown are the ones this run really uses (the config file the app was started with,
the store it opened, its log file, the download folder). The values are the config file's as it
is on disk now (what is edited is the file), so a screen reopened after a save shows what was
saved; a setting the file does not have shows its default, and the theme the one in use. A flag
or the environment given for this run is not written into the file unasked. Saving writes the
file (`openwop_tui.config_file.save_settings`, checked the way the app reads it at start) and
applies at once what the user changed of theme, images and audio; host and workflow are read at
the next start.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openwop_tui.config import Config, ConfigError
from openwop_tui.config_file import read_settings, save_settings
from openwop_tui.store.database import default_path
from openwop_tui.text.redact import display_url
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.profile import LabController


class SettingsController:
    """Opens the settings screen and saves what it is given."""

    def __init__(self, chat: Chat, lab: LabController, config_file: Path) -> None:
        self.chat = chat
        self.lab = lab
        self.config_file = config_file
        """The file this run read its settings from (``--config``, else the default)."""
        self._host: tuple[str, str] | None = None
        """(the host as shown, as the file has it): a URL's credentials are not shown, and
        saving the shown host unchanged keeps them."""
        self._shown: dict[str, Any] = {}
        """The values the screen opened with: only what the user changed is applied live."""

    def open(self, log_file: Path | None) -> None:
        from openwop_tui.ui.screens.settings import SettingsScreen, SettingsView

        chat = self.chat
        app = chat.app
        defaults = Config()
        try:
            saved = read_settings(self.config_file)
        except ConfigError as error:
            app.notify(f"{error}: showing the settings in use", severity="warning", markup=False)
            saved = {}
        store = chat.store
        host = saved.get("host")
        shown_host = display_url(host) if isinstance(host, str) and host else ""
        self._host = (shown_host, host) if isinstance(host, str) and host else None
        view = SettingsView(
            config_file=self.config_file,
            sessions=store.path if store is not None else default_path(),
            log=log_file,
            downloads=chat.download_folder(),
            theme=str(saved.get("theme") or app.theme),
            themes=sorted(app.available_themes),
            images=str(saved.get("images", defaults.images)),
            audio=bool(saved.get("audio", defaults.audio)),
            # Shown without credentials: a URL's user:password is not for the screen.
            host=shown_host,
            workflow=str(saved.get("workflow", defaults.workflow)),
        )
        self._shown = {
            "theme": view.theme,
            "images": view.images,
            "audio": view.audio,
            "host": shown_host or None,
            "workflow": view.workflow,
        }
        app.push_screen(SettingsScreen(view, self.save))

    def save(self, values: Mapping[str, Any]) -> str | None:
        """Write what the user changed of ``values`` to the config file (what was left as
        shown stays as the file has it, absent or not); ``None`` when saved, else the reason."""
        app = self.chat.app
        changed = {k: v for k, v in values.items() if k not in self._shown or v != self._shown[k]}
        if not changed:
            app.notify("nothing changed: the config file is as it was", markup=False)
            return None
        if self._host is not None and changed.get("host") == self._host[0]:
            changed["host"] = self._host[1]
        try:
            save_settings(self.config_file, changed, themes=app.available_themes)
        except ConfigError as error:
            return str(error)
        theme = changed.get("theme")
        if isinstance(theme, str) and theme != app.theme:
            app.theme = theme
        images = changed.get("images")
        if isinstance(images, str) and images != "auto" and images != self.lab.profile.images:
            self.lab.switch("images", images)
        audio = changed.get("audio")
        if isinstance(audio, bool) and audio != self.lab.profile.audio:
            self.lab.switch("audio", "on" if audio else "off")
        self._shown.update(changed)
        app.notify(f"settings saved to {self.config_file}", markup=False)
        return None
