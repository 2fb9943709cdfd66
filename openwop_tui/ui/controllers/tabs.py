"""The open chats, one per tab: which are open, which is shown, and the tab bar.

`TabsController` owns the tabs (`openwop_tui.ui.controllers.tab.Tab`: a chat, its pane and its
controllers) and the current one. The app asks it for the chat on screen (its controllers read
the current tab's); what happens in one tab (a run streaming, a question form closing, an
envelope to draw) stays in that tab (`ChatPane.Said` names it), shown or not.

* **New** (Ctrl+N, as in toad, oterm and a browser): a fresh chat in a tab of its own, at the
  end, on the same host and workflow; the welcome hint of the demo host is said in it as it was
  in the first one. The chats already open stay as they are.
* **Open a stored session** (`open_session`: the sessions list, and anything else that opens
  one): its tab if it is open already, else a tab of its own; a chat with nothing in it (nothing
  sent, typed or queued) makes room for it instead of staying beside it as an empty tab.
* **Switch** (Ctrl+PgDn/PgUp, Ctrl+Tab, Alt+1…9, a click): the shown pane is hidden and the other
  shown: each keeps its transcript mounted and drawn, so a switch lays out and paints one pane.
* **Move** (Ctrl+Shift+PgUp/PgDn, a label dragged onto another).
* **Close** (Ctrl+F4 or Alt+X, a click on a label's close mark): with a run live in the tab,
  asks first whether to cancel it or leave it running on the host; everything the tab held is
  let go (its session stays in the store). Closing the last tab leaves a fresh chat rather than
  quitting: quitting is Ctrl+Q's, which asks about live runs; a close key that sometimes quits
  would lose the app to a key pressed once too often.
* **Quit** with runs live in several tabs asks once, naming each (`ask_to_quit`).

Each label shows the chat's title (the status line's: the stored session's) and a mark for its
run: live, waiting for an answer, or ended while the tab was not looked at
(`openwop_tui.ui.widgets.tab_bar`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from itertools import count
from typing import TYPE_CHECKING

from textual.app import App, ScreenStackError
from textual.widget import Widget
from textual.worker import WorkerCancelled, WorkerFailed

from openwop_tui.core.conversation import Conversation
from openwop_tui.devices.audio import Player
from openwop_tui.store.database import StoreError
from openwop_tui.ui import heap
from openwop_tui.ui.controllers.chat import UNTITLED, Chat, Common
from openwop_tui.ui.controllers.chats import fresh
from openwop_tui.ui.controllers.sessions import reopen
from openwop_tui.ui.controllers.tab import Kit, Tab
from openwop_tui.ui.messages import (
    DraftReturned,
    EnvelopeRenderRequested,
    InterruptFormClosed,
    SessionDeleted,
    SessionRenamed,
)
from openwop_tui.ui.widgets.chat_pane import ChatPane
from openwop_tui.ui.widgets.tab_bar import Label, Mark, TabBar
from openwop_tui.ui.workers import Deferred

if TYPE_CHECKING:
    from openwop_tui.ui.first_frame import FirstPane
    from openwop_tui.ui.screens.quit import LiveRun

__all__ = ["OnePlayer", "TabsController"]

#: Run statuses that mean the run did not end well (its label's mark is ✗ until seen).
_FAILED = frozenset({"failed", "error", "cancelled", "cancelled (locally)"})


def focused_now(app: App[None]) -> Widget | None:
    """The widget with the keys; ``None`` too while the app has no screen (it is closing: a
    form of a run in a hidden tab, closed as the app quits, was a ScreenStackError)."""
    try:
        return app.focused
    except ScreenStackError:
        return None


class OnePlayer:
    """The app's one audio player, for every tab (one clip at a time across the app)."""

    def __init__(self) -> None:
        self._player: Player | None = None

    def __call__(self) -> Player:
        if self._player is None:
            self._player = Player()
        return self._player


