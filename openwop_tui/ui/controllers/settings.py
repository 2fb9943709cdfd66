"""The settings screen's controller: what it shows, and saving what the user changed.

The places shown are the ones this run really uses (the config file the app was started with,
the store it opened, its log file, the download folder). The values start from the config file
as it is on disk now, so a screen reopened after a save shows what was saved, falling back to
what the app runs with. Saving writes the file (`openwop_tui.config_file.save_settings`, checked
the way the app reads it at start) and applies at once what can be (theme, images, audio);
host and workflow are read at the next start.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openwop_tui.config import ConfigError
from openwop_tui.config_file import read_settings, save_settings
from openwop_tui.store.sessions import default_path
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

    def open(self, log_file: Path | None) -> None:
        from openwop_tui.ui.screens.settings import SettingsScreen, SettingsView

        chat = self.chat
        app = chat.app
        config = chat.config
        try:
            saved = read_settings(self.config_file)
        except ConfigError as error:
            app.notify(f"{error}: showing the settings in use", severity="warning", markup=False)
            saved = {}
        store = chat.store
        host = saved.get("host", config.host)
        shown_host = display_url(host) if isinstance(host, str) and host else ""
        self._host = (shown_host, host) if isinstance(host, str) and host else None
        view = SettingsView(
            config_file=self.config_file,
            sessions=store.path if store is not None else default_path(),
            log=log_file,
            downloads=chat.download_folder(),
            theme=str(saved.get("theme") or app.theme),
            themes=sorted(app.available_themes),
            images=str(saved.get("images", config.images)),
            audio=bool(saved.get("audio", config.audio)),
            # Shown without credentials: a URL's user:password is not for the screen.
            host=shown_host,
            workflow=str(saved.get("workflow", config.workflow)),
        )
        app.push_screen(SettingsScreen(view, self.save))

    def save(self, values: Mapping[str, Any]) -> str | None:
        """Write ``values`` to the config file; ``None`` when saved, else the reason."""
        app = self.chat.app
        if self._host is not None and values.get("host") == self._host[0]:
            values = {**values, "host": self._host[1]}
        try:
            save_settings(self.config_file, values, themes=app.available_themes)
        except ConfigError as error:
            return str(error)
        theme = values.get("theme")
        if isinstance(theme, str) and theme != app.theme:
            app.theme = theme
        images = values.get("images")
        if isinstance(images, str) and images != "auto" and images != self.lab.profile.images:
            self.lab.switch("images", images)
        audio = values.get("audio")
        if isinstance(audio, bool) and audio != self.lab.profile.audio:
            self.lab.switch("audio", "on" if audio else "off")
        app.notify(f"settings saved to {self.config_file}", markup=False)
        return None
