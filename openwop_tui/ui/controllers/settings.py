"""The settings screen's controller: what it shows, and saving what the user changed, at once.

The places shown are the ones this run really uses (the config file the app was started with,
the store it opened, its log file, the download folder). Theme, images and audio start from the
config file as it is on disk (what is edited is the file); host, workflow and code highlighting
from what the app uses now (they apply now). A flag or the environment given for this run is not
written into the file unasked: only what the user changed is.

Saving checks every value as the app reads it at start (`openwop_tui.config_file.new_text`),
then, for a new host or a new key, tries them (`ConnectionController.trial`: discovery and a read
that needs the key), and only when the host takes them keeps the key (the system keychain when
the machine has one, `openwop_tui.keychain`, else the config file made readable only by its
owner), writes the file and switches the chat's connection (`ConnectionController.switch`). A new
host starts a new chat (the old one stays stored); a new key for the same host keeps the chat.
When anything fails the screen stays open with a sentence saying what, and nothing is written.
The key is never in a sentence, a notification or the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openwop_tui.config import (
    KEY_FROM_ENV,
    KEY_FROM_FILE,
    KEY_FROM_FLAG,
    KEY_FROM_KEYCHAIN,
    Config,
    ConfigError,
    code_themes,
)
from openwop_tui.config_file import EDITABLE, Saved, check_key, new_text, read_settings
from openwop_tui.config_file import save_settings as write_settings
from openwop_tui.keychain import Keychain, KeychainError, system_keychain
from openwop_tui.protocol.catalog import load_catalog
from openwop_tui.protocol.errors import HostError
from openwop_tui.store.database import default_path
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean_own, one_line
from openwop_tui.ui import theme_palette
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.chats import ChatsController
from openwop_tui.ui.controllers.connection import ConnectionController, Trial
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.runs import RunsController
from openwop_tui.ui.host_advice import said

#: Client error codes for a host that did not answer at all.
_NO_ANSWER = frozenset({"connection_refused", "dns_failure", "timeout", "tls_error"})


def trial_problem(error: HostError, host: str) -> str:
    """What the settings screen says when ``host`` (as shown) did not take the new settings."""
    status = f" ({error.status})" if error.status else ""
    if error.key_trouble == "rejected":
        return f"the host refused this key{status}: check it and try again"
    if error.key_trouble == "missing":
        return f"the host needs an API key{status}: enter one in the API key field"
    if error.key_trouble == "scope":
        return f"the host refused this key for reading its runs{status}: {error.problem}"
    if error.code in _NO_ANSWER or (error.code == "connection_error" and error.status is None):
        return f"nothing answers at {host}: {error.problem}"
    if error.status == 404 or error.code == "bad_response":
        return f"{host} is not an OpenWOP host: {error.problem}"
    return str(error.problem)


def _home(path: Path) -> str:
    """``path`` with the home folder as ``~``, controls shown as marks."""
    try:
        shown = f"~/{path.relative_to(Path.home())}"
    except ValueError:
        shown = str(path)
    return one_line(clean_own(shown))


class SettingsController:
    """Opens the settings screen; tries, saves and applies what it is given."""

    def __init__(
        self,
        chat: Chat,
        lab: LabController,
        config_file: Path,
        connection: ConnectionController | None = None,
        runs: RunsController | None = None,
        chats: ChatsController | None = None,
    ) -> None:
        """Keep what the screen shows and changes.

        Args:
            chat: What every controller works on.
            lab: Applies theme, images, audio and code highlighting at once.
            config_file: The file this run read its settings from.
            connection: Tries a host and key and switches to them (None: host and key are
                only written, read at the next start).
            runs: Whether a run is going (no switch meanwhile), the workflow in use.
            chats: Starts the new chat a new host gets.
        """
        self.chat = chat
        self.lab = lab
        self.config_file = config_file
        """The file this run read its settings from (``--config``, else the default)."""
        self.connection = connection
        self.runs = runs
        self.chats = chats
        self.keychain: Keychain | None = None
        """The system keychain (``None``: none here, keys go to the config file)."""
        self._host: tuple[str, str | None] = ("", None)
        """(the host as shown, as the app uses it): a URL's credentials are not shown, and
        saving the shown host unchanged keeps them."""
        self._shown: dict[str, Any] = {}
        """The values the screen opened with: only what the user changed is applied."""

    # ------------------------------------------------------------------ opening

    def open(self, log_file: Path | None) -> None:
        """Show the screen (once the keychain is known: asking may take a moment)."""
        self.chat.app.run_worker(self._open(log_file), group="settings", exclusive=True)

    async def _open(self, log_file: Path | None) -> None:
        from openwop_tui.ui.screens.settings import SettingsScreen, SettingsView

        chat = self.chat
        app = chat.app
        self.keychain = await asyncio.to_thread(system_keychain)
        defaults = Config()
        try:
            saved = read_settings(self.config_file)
        except ConfigError as error:
            app.notify(f"{error}: showing the settings in use", severity="warning", markup=False)
            saved = {}
        store = chat.store
        host = chat.config.host
        # Shown without credentials: a URL's user:password is not for the screen.
        shown_host = display_url(host) if host else ""
        self._host = (shown_host, host)
        workflow = chat.session.workflow_id if chat.session else chat.config.workflow
        view = SettingsView(
            config_file=self.config_file,
            sessions=store.path if store is not None else default_path(),
            log=log_file,
            downloads=chat.download_folder(),
            theme=str(saved.get("theme") or app.theme),
            themes=sorted(app.available_themes),
            images=str(saved.get("images", defaults.images)),
            audio=bool(saved.get("audio", defaults.audio)),
            host=shown_host,
            workflow=workflow,
            code_theme=self.lab.code_theme,
            code_themes=await asyncio.to_thread(code_themes),
            palette=theme_palette.of(app.current_theme),
            key_note=self.key_note(),
            key_refused=self.runs is not None and self.runs.key_refused,
        )
        self._shown = {
            "theme": view.theme,
            "code_theme": view.code_theme,
            "images": view.images,
            "audio": view.audio,
            "host": shown_host or None,
            "workflow": view.workflow,
        }
        pick = self.pick_workflow if chat.client is not None else None
        app.push_screen(SettingsScreen(view, self.save, pick))

    def key_place(self) -> str:
        """Where a new key is kept: the keychain, else the config file (and why)."""
        if self.keychain is not None:
            return f"the system keychain ({self.keychain.name})"
        return "the config file, readable only by you (no system keychain here)"

    def key_note(self) -> str:
        """The line under the key field: the key in use, by where it comes from (never the
        key), and where a new one goes."""
        config = self.chat.config
        in_use = {
            KEY_FROM_FLAG: "In use: the key given on the command line, for this run.",
            KEY_FROM_ENV: "In use: OPENWOP_API_KEY's key (it wins at every start).",
            KEY_FROM_KEYCHAIN: "In use: the key kept in the system keychain.",
            KEY_FROM_FILE: "In use: the key in the config file.",
        }.get(config.key_from, "No key in use.")
        if config.host is None:
            in_use = "The embedded demo host uses its own key."
        return f"{in_use} A new one is tried first, then kept in {self.key_place()}."

    # ------------------------------------------------------------------ the workflow list

    async def pick_workflow(self, current: str) -> str | None:
        """The host's workflows in the picker (``current`` highlighted): the one taken, or
        ``None`` (Esc, or no list: said in a notification)."""
        from openwop_tui.ui.screens.workflows import WorkflowPicker

        app = self.chat.app
        client = self.chat.client
        if client is None:
            app.notify("Not connected yet: type the workflow's id.", markup=False)
            return None
        try:
            choices = await load_catalog(client)
        except HostError as error:
            app.notify(said(error, app), severity="warning", markup=False)
            return None
        if not choices:
            app.notify("This host lists no workflows: type the workflow's id.", markup=False)
            return None
        picker = WorkflowPicker(choices, current=current, announce=False)
        return await app.push_screen_wait(picker)

    # ------------------------------------------------------------------ saving

    def _changed(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """What the user changed of ``values`` (the key apart: typed means changed)."""
        changed = {
            k: v
            for k, v in values.items()
            if k != "api_key" and (k not in self._shown or v != self._shown[k])
        }
        if "host" in changed and changed["host"] == self._host[0]:
            changed["host"] = self._host[1]  # (as shown: keeps the URL's credentials)
        return changed

    async def save(self, values: Mapping[str, Any]) -> str | None:
        """Try what the user changed of ``values``, then keep and apply it; ``None`` when
        done, else the sentence saying why not (nothing written, nothing switched)."""
        chat = self.chat
        key = str(values.get("api_key") or "")
        changed = self._changed(values)
        if not changed and not key:
            chat.app.notify("nothing changed: the config file is as it was", markup=False)
            return None
        host_changed = "host" in changed
        host = changed["host"] if host_changed else chat.config.host
        connecting = host_changed or bool(key)
        if connecting and self.connection is None:
            return "this app cannot connect anew; the host and key apply at the next start"
        if connecting and self.connection is not None and self.connection.runs_going():
            return "a run is going: change the host or key once it has ended (Esc cancels it)"
        if key and host is None:
            return "the embedded demo host has its own key: a key is for a host named above"
        file_values = {k: v for k, v in changed.items() if k in EDITABLE}
        try:
            if key:
                check_key(key)
            new_text(self.config_file, file_values, themes=chat.app.available_themes)
        except ConfigError as error:
            return str(error)
        trial: Trial | None = None
        key_from = chat.config.key_from
        if connecting:
            assert self.connection is not None
            tried, key_from = (key, "") if key else await asyncio.to_thread(self._key_for, host)
            try:
                trial = await self.connection.trial(host, tried)
            except HostError as error:
                # (Host errors are scrubbed of the key they were sent with; this too.)
                return chat.redact.with_secrets(tried)(trial_problem(error, _shown(host)))
        try:
            missing = await self._missing_workflow(changed, trial)
            if missing is not None:
                if trial is not None:
                    await trial.drop()
                return missing
            return await self._keep(values, changed, file_values, key, trial, key_from)
        except BaseException:
            if trial is not None:
                await trial.drop()
            raise

    async def _missing_workflow(
        self, changed: Mapping[str, Any], trial: Trial | None
    ) -> str | None:
        """Why a workflow the user typed cannot be used: the host lists its workflows and it
        is not one of them (``None``: it is, or the host lists none, or the list failed)."""
        workflow = changed.get("workflow")
        client = trial.client if trial is not None else self.chat.client
        if not isinstance(workflow, str) or client is None:
            return None
        try:
            ids = [choice.id for choice in await load_catalog(client)]
        except HostError:
            return None  # (not a reason to refuse: the host is asked when a message goes)
        if ids and workflow not in ids:
            return f"this host has no workflow {workflow!r}: pick one of its {len(ids)} (Pick…)"
        return None

    def _key_for(self, host: str | None) -> tuple[str | None, str]:
        """The key a new host is tried with when none was typed, and where it comes from:
        as at the next start (a flag's or the environment's, else the keychain's entry for
        that host, else the config file's). In a thread: the keychain may block."""
        config = self.chat.config
        if config.key_from in (KEY_FROM_FLAG, KEY_FROM_ENV):
            return config.api_key, config.key_from
        if host is None:
            return None, ""
        kept = self.keychain.read(host) if self.keychain is not None else None
        if kept:
            return kept, KEY_FROM_KEYCHAIN
        try:
            in_file = read_settings(self.config_file).get("api_key")
        except ConfigError:
            in_file = None
        return (in_file, KEY_FROM_FILE) if isinstance(in_file, str) and in_file else (None, "")

    async def _keep(
        self,
        values: Mapping[str, Any],
        changed: dict[str, Any],
        file_values: dict[str, Any],
        key: str,
        trial: Trial | None,
        key_from: str,
    ) -> str | None:
        """The host took the settings (or none was tried): keep the key, write the file,
        apply. ``None``, or why the file could not be written (the trial dropped).

        Args:
            values: What the screen's fields say.
            changed: What the user changed of them (the key apart).
            file_values: What goes to the config file.
            key: The key typed (``""``: none).
            trial: The host and key that answered (None: no connection change).
            key_from: Where the trial's key comes from.
        """
        chat = self.chat
        app = chat.app
        told: list[str] = []
        if key and trial is not None and trial.host is not None:
            key_from, told = await self._keep_key(trial.host, key, file_values)
        if file_values:
            try:
                written: Saved | None = await asyncio.to_thread(
                    write_settings, self.config_file, file_values, themes=app.available_themes
                )
            except ConfigError as error:
                if trial is not None:
                    await trial.drop()
                return str(error)
        else:
            written = None
        if written is not None and written.tightened is not None:
            told.append(
                f"{_home(self.config_file)} was readable by others "
                f"({written.tightened:o}): now only by you (600)"
            )
        self._apply_looks(changed)
        workflow = str(values.get("workflow") or chat.config.workflow)
        if trial is not None:
            assert self.connection is not None and self.runs is not None
            fresh = self.chats.new_chat if "host" in changed and self.chats else None
            if "host" in changed:
                self.runs.host_changed()
            await self.connection.switch(trial, workflow, key_from=key_from, new_chat=fresh)
        elif "workflow" in changed and self.runs is not None and chat.session is not None:
            self.runs.use_workflow(workflow, "set in the settings")
        self._shown.update({k: v for k, v in values.items() if k != "api_key"})
        saved = f"settings saved to {_home(self.config_file)}" if written else "settings applied"
        app.notify("; ".join([saved, *told]), markup=False, timeout=8)
        return None

    async def _keep_key(
        self, host: str, key: str, file_values: dict[str, Any]
    ) -> tuple[str, list[str]]:
        """Keep ``key`` for ``host``: in the keychain (an older key in the config file then
        leaves it: ``file_values`` says so), else in the file (``file_values`` carries it).
        Where it went, and the sentences saying so."""
        told: list[str] = []
        keychain = self.keychain
        why = "no system keychain here"
        if keychain is not None:
            try:
                await asyncio.to_thread(keychain.store, host, key)
            except KeychainError as error:
                why = str(error)
            else:
                told.append(f"the key is saved in the system keychain ({keychain.name})")
                if "api_key" in await asyncio.to_thread(self._in_file):
                    file_values["api_key"] = None
                    told.append("the older key in the config file was removed")
                return KEY_FROM_KEYCHAIN, told + self._still_wins()
        file_values["api_key"] = key
        told.append(f"the key is saved in {_home(self.config_file)} (readable only by you): {why}")
        return KEY_FROM_FILE, told + self._still_wins()

    def _in_file(self) -> dict[str, Any]:
        try:
            return read_settings(self.config_file)
        except ConfigError:
            return {}

    def _still_wins(self) -> list[str]:
        """What will still win over the saved key at the next start."""
        key_from = self.chat.config.key_from
        if key_from == KEY_FROM_ENV:
            return ["OPENWOP_API_KEY is set and wins at the next start"]
        if key_from == KEY_FROM_FLAG:
            return ["a key given on the command line wins at the start it is given"]
        return []

    def _apply_looks(self, changed: Mapping[str, Any]) -> None:
        """Theme, images, audio and code highlighting, at once."""
        app = self.chat.app
        theme = changed.get("theme")
        if isinstance(theme, str) and theme != app.theme:
            app.theme = theme
        images = changed.get("images")
        if isinstance(images, str) and images != "auto" and images != self.lab.profile.images:
            self.lab.switch("images", images)
        audio = changed.get("audio")
        if isinstance(audio, bool) and audio != self.lab.profile.audio:
            self.lab.switch("audio", "on" if audio else "off")
        if "code_theme" in changed:
            self.lab.set_code_theme(changed["code_theme"], theme_palette.of(app.current_theme))


def _shown(host: str | None) -> str:
    """A host as a sentence names it: without credentials (``None``: the demo host)."""
    return one_line(clean_own(display_url(host))) if host else "the embedded demo host"
