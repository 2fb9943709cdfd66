"""The app's stored-session actions: the sessions screen, export, recording.

`SessionsController` talks to the `Store` and the `Conversation` of its tab. A saved session
opens in a tab of its own (`openwop_tui.ui.controllers.tabs.TabsController.open_session`: the
one way to open a stored session from the app, made by `reopen` and drawn by `show_opened`); the
chat that was on screen stays open in its tab. Nothing here draws beyond that.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.opening import opening
from openwop_tui.core.updates import EventLog
from openwop_tui.store.database import StoreError
from openwop_tui.store.record import Recorder
from openwop_tui.store.sessions import Store
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import safe_filename
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.controllers.reopening import Newest, Reopening, begin_reading
from openwop_tui.ui.controllers.runs import RunsController
from openwop_tui.ui.messages import SessionArchived, SessionDeleted, SessionRenamed

if TYPE_CHECKING:
    from openwop_tui.ui.screens.sessions import SessionSummary


def open_chat(
    config: Config, session_id: str | None, record: Path | None, *, replaying: bool
) -> tuple[Conversation, Store | None, str | None, Newest | None]:
    """The conversation the app shows, the store it is kept in, why it is not kept if it is not, and
    (a long session reopened) its newest items to show while the rest is read into the conversation
    (`openwop_tui.ui.controllers.reopening`).

    A stored session (reopened or new), recorded to a file if asked; a replay is never stored again.
    Without a usable store the chat still works, unkept.

    Args:
        config: The configuration (host, workflow, limits, API key).
        session_id: The stored session to reopen; None starts a new one.
        record: A file to record the chat's events to as well; None records none.
        replaying: True when a recording is replayed: nothing is stored.
    """
    logs: list[EventLog] = []
    problem: str | None = None
    secrets = tuple(s for s in (config.api_key,) if s)
    if record is not None:
        try:
            logs.append(Recorder(record, secrets=[config.api_key]))
        except OSError as error:
            problem = f"cannot record to {record}: {error.strerror or error}"
    if replaying:
        return Conversation(limits=config.limits, logs=logs, secrets=secrets), None, problem, None
    try:
        store = Store(secrets=[config.api_key])
        conversation, newest = reopen(store, session_id, config, secrets, logs=logs)
    except StoreError as error:
        problem = f"this session is not kept: {error}"
        unkept = Conversation(limits=config.limits, logs=logs, secrets=secrets)
        return unkept, None, problem, None
    return conversation, store, problem, newest


def _shown_host(config: Config) -> str:
    """The host a new stored session records (without credentials)."""
    return display_url(config.host) if config.host else "embedded demo host"


def _stored_rows(store: Store) -> list[SessionSummary]:
    from openwop_tui.ui.screens.sessions import SessionSummary  # with its screen, on first use

    return [
        SessionSummary(
            info.id,
            info.title,
            datetime.fromtimestamp(info.updated),
            info.messages,
            info.host,
            info.archived,
        )
        for info in store.sessions()
    ]


def reopen(
    store: Store,
    session_id: str | None,
    config: Config,
    secrets: tuple[str, ...],
    *,
    logs: Sequence[EventLog] = (),
) -> tuple[Conversation, Newest | None]:
    """Stored session ``session_id`` as a conversation to show (``None``: a new one), and (a
    long one) its newest items to show while the rest is read
    (`openwop_tui.ui.controllers.reopening`); a run cut off in it stays open for the host to
    catch up. Raises `StoreError` when it cannot be read.

    Args:
        store: Where it is kept.
        session_id: The stored session; ``None`` starts a new one.
        config: The app's configuration (host, workflow, limits).
        secrets: Masked in what is folded from its log (the key, the host's).
        logs: Where its events are written as well (a recording).
    """
    chosen, steps = opening(
        store,
        session_id,
        host=_shown_host(config),
        workflow=config.workflow,
        limits=config.limits,
        secrets=secrets,
        logs=logs,
        resume=True,  # a run cut off in it stays open for the host to catch up
    )
    newest = begin_reading(chosen, store, session_id, steps)
    return (chosen if newest is None else newest.live), newest


class SessionsController:
    """The chat's saved sessions: list, open, rename, delete, export, record."""

    def __init__(
        self,
        chat: Chat,
        runs: RunsController,
        feed: Feed,
        opener: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        """Keep what the session actions need.

        Args:
            chat: The tab's chat.
            runs: Its runs (a reopened session's cut run is caught up once it is in).
            feed: Puts a reopened session on screen.
            opener: Opens a stored session (in a tab of its own: the tabs controller's
                ``open_session``); None opens nothing.
        """
        self.chat = chat
        self.runs = runs
        self.feed = feed
        self.reopening = Reopening(chat, feed)
        self._opener = opener

    def kept_session_id(self) -> str | None:
        """The stored session this chat is kept in (``None``: not yet written, or unkept)."""
        return self.chat.kept_session_id()

    def show(self) -> None:
        """List the saved sessions: Enter opens one (`SessionChosen`), r renames, d deletes."""
        chat = self.chat
        store = chat.store
        if store is None:
            chat.app.notify(
                "Sessions are not kept: the store could not be opened.", severity="error"
            )
            return
        from openwop_tui.ui.screens.sessions import SessionsScreen

        chat.app.push_screen(SessionsScreen(lambda: _stored_rows(store)))

    async def open(self, session_id: str) -> None:
        """Show saved session ``session_id``: in a tab of its own, or its tab if it is open."""
        if self._opener is not None:
            await self._opener(session_id)

    async def show_opened(self, newest: Newest | None) -> None:
        """Draw the stored session this tab was opened with (`reopen`): a long one's newest runs
        first, the rest read after (once it is all in, the host may have the rest of a run cut
        off in it, and messages sent while it was read go); a short one at once."""
        if newest is not None:
            await self.reopening.show(
                newest, then=self.runs.after_reading, idle=self.runs.until_idle
            )
            return
        await self.feed.show_session(self.chat.conversation)
        self.runs.after_reading()

    def rename(self, event: SessionRenamed) -> None:
        if self.chat.store is not None:
            try:
                self.chat.store.rename(event.session_id, event.title)
            except StoreError as error:
                self.chat.app.notify(str(error), severity="error", markup=False)

    def archive(self, event: SessionArchived) -> None:
        """Archive a stored session (out of the default list, kept) or put it back."""
        if self.chat.store is not None:
            try:
                self.chat.store.archive(event.session_id, event.archived)
            except StoreError as error:
                self.chat.app.notify(str(error), severity="error", markup=False)

    def delete(self, event: SessionDeleted) -> None:
        chat = self.chat
        if chat.store is None:
            return
        try:
            chat.store.delete(event.session_id)
        except StoreError as error:
            chat.app.notify(str(error), severity="error", markup=False)
            return
        self.forget(event.session_id)

    def forget(self, session_id: str) -> None:
        """Session ``session_id`` was deleted from the store: if it is this chat's own, what
        follows is kept in a new one."""
        if session_id == self.kept_session_id():
            keep = self.chat.conversation.logbook.session_log
            if keep is not None:
                keep.session_id = None

    async def export(self) -> None:
        """Export this session as Markdown with its assets into the download folder."""
        # The export (and its markdown parser) loads on first use, not with the app.
        from openwop_tui.present.envelope import export_drawer
        from openwop_tui.present.export import ExportError, export_session

        chat = self.chat
        store, session_id = chat.store, self.kept_session_id()
        if store is None or session_id is None:
            chat.app.notify("Nothing to export yet: this session has not been kept.")
            return
        folder = chat.download_folder()
        title = store.info(session_id).title or "session"
        path = folder / safe_filename(f"{title}-{session_id}.md", f"session-{session_id}.md")
        try:
            exported = await asyncio.to_thread(
                export_session,
                store,
                session_id,
                "md",
                path,
                redactor=chat.redact,
                drawer=export_drawer(chat.registry),
            )
        except (ExportError, StoreError) as error:
            chat.app.notify(str(error), severity="error", markup=False)
            return
        count = len(exported.assets)
        assets = f" and {count} asset{'s' if count != 1 else ''}" if count else ""
        chat.app.notify(f"exported to {exported.path}{assets}", markup=False, timeout=10)

    def toggle_record(self) -> None:
        """Start (or stop) recording the raw stream to an SSE file in the download folder."""
        chat = self.chat
        logs = chat.conversation.logs
        recorder = next((r for r in logs if isinstance(r, Recorder)), None)
        if recorder is not None:
            logs.remove(recorder)
            recorder.close()
            chat.app.notify(f"recording stopped: {recorder.path}", markup=False)
            return
        folder = chat.download_folder()
        path = Path(folder) / time.strftime("recording-%Y%m%d-%H%M%S.sse")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            recorder = Recorder(path, secrets=chat.conversation.secrets)
        except OSError as error:
            chat.app.notify(f"cannot record to {path}: {error.strerror or error}", severity="error")
            return
        logs.append(recorder)
        chat.app.notify(f"recording to {path} (the palette's Record again stops it)", markup=False)
