"""The app's file actions on an envelope's bytes: save, save as…, and open (asking first when
the file may run).

Functions of the `openwop_tui.ui.app.ChatApp` they are given, kept apart so the app module stays
about composition and routing. ``save`` writes to the download folder; ``save as…`` asks for a
folder (`SaveAsScreen`), prefilled with the one chosen last in this session; ``open`` saves to
the download folder and hands the file to the desktop opener, but first asks
(`ConfirmOpenScreen`) when `actions.open_risk` says the file may run, with its reason. Nothing
is written before the user has said yes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.devices import desktop as actions
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import clean, safe_filename
from openwop_tui.ui.screens.confirm_open import ConfirmOpenScreen
from openwop_tui.ui.screens.save_as import SaveAsScreen

if TYPE_CHECKING:
    from openwop_tui.ui.app import ChatApp

#: The actions handled here, as the transcript names them.
NAMES = ("save", "save-as", "open")
#: How much of a file `actions.open_risk` looks at for a program's or a web page's first bytes.
HEAD_BYTES = 512


def download_folder(app: ChatApp) -> Path:
    """Where ``save`` and ``open`` write: the configured download folder."""
    return actions.download_dir(app.config.download_dir)


async def carry_out(app: ChatApp, name: str, rendered: Rendered) -> None:
    """Save, save as… or open ``rendered``'s bytes; raises `actions.ActionError` with a
    sentence when they cannot be (the app shows it)."""
    data = rendered.data
    if data is None:
        raise actions.ActionError("the bytes are not here to save")
    file_name = safe_filename(rendered.filename, "download")
    if name == "save":
        path = await asyncio.to_thread(actions.save_bytes, data, file_name, download_folder(app))
        app.notify(clean(f"saved to {path}"), markup=False)
    elif name == "save-as":
        _ask_folder(app, data, file_name)
    elif name == "open":
        risk = actions.open_risk(file_name, rendered.media_type, data[:HEAD_BYTES])
        if risk is None:
            await _save_and_open(app, data, file_name)
            return

        async def answered(yes: bool | None) -> None:
            if yes:
                await _guarded(app, _save_and_open(app, data, file_name))

        app.push_screen(ConfirmOpenScreen(file_name, risk.reason), answered)


def _ask_folder(app: ChatApp, data: bytes, file_name: str) -> None:
    async def chosen(folder: Path | None) -> None:
        if folder is None:
            return
        app.save_as_folder = folder  # remembered for the next "save as…" of this session
        await _guarded(app, _save_into(app, data, file_name, folder))

    app.push_screen(SaveAsScreen(file_name, app.save_as_folder or download_folder(app)), chosen)


async def _save_into(app: ChatApp, data: bytes, file_name: str, folder: Path) -> None:
    path = await asyncio.to_thread(actions.save_bytes, data, file_name, folder)
    app.notify(clean(f"saved to {path}"), markup=False)


async def _save_and_open(app: ChatApp, data: bytes, file_name: str) -> None:
    path = await asyncio.to_thread(actions.save_bytes, data, file_name, download_folder(app))
    message = await asyncio.to_thread(actions.open_path, path)
    app.notify(clean(message), markup=False)


async def _guarded(app: ChatApp, work: Awaitable[None]) -> None:
    """Run a dialog's follow-up, showing an `ActionError` as the app's handler would (a
    dialog's callback runs after that handler has returned)."""
    try:
        await work
    except actions.ActionError as error:
        app.notify(clean(str(error)), severity="error", timeout=8, markup=False)


def save_as_selected(app: ChatApp) -> None:
    """The palette's "Save as…": the selected transcript item's file."""
    view = app.view
    if view.cursor is None:
        app.notify(
            "select an item first (Shift+Tab moves into the transcript), then Save as…",
            severity="warning",
        )
        return
    view.action_request("save-as")
