"""What the app's controllers share: one chat (a tab), its host, and the tab's parts.

`Chat` is the one object every controller of a tab is given. It holds what is common to all of
them and belongs to none: the tab's `Conversation`, its side of the host connection (`Session`:
its own run in flight), and, through `Common`, what every tab shares (the app, the store, the
renderer registry, the configuration, the redactor, the one `HostClient`). Each controller owns
its own state on top of it (the runs controller whether a turn is going, the interrupts
controller the open forms …) and reaches the widgets through `Parts`, never through the app's
internals. The tabs themselves are `openwop_tui.ui.controllers.tabs`'.

`Chat.notice` is how every controller tells the user something: a notice in the transcript and,
for errors, a notification, cleaned and with every secret masked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.widget import Widget
from textual.worker import Worker, WorkType

from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Level, Transcript
from openwop_tui.core.session import Session
from openwop_tui.devices import desktop
from openwop_tui.protocol.client import HostClient
from openwop_tui.renderers import Registry
from openwop_tui.store.database import StoreError
from openwop_tui.store.saving import SaveBudget
from openwop_tui.store.sessions import Store
from openwop_tui.text.redact import Redactor
from openwop_tui.text.sanitize import HostText, clean_own
from openwop_tui.ui import heap
from openwop_tui.ui.messages import TitleShown
from openwop_tui.ui.options import Replay
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.chat_pane import ChatPane
from openwop_tui.ui.widgets.prompt import InputArea, PromptInput
from openwop_tui.ui.widgets.queued import QueuedMessages
from openwop_tui.ui.widgets.search_bar import SearchBar
from openwop_tui.ui.widgets.status import StatusLine
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

if TYPE_CHECKING:
    from textual.app import App

_W = TypeVar("_W", bound=Widget)

#: What the status line calls a kept chat that has no title yet (nothing sent).
UNTITLED = "new chat"


class Parts:
    """The chat screen's widgets, whichever screen is on top, even while the app closes.

    Kept from the app's ``compose`` rather than queried: ``App.query_one`` searches the active
    screen, so with the quit question or help open it found nothing (and during shutdown there
    is no screen at all), and a run's events arriving then killed the worker drawing them.
    Widgets that are gone ignore what they are given (`TranscriptView.apply`).
    """

    def __init__(self, widgets: list[Widget]) -> None:
        self._widgets: dict[type[Widget], Widget] = {type(w): w for w in widgets}

    def get(self, kind: type[_W]) -> _W:
        """The chat screen's widget of type ``kind`` (found once inside the others if it is
        nested, like the prompt in the input area)."""
        part = self._widgets.get(kind)
        if part is None:
            for parent in list(self._widgets.values()):
                found = parent.query(kind)
                if found:
                    part = self._widgets[kind] = found.first()
                    break
            else:
                raise LookupError(f"the chat screen has no {kind.__name__}")
        assert isinstance(part, kind)
        return part

    @property
    def view(self) -> TranscriptView:
        return self.get(TranscriptView)

    @property
    def pane(self) -> ChatPane:
        """The tab's pane: every other part is inside it."""
        return self.get(ChatPane)

    @property
    def has_pane(self) -> bool:
        """Whether the parts are in a pane (not before the tab's widgets are made)."""
        return ChatPane in self._widgets

    @property
    def status(self) -> StatusLine:
        return self.get(StatusLine)

    @property
    def prompt(self) -> PromptInput:
        return self.get(PromptInput)

    @property
    def input_area(self) -> InputArea:
        return self.get(InputArea)

    @property
    def queued(self) -> QueuedMessages:
        return self.get(QueuedMessages)

    @property
    def events(self) -> TimelinePanel:
        """The event timeline docked beside the transcript (F2)."""
        return self.get(TimelinePanel)

    @property
    def search(self) -> SearchBar:
        return self.get(SearchBar)