class TabsController:
    """The open tabs and the one shown (module docstring)."""

    def __init__(self, common: Common, first: FirstPane | None = None) -> None:
        """No tab open yet (`begin` opens the first).

        Args:
            common: What every chat shares.
            first: The first frame's widgets (`openwop_tui.ui.first_frame`), on screen
                already: its tab bar is this one's, its pane the first tab's (`begin`); None
                makes them.
        """
        self.common = common
        self.tabs: list[Tab] = []
        """The open tabs, in the bar's order."""
        self._current = 0
        self._first = first
        self.bar = first.bar if first is not None else TabBar(id="tab-bar")
        """The tabs' labels (hidden while one chat is open)."""
        self._keys = count(1)
        self._kit: Kit | None = None
        self._prime: Callable[[Chat], None] = lambda _chat: None

    # ------------------------------------------------------------------ what is open

    @property
    def current(self) -> Tab:
        """The tab shown."""
        return self.tabs[self._current]

    @property
    def chat(self) -> Chat:
        """The chat on screen (the current tab's)."""
        return self.current.chat

    def chats(self) -> list[Chat]:
        """Every open chat, in tab order."""
        return [tab.chat for tab in self.tabs]

    @property
    def kit(self) -> Kit:
        assert self._kit is not None, "the tabs are begun in the app's __init__"
        return self._kit

    def openers(self) -> tuple[Callable[[str], Awaitable[None]], Callable[[], Awaitable[None]]]:
        """How a tab's controllers open a stored session and a new chat (in a tab)."""
        return self.open_session, self.new_chat

    def begin(
        self,
        conversation: Conversation,
        kit: Kit,
        prime: Callable[[Chat], None],
        *,
        attach_to: str | None,
    ) -> Tab:
        """The first tab, with the chat the app opened with (mounted by the app's compose).

        Args:
            conversation: The chat the app opened with (new, stored or replayed).
            kit: What the app has once, for every tab's controllers.
            prime: Gives a new tab's prompt what was sent before (↑: the prompt history).
            attach_to: A run to follow once connected (``--attach``), if any.
        """
        self._kit, self._prime = kit, prime
        first, self._first = self._first, None
        chat = Chat(self.common, conversation)
        tab = Tab(next(self._keys), chat, kit, attach_to=attach_to, first=first)
        self.tabs.append(tab)
        return tab

    def compose(self) -> list[Widget]:
        """The bar and the first tab's pane, for the app's compose."""
        return [self.bar, self.current.pane]

    def mounted(self) -> None:
        """The first tab is on screen."""
        self.current.mounted()
        self._watch(self.current)
        self.refresh_bar()

    def _by_key(self, key: int) -> Tab | None:
        return next((tab for tab in self.tabs if tab.key == key), None)

    # ------------------------------------------------------------------ new and open

    async def new_tab(
        self, conversation: Conversation | None = None, *, at: int | None = None
    ) -> Tab | None:
        """Open a chat (``conversation``, else a fresh one on the current tab's host and
        workflow) in a new tab at ``at`` (default: the end) and show it; ``None`` when no
        tab can be opened (a replay)."""
        app = self.common.app
        if self.common.replaying is not None:
            app.notify(
                "A replay shows its recording only: no chat here talks to a host.",
                severity="warning",
            )
            return None
        origin = self.current
        session = origin.chat.session
        workflow = session.workflow_id if session is not None else self.common.config.workflow
        given = conversation is not None
        if conversation is None:
            conversation = fresh(self.common, origin.chat.conversation.secrets, workflow)
        settled = origin.runs.workflow_settled and origin.runs.missing_workflow is None
        tab = Tab(
            next(self._keys), Chat(self.common, conversation), self.kit, workflow_settled=settled
        )
        tab.pane.show(False)
        await self.bar.screen.mount(tab.pane, after=self.tabs[-1].pane)
        self.tabs.insert(len(self.tabs) if at is None else at, tab)
        tab.mounted()
        profile = self.kit.lab.profile
        tab.chat.parts.view.set_profile(profile.colours, profile.width)
        self._watch(tab)
        self._prime(tab.chat)
        tab.chat.show_title(new_chat=not given)
        self.show(self.tabs.index(tab))
        if self.common.client is not None:
            link = self.kit.connection.link
            tab.chat.work(Deferred(lambda: link(tab, workflow)), group="connect")
        return tab

    async def new_chat(self) -> None:
        """Open a fresh chat in a new tab (`new_tab`)."""
        await self.new_tab()

    async def open_session(self, session_id: str) -> None:
        """Show stored session ``session_id``: its tab when it is open, else a new tab (in
        place of the chat on screen when that has nothing in it). The one way the app opens a
        stored session (the sessions list; a search's match)."""
        app = self.common.app
        for index, tab in enumerate(self.tabs):
            if tab.chat.kept_session_id() == session_id:
                self.show(index)
                return
        store = self.common.store
        if store is None:
            return
        try:
            conversation, newest = reopen(
                store, session_id, self.common.config, self.chat.conversation.secrets
            )
        except StoreError as error:
            app.notify(str(error), severity="error", markup=False)
            return
        empty = self.current if self.current.is_empty() else None
        opened = await self.new_tab(conversation, at=None if empty is None else self._current + 1)
        if opened is None:
            return
        if empty is not None:
            await self._close(empty)
        app.notify(f"opened session {session_id}", markup=False)
        await opened.sessions.show_opened(newest)

    # ------------------------------------------------------------------ switch and move

    def show(self, index: int) -> None:
        """Show tab ``index`` (its pane, its keys) in place of the current one."""
        if not 0 <= index < len(self.tabs):
            return
        app = self.common.app
        old, new = self.current, self.tabs[index]
        if new is not old:
            focused = focused_now(app)
            old.focused = focused if focused is not None and old.pane in focused.ancestors else None
            old.pane.show(False)
            self._current = index
            new.pane.show(True)
        new.unseen = ""
        focus = new.focused
        if focus is None or not focus.is_attached:
            focus = new.chat.parts.prompt
        focus.focus()
        self.refresh_bar()

    def step(self, direction: int) -> None:
        """The next (``1``) or previous (``-1``) tab, round the ends."""
        self.show((self._current + direction) % len(self.tabs))

    def jump(self, number: int) -> None:
        """Tab ``number`` (1-8); 9 is the last tab, as in a browser."""
        self.show(len(self.tabs) - 1 if number >= 9 else number - 1)

    def move(self, direction: int) -> None:
        """Move the current tab one place left (``-1``) or right (``1``)."""
        self.move_to(self._current, self._current + direction)

    def move_to(self, index: int, to: int) -> None:
        """Move tab ``index`` to place ``to`` (a label dragged onto another)."""
        if not (0 <= index < len(self.tabs) and 0 <= to < len(self.tabs)) or index == to:
            return
        current = self.current
        self.tabs.insert(to, self.tabs.pop(index))
        self._current = self.tabs.index(current)
        self.refresh_bar()

    # ------------------------------------------------------------------ close

    async def close(self, index: int | None = None) -> None:
        """Close tab ``index`` (default: the current one): asked first while a run is live
        in it; refused while its entries wait for a store that cannot take them."""
        tab = self.tabs[self._current if index is None else index]
        app = self.common.app
        conversation = tab.chat.conversation
        if conversation.log_error is not None or conversation.logbook.unkept_store_entries():
            app.notify(
                f"This chat cannot be saved now ({conversation.log_error or 'the store refused'}"
                "): it stays open until the store takes it (Ctrl+Q asks what to do with it).",
                severity="warning",
                markup=False,
            )
            return
        run_id = tab.runs.live_run()
        if run_id is None:
            await self._close(tab)
            return
        from openwop_tui.ui.screens.quit import QuitScreen  # (on first use: start-up)

        async def chosen(choice: str | None) -> None:
            if choice == "cancel" and tab in self.tabs:
                said = await tab.runs.cancel_for_quit()  # ("": it ended meanwhile)
                if said:
                    app.notify(said.removeprefix("openwop-tui: "), markup=False)
            if choice in ("cancel", "leave") and tab in self.tabs:
                await self._close(tab)

        app.push_screen(QuitScreen(run_id, closing_tab=True), chosen)

    async def _close(self, tab: Tab) -> None:
        """Close ``tab`` now: its run's worker ends (the session logs its end), its logs are
        closed, its pane goes, and everything it held is let go."""
        if len(self.tabs) == 1:
            await self.new_tab()  # the last tab leaves a fresh chat (module docstring)
            if len(self.tabs) == 1:
                return
        if tab is self.current:
            index = self.tabs.index(tab)
            self.show(index + 1 if index + 1 < len(self.tabs) else index - 1)
        await self._end_workers(tab)
        tab.close()
        current = self.current
        self.tabs.remove(tab)
        self._current = self.tabs.index(current)
        await tab.pane.remove()
        self.refresh_bar()
        heap.let_go()  # (its frozen cycles are garbage now)

    async def _end_workers(self, tab: Tab) -> None:
        app = self.common.app
        running = [worker for worker in app.workers if worker.node is tab.pane]
        for worker in running:
            worker.cancel()
        for worker in running:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()

    # ------------------------------------------------------------------ quit

    def _name(self, tab: Tab) -> str:
        """How the dialogs name a tab: its number and title."""
        return f"{self.tabs.index(tab) + 1} “{self._title(tab)}”"

    def _live(self) -> list[tuple[Tab, LiveRun]]:
        from openwop_tui.ui.screens.quit import LiveRun  # (on first use: start-up)

        found = []
        for tab in self.tabs:
            run_id = tab.runs.live_run()
            if run_id is not None:
                found.append((tab, LiveRun(run_id, self._name(tab))))
        return found

    def ask_to_quit(self, leave: Callable[[str | None], Awaitable[None]]) -> None:
        """Quit through ``leave`` (which keeps what the store has not taken, saying the line
        given); with runs in flight in any tab, first ask once what to do with all of them."""
        from openwop_tui.ui.screens.quit import QuitScreen  # (on first use: start-up)

        app = self.common.app
        live = self._live()
        if not live:
            self._leaving(leave, None)
            return
        if isinstance(app.screen, QuitScreen):
            return  # already asking

        async def chosen(choice: str | None) -> None:
            if choice not in ("cancel", "leave"):
                return
            live = self._live()  # (a run may have ended while the dialog was open)
            if choice == "leave":
                said = [
                    f"openwop-tui: left run {run.run_id} running on the host" for _, run in live
                ]
            else:
                said = list(await asyncio.gather(*(tab.runs.cancel_for_quit() for tab, _ in live)))
            self._leaving(leave, "\n".join(said) or None)

        runs = live[0][1].run_id if len(self.tabs) == 1 else [run for _, run in live]
        app.push_screen(QuitScreen(runs), chosen)

    def _leaving(self, leave: Callable[[str | None], Awaitable[None]], said: str | None) -> None:
        # In a worker: leaving waits for the runs' workers to end, which may need the app's
        # message loop this handler runs on.
        self.common.app.run_worker(leave(said), group="quit", exclusive=True)

    async def end_for_signal(self, name: str) -> str:
        """The app is told to stop: each tab's run ended as `RunsController.end_for_signal`
        ends one; the lines to exit with."""
        live = [tab for tab, _ in self._live()] or [self.current]
        return "\n".join([await tab.runs.end_for_signal(name) for tab in live])

    def close_all(self) -> None:
        """The app is going: every tab's player line, recorder and logs."""
        for tab in self.tabs:
            tab.close()

    # ------------------------------------------------------------------ routing

    async def said(self, event: ChatPane.Said) -> None:
        """What a tab's widgets said, answered in that tab (shown or not)."""
        tab = self._by_key(event.tab)
        if tab is None:
            return  # (closed meanwhile)
        message, chat, shown = event.message, tab.chat, tab is self.current
        if isinstance(message, EnvelopeRenderRequested):
            item_id, width, lab = message.item_id, message.width, self.kit.lab
            chat.work(
                Deferred(lambda: lab.draw(item_id, width, chat)),
                group=f"render-{item_id}",
                exclusive=True,
            )
            lab.tell_loading(chat)  # "completed, N loading" until it is drawn
        elif isinstance(message, InterruptFormClosed):
            focused = focused_now(self.common.app)
            tab.interrupts.closed(message.item_id, message.message)
            if not shown and focused is not None:
                focused.focus()  # (the closed form's prompt is in a hidden tab)
        elif isinstance(message, DraftReturned):
            tab.draft_returned(message, focus=shown)

    def session_deleted(self, event: SessionDeleted) -> None:
        """A session deleted from the sessions screen: a tab that keeps it keeps what follows
        in a new one."""
        self.current.sessions.delete(event)
        for tab in self.tabs:
            tab.sessions.forget(event.session_id)

    def session_renamed(self, event: SessionRenamed) -> None:
        """A session renamed from the sessions screen: its tab's title follows."""
        self.current.sessions.rename(event)
        for tab in self.tabs:
            if tab.chat.kept_session_id() == event.session_id:
                tab.chat.show_title()

    def record_voice(self) -> None:
        """Start or stop recording a voice message in the current tab (one at a time: the
        microphone is one)."""
        app = self.common.app
        for tab in self.tabs:
            if tab is not self.current and tab.recording.recording:
                app.notify(
                    f"A voice message is being recorded in tab {self._name(tab)}: stop it there "
                    "first.",
                    severity="warning",
                    markup=False,
                )
                return
        self.current.recording.toggle()

    # ------------------------------------------------------------------ the bar

    def _watch(self, tab: Tab) -> None:
        """Draw the labels again when the tab's title or run changes (its status line's), or
        its run begins or ends (the run's end reaches the status line as a message, which may
        be read before or after the run is over: the mark follows whichever comes last)."""
        status, key = tab.chat.parts.status, tab.key
        for name in ("title", "run_status", "connection"):
            self.bar.watch(status, name, lambda: self._changed(key), init=False)
        tab.runs.busy_changed = lambda: self._changed(key)

    def _changed(self, key: int) -> None:
        tab = self._by_key(key)
        if tab is None:
            return
        live = tab.live
        if not live and (tab.was_live or tab.unseen) and tab is not self.current:
            # (Again while it is unseen: the status line may say how the run ended after it
            # is over.)
            status = tab.chat.parts.status.run_status
            tab.unseen = "failed" if status in _FAILED else "done"
        tab.was_live = live
        self.refresh_bar()

    @staticmethod
    def _title(tab: Tab) -> str:
        return str(tab.chat.parts.status.title) or UNTITLED

    @staticmethod
    def _mark(tab: Tab) -> Mark:
        if tab.live:
            waiting = tab.chat.parts.status.run_status == "waiting"
            return "asking" if waiting or tab.interrupts.has_open_form() else "live"
        if tab.unseen == "failed":
            return "failed"
        return "done" if tab.unseen else ""

    def refresh_bar(self) -> None:
        """Tell the bar each tab's label as it is now."""
        labels = [Label(self._title(tab), self._mark(tab)) for tab in self.tabs]
        self.bar.show(labels, self._current)
