"""The app's file actions on an envelope's bytes: save, save as…, and open (asking first when
the file may run).

``save`` writes to the download folder; ``save as…`` asks for a
folder (`SaveAsScreen`), prefilled with the one chosen last in this session; ``open`` saves to
the download folder and hands the file to the desktop opener, but first asks
(`ConfirmOpenScreen`) when `actions.open_risk` says the file may run, with its reason. Nothing
is written before the user has said yes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path

from openwop_tui.devices import desktop as actions
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import safe_filename
from openwop_tui.ui.controllers.chat import Chat

#: The actions handled here, as the transcript names them.
NAMES = ("save", "save-as", "open")
#: How much of a file `actions.open_risk` looks at for a program's or a web page's first bytes.
HEAD_BYTES = 512


class FilesController:
    """Saving and opening envelope bytes; remembers the folder last chosen for "save as…"."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.save_as_folder: Path | None = None
        """The folder last chosen for "save as…" this session."""

    def _say(self, message: str) -> None:
        self.chat.app.notify(message, markup=False)  # `ChatApp.notify` cleans every one

    async def carry_out(self, name: str, rendered: Rendered) -> None:
        """Save, save as… or open ``rendered``'s bytes; raises `actions.ActionError` with a
        sentence when they cannot be (the caller shows it)."""
        data = rendered.data
        if data is None:
            raise actions.ActionError("the bytes are not here to save")
        file_name = safe_filename(rendered.filename, "download")
        if name == "save":
            folder = self.chat.download_folder()
            path = await asyncio.to_thread(actions.save_bytes, data, file_name, folder)
            self._say(f"saved to {path}")
        elif name == "save-as":
            self._ask_folder(data, file_name)
        elif name == "open":
            risk = actions.open_risk(file_name, rendered.media_type, data[:HEAD_BYTES])
            if risk is None:
                await self._save_and_open(data, file_name)
                return

            async def answered(yes: bool | None) -> None:
                if yes:
                    await self._guarded(self._save_and_open(data, file_name))

            from openwop_tui.ui.screens.confirm_open import ConfirmOpenScreen  # on first use

            self.chat.app.push_screen(ConfirmOpenScreen(file_name, risk.reason), answered)

    def _ask_folder(self, data: bytes, file_name: str) -> None:
        async def chosen(folder: Path | None) -> None:
            if folder is None:
                return
            self.save_as_folder = folder  # remembered for the next "save as…" of this session
            await self._guarded(self._save_into(data, file_name, folder))

        from openwop_tui.ui.screens.save_as import SaveAsScreen  # loaded on first use

        start = self.save_as_folder or self.chat.download_folder()
        self.chat.app.push_screen(SaveAsScreen(file_name, start), chosen)

    async def _save_into(self, data: bytes, file_name: str, folder: Path) -> None:
        path = await asyncio.to_thread(actions.save_bytes, data, file_name, folder)
        self._say(f"saved to {path}")

    async def _save_and_open(self, data: bytes, file_name: str) -> None:
        folder = self.chat.download_folder()
        path = await asyncio.to_thread(actions.save_bytes, data, file_name, folder)
        self._say(await asyncio.to_thread(actions.open_path, path))

    async def _guarded(self, work: Awaitable[None]) -> None:
        """Run a dialog's follow-up, showing an `ActionError` as the action handler would (a
        dialog's callback runs after that handler has returned)."""
        try:
            await work
        except actions.ActionError as error:
            self.chat.app.notify(str(error), severity="error", timeout=8, markup=False)

    def save_as_selected(self) -> None:
        """The palette's "Save as…": the selected transcript item's file."""
        view = self.chat.parts.view
        if view.cursor is None:
            self.chat.app.notify(
                "select an item first (Shift+Tab moves into the transcript), then Save as…",
                severity="warning",
            )
            return
        view.action_request("save-as")