@dataclass
class Reading:
    """A session opened newest first whose older turns are being read: the conversation on
    screen holds its newest runs (`openwop_tui.ui.controllers.reopening`)."""

    sends: bool
    """Messages go at once: the conversation's chat history is the whole session's already
    (kept beside its log). Else they wait in the queue until the session is in."""


@dataclass
class Common:
    """What every open chat (one per tab) shares: one app, one configuration, one store, one
    host. The connection controller sets the host link once for all of them
    (`openwop_tui.ui.controllers.connection`), so a tab opened later talks to the same host
    through the same client and masks the same secrets."""

    app: App[None]
    """The app, for its public API only: notify, push_screen, run_worker, call_later, exit."""
    config: Config
    registry: Registry
    """The app's own renderers (built-ins and plugins, loaded once)."""
    redact: Redactor
    """Masks the key (and the demo host's, once started) in every notice and notification."""
    store: Store | None = None
    """Where sessions are kept (``None``: not kept, or a replay)."""
    replaying: Replay | None = None
    """The recording played instead of a host (``replay FILE``), else ``None``."""
    client: HostClient | None = None
    """The HTTP client every tab's `Session` talks through, once made."""
    host_label: str = ""
    """The host as the status line names it (never the key)."""
    demo: bool = False
    """The host is the embedded demo host."""
    host_secrets: tuple[str, ...] = ()
    """The host's own secrets (its key, once connected: `Chat.add_secrets`)."""

    def download_folder(self) -> Path:
        """Where saves, exports, recordings and cut text go unless the user picks a folder."""
        return desktop.download_dir(self.config.download_dir)


