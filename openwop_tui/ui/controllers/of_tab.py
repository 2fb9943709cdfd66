"""The app's attributes that are the current tab's (`TabParts`, each an `OfTab`).

Apart from `openwop_tui.ui.controllers.tabs`, which imports every controller: the app's class
is made with these before any controller is imported (its first frame is drawn first:
`openwop_tui.ui.first_frame`), and they name the controllers' types for mypy only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from openwop_tui.ui.controllers.attaching import AttachingController
    from openwop_tui.ui.controllers.chat import Chat
    from openwop_tui.ui.controllers.chats import ChatsController
    from openwop_tui.ui.controllers.diagnostics import DiagnosticsController
    from openwop_tui.ui.controllers.feed import Feed
    from openwop_tui.ui.controllers.files import FilesController
    from openwop_tui.ui.controllers.focus import FocusController
    from openwop_tui.ui.controllers.interrupts import InterruptsController
    from openwop_tui.ui.controllers.item_actions import ItemActionsController
    from openwop_tui.ui.controllers.playback import Playback
    from openwop_tui.ui.controllers.recording import RecordingController
    from openwop_tui.ui.controllers.resend import ResendController
    from openwop_tui.ui.controllers.runs import RunsController
    from openwop_tui.ui.controllers.search import SearchController
    from openwop_tui.ui.controllers.sessions import SessionsController
    from openwop_tui.ui.controllers.settings import SettingsController
    from openwop_tui.ui.controllers.timeline import TimelineController

__all__ = ["OfTab", "TabParts"]

_T = TypeVar("_T")


class OfTab(Generic[_T]):
    """An attribute of the app that is the current tab's (``runs: OfTab[RunsController] =
    OfTab("runs")``: the current tab's runs controller), so what the app routes goes to the
    chat on screen."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, app: Any, owner: object = None) -> _T:
        value: _T = getattr(app.tabs.current, self.name)
        return value


class TabParts:
    """The app's attributes that are the current tab's: the chat on screen and its controllers
    (`openwop_tui.ui.controllers.tabs.TabsController` says which tab that is)."""

    chat: OfTab[Chat] = OfTab("chat")
    interrupts: OfTab[InterruptsController] = OfTab("interrupts")
    timeline: OfTab[TimelineController] = OfTab("timeline")
    feed: OfTab[Feed] = OfTab("feed")
    runs: OfTab[RunsController] = OfTab("runs")
    sessions: OfTab[SessionsController] = OfTab("sessions")
    files: OfTab[FilesController] = OfTab("files")
    playback: OfTab[Playback] = OfTab("playback")
    attaching: OfTab[AttachingController] = OfTab("attaching")
    resend: OfTab[ResendController] = OfTab("resend")
    item_actions: OfTab[ItemActionsController] = OfTab("item_actions")
    diagnostics: OfTab[DiagnosticsController] = OfTab("diagnostics")
    chats: OfTab[ChatsController] = OfTab("chats")
    search: OfTab[SearchController] = OfTab("search")
    settings: OfTab[SettingsController] = OfTab("settings")
    recording: OfTab[RecordingController] = OfTab("recording")
    focus_ring: OfTab[FocusController] = OfTab("focus_ring")
