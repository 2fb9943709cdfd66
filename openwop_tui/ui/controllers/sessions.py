"""The app's stored-session actions: the sessions screen, export, recording.

Functions of the `openwop_tui.ui.app.ChatApp` they are given, kept apart so the app module stays
about composition and routing (its ``action_*`` methods call these). Everything here talks to
the `Store` and the `Conversation`; nothing draws beyond handing the view the items of a
reopened session.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.core.conversation import stored
from openwop_tui.core.fold import Added
from openwop_tui.devices import desktop as actions
from openwop_tui.present.envelope import export_drawer
from openwop_tui.store.export import ExportError, export_session
from openwop_tui.store.record import Recorder
from openwop_tui.store.sessions import SessionLog, Store, StoreError
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import safe_filename
from openwop_tui.ui.messages import SessionDeleted, SessionRenamed
from openwop_tui.ui.screens.sessions import SessionsScreen, SessionSummary

if TYPE_CHECKING:
    from openwop_tui.ui.app import ChatApp


def kept_session_id(app: ChatApp) -> str | None:
    """The stored session this chat is kept in (``None``: not yet written, or unkept)."""
    for keep in app.conversation.logs:
        if isinstance(keep, SessionLog):
            return keep.session_id
    return None


def _stored_rows(store: Store) -> list[SessionSummary]:
    return [
        SessionSummary(
            info.id, info.title, datetime.fromtimestamp(info.updated), info.messages, info.host
        )
        for info in store.sessions()
    ]


def show_sessions(app: ChatApp) -> None:
    """List the saved sessions: Enter opens one, r renames, d deletes."""
    store = app.store
    if store is None:
        app.notify("Sessions are not kept: the store could not be opened.", severity="error")
        return

    async def chosen(session_id: str | None) -> None:
        await _session_chosen(app, session_id)

    app.push_screen(SessionsScreen(lambda: _stored_rows(store)), chosen)


async def _session_chosen(app: ChatApp, session_id: str | None) -> None:
    store = app.store
    if session_id is None or store is None or session_id == kept_session_id(app):
        return
    if app._busy:
        app.notify("A run is in progress: open the session when it has ended.")
        return
    try:
        chosen = stored(
            store,
            session_id,
            session=app.session,
            host=display_url(app.config.host) if app.config.host else "embedded demo host",
            workflow=app.config.workflow,
            limits=app.config.limits,
            secrets=app.conversation.secrets,
        )
    except StoreError as error:
        app.notify(str(error), severity="error", markup=False)
        return
    app.conversation = chosen
    await app.view.clear()
    await app.view.apply([Added(item) for item in chosen.transcript.items])
    app.view.scroll_end(animate=False)
    app.notify(f"opened session {session_id}", markup=False)


def rename(app: ChatApp, event: SessionRenamed) -> None:
    if app.store is not None:
        try:
            app.store.rename(event.session_id, event.title)
        except StoreError as error:
            app.notify(str(error), severity="error", markup=False)


def delete(app: ChatApp, event: SessionDeleted) -> None:
    if app.store is None:
        return
    try:
        app.store.delete(event.session_id)
    except StoreError as error:
        app.notify(str(error), severity="error", markup=False)
        return
    if event.session_id == kept_session_id(app):
        # This chat's own session is gone: what follows is kept in a new one.
        for keep in app.conversation.logs:
            if isinstance(keep, SessionLog):
                keep.session_id = None


async def export(app: ChatApp) -> None:
    """Export this session as Markdown with its assets into the download folder."""
    store, session_id = app.store, kept_session_id(app)
    if store is None or session_id is None:
        app.notify("Nothing to export yet: this session has not been kept.")
        return
    folder = actions.download_dir(app.config.download_dir)
    title = store.info(session_id).title or "session"
    path = folder / safe_filename(f"{title}-{session_id}.md", f"session-{session_id}.md")
    try:
        exported = await asyncio.to_thread(
            export_session,
            store,
            session_id,
            "md",
            path,
            redactor=app._redact,
            drawer=export_drawer(app.registry),
        )
    except (ExportError, StoreError) as error:
        app.notify(str(error), severity="error", markup=False)
        return
    count = len(exported.assets)
    assets = f" and {count} asset{'s' if count != 1 else ''}" if count else ""
    app.notify(f"exported to {exported.path}{assets}", markup=False, timeout=10)


def toggle_record(app: ChatApp) -> None:
    """Start (or stop) recording the raw stream to an SSE file in the download folder."""
    recorder = next((r for r in app.conversation.logs if isinstance(r, Recorder)), None)
    if recorder is not None:
        app.conversation.logs.remove(recorder)
        recorder.close()
        app.notify(f"recording stopped: {recorder.path}", markup=False)
        return
    folder = actions.download_dir(app.config.download_dir)
    path = Path(folder) / time.strftime("recording-%Y%m%d-%H%M%S.sse")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        recorder = Recorder(path, secrets=app.conversation.secrets)
    except OSError as error:
        app.notify(f"cannot record to {path}: {error.strerror or error}", severity="error")
        return
    app.conversation.logs.append(recorder)
    app.notify(f"recording to {path} (the palette's Record again stops it)", markup=False)