@dataclass
class Chat:
    """One open chat (a tab) and what it talks to; given to every controller of the tab."""

    common: Common
    """What every tab shares (the app, the config, the store, the host link)."""
    conversation: Conversation
    """The pipeline on screen (no Textual): the fold, the chat history, the event log."""
    parts: Parts = field(default_factory=lambda: Parts([]))
    session: Session | None = None
    """This chat's side of the host connection, once made (`ConnectionController`): its own
    run in flight, over the shared client."""
    save_budget: SaveBudget = field(init=False)
    """What the chat may write unasked (cut replies), spent across its runs."""
    reading: Reading | None = None
    """While the older part of a session opened newest first is read
    (`openwop_tui.ui.controllers.reopening`; ``None``: nothing is being read)."""
    closed: bool = False
    """Its tab was closed: no work starts for it any more (`work`)."""

    def __post_init__(self) -> None:
        self.save_budget = SaveBudget(self.config.max_saved_bytes)
        self.add_secrets(())  # (the host's, when this tab opens after the connection)

    # What every tab shares, read (and the host link set) through the chat as before.

    @property
    def app(self) -> App[None]:
        return self.common.app

    @property
    def config(self) -> Config:
        return self.common.config

    @property
    def registry(self) -> Registry:
        return self.common.registry

    @property
    def store(self) -> Store | None:
        return self.common.store

    @property
    def replaying(self) -> Replay | None:
        return self.common.replaying

    @property
    def client(self) -> HostClient | None:
        return self.common.client

    @client.setter
    def client(self, client: HostClient | None) -> None:
        self.common.client = client

    @property
    def host_label(self) -> str:
        return self.common.host_label

    @host_label.setter
    def host_label(self, label: str) -> None:
        self.common.host_label = label

    @property
    def demo(self) -> bool:
        return self.common.demo

    @demo.setter
    def demo(self, demo: bool) -> None:
        self.common.demo = demo

    @property
    def redact(self) -> Redactor:
        return self.common.redact

    @redact.setter
    def redact(self, redact: Redactor) -> None:
        self.common.redact = redact

    @property
    def host_secrets(self) -> tuple[str, ...]:
        return self.common.host_secrets

    @host_secrets.setter
    def host_secrets(self, secrets: tuple[str, ...]) -> None:
        self.common.host_secrets = secrets

    def work(self, work: WorkType[Any], *, group: str, **how: Any) -> Worker[Any] | None:
        """Run ``work`` as a worker of this chat's tab (its pane): a worker group is the tab's
        own (one run at a time per tab, not per app), and closing the tab cancels them all;
        nothing once it is closed (what was scheduled for it before finds it gone: ``None``).
        ``how``: `Widget.run_worker`'s other arguments (``name``, ``exclusive``)."""
        if self.closed:
            if hasattr(work, "close"):
                work.close()  # (a coroutine made for it: not left unawaited)
            return None
        node: Widget | App[None] = self.parts.pane if self.parts.has_pane else self.app
        return node.run_worker(work, group=group, **how)

    def close(self) -> None:
        """Its tab closes: nothing more is started for it."""
        self.closed = True

    def stop_work(self, group: str) -> None:
        """Cancel this chat's workers of ``group`` (`work`)."""
        node: Widget | App[None] = self.parts.pane if self.parts.has_pane else self.app
        self.app.workers.cancel_group(node, group)

    def show_conversation(self, conversation: Conversation) -> None:
        """Put ``conversation`` on screen in place of the one shown (whose frozen objects the
        collector gets back: `openwop_tui.ui.heap.let_go`)."""
        self.conversation = conversation
        self.add_secrets(())
        heap.let_go()

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Mask ``secrets`` too (the host's key) in what the conversation folds from now on.
        (A session's older turns being read are not: the reading masks with, and checks its
        kept folds against, the secrets it began with, as the next open will
        (`openwop_tui.core.reopen.fingerprint`); what it reads was logged masked already.)"""
        self.host_secrets = tuple(dict.fromkeys((*self.host_secrets, *secrets)))
        known = self.conversation.secrets
        if not set(self.host_secrets) <= set(known):
            self.conversation.secrets = tuple({*known, *self.host_secrets})

    @property
    def transcript(self) -> Transcript:
        """The fold's items and status (the conversation's)."""
        return self.conversation.transcript

    def kept_session_id(self) -> str | None:
        """The stored session this chat is kept in (``None``: not yet written, or unkept)."""
        keep = self.conversation.logbook.session_log
        return keep.session_id if keep is not None else None

    def title(self) -> HostText:
        """The session's title as stored (cleaned as the store read it); `UNTITLED` before the
        first entry; ``""`` when the chat is not kept at all (no store, a replay)."""
        if self.store is None or self.conversation.logbook.session_log is None:
            return clean_own("")
        untitled = clean_own(UNTITLED)
        session_id = self.kept_session_id()
        if session_id is None:
            return untitled
        try:
            return self.store.info(session_id).title or untitled
        except StoreError:
            return untitled  # deleted from the sessions screen: what follows is a new one

    def show_title(self, *, new_chat: bool = False) -> None:
        """Tell the status line the title as it is now."""
        self.parts.status.post_message(TitleShown(self.title(), new_chat=new_chat))

    def download_folder(self) -> Path:
        """Where saves, exports, recordings and cut text go unless the user picks a folder."""
        return self.common.download_folder()

    def cut_parts_folder(self) -> Path | None:
        """Where the full text of a cut reply is written unasked: the download folder, but for a
        replay only the ``--save-media`` folder it was given (``None``: nowhere; a replay writes
        nothing unasked, its recording keeps every part)."""
        if self.replaying is not None:
            return self.replaying.save_media
        return self.download_folder()

    async def notice(self, level: Level, text: str) -> None:
        """Tell the user: a notice in the transcript, and a notification for an error."""
        text = self.redact(clean_own(text))  # the client's own sentence
        await self.parts.view.apply([self.conversation.notice(level, text)])
        if level == "error":
            self.app.notify(text, severity="error", timeout=8, markup=False)


class OpenChats(Protocol):
    """The chats open in the app (one per tab: `openwop_tui.ui.controllers.tabs`), for the
    controllers that work once for all of them (the lab, the connection, the prompt history,
    leaving)."""

    @property
    def chat(self) -> Chat:
        """The chat on screen (the current tab's)."""
        ...

    def chats(self) -> list[Chat]:
        """Every open chat, in tab order."""
        ...
