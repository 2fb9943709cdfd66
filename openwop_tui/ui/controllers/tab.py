"""One open chat (a tab): its `Chat`, its pane of widgets, and the controllers that work on it.

Each tab has what a chat needs of its own: its conversation and host session (its own run in
flight), its transcript, status line, prompt (so its draft), queue, question forms, attachments,
search and timeline, and the controllers that own their state (runs, feed, interrupts …). What
the app has once is given to it (`Kit`): the lab that draws envelopes, the connection (one host
and client for every tab), the audio player (one clip at a time across the app), the settings
file, and the way to open a stored session in a tab.

The tabs themselves (which are open, which is shown, the tab bar) are
`openwop_tui.ui.controllers.tabs.TabsController`'s.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.widget import Widget

from openwop_tui.core.attachments import AttachmentError, attachment_of
from openwop_tui.core.fold import UserTurn
from openwop_tui.devices.audio import Player
from openwop_tui.ui import keys
from openwop_tui.ui.controllers.attaching import AttachingController
from openwop_tui.ui.controllers.chat import Chat, Parts
from openwop_tui.ui.controllers.chats import ChatsController
from openwop_tui.ui.controllers.diagnostics import DiagnosticsController
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.controllers.files import FilesController
from openwop_tui.ui.controllers.focus import FocusController
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.controllers.item_actions import ItemActionsController
from openwop_tui.ui.controllers.playback import Playback
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.recording import RecordingController
from openwop_tui.ui.controllers.resend import ResendController
from openwop_tui.ui.controllers.runs import RunsController
from openwop_tui.ui.controllers.search import SearchController
from openwop_tui.ui.controllers.sessions import SessionsController
from openwop_tui.ui.controllers.settings import SettingsController
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.messages import DraftReturned
from openwop_tui.ui.transcript.view import TranscriptView
from openwop_tui.ui.widgets.chat_pane import ChatPane
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import InputArea, PromptInput
from openwop_tui.ui.widgets.queued import QueuedMessages
from openwop_tui.ui.widgets.recording import RecordingBar
from openwop_tui.ui.widgets.search_bar import SearchBar
from openwop_tui.ui.widgets.status import StatusLine
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

if TYPE_CHECKING:
    from textual.widget import AwaitMount

    from openwop_tui.ui.controllers.connection import ConnectionController
    from openwop_tui.ui.first_frame import FirstPane

__all__ = ["Kit", "Tab"]


@dataclass(frozen=True)
class Kit:
    """What the app has once and gives every tab's controllers."""

    lab: LabController
    """Draws envelopes (under the lab's profile) into any tab's view."""
    connection: ConnectionController
    """The one host link (for the doctor)."""
    player: Callable[[], Player]
    """The app's one audio player (made on the first play)."""
    config_file: Path
    """The settings file this run reads (``--config``, else the default)."""
    open_session: Callable[[str], Awaitable[None]]
    """Opens a stored session in a tab (`TabsController.open_session`)."""
    new_chat: Callable[[], Awaitable[None]]
    """Opens a new chat in a tab (`TabsController.new_chat`)."""


class Tab:
    """One open chat and its controllers (module docstring)."""

    def __init__(
        self,
        key: int,
        chat: Chat,
        kit: Kit,
        *,
        attach_to: str | None = None,
        workflow_settled: bool = False,
        first: FirstPane | None = None,
    ) -> None:
        """Make the tab's widgets (mounted by the tabs controller) and controllers.

        Args:
            key: The tab's number for the app's life (never reused; not its place in the bar).
            chat: Its chat (a new conversation, a stored one, or the one the app opened with).
            kit: What the app has once.
            attach_to: A run to follow once connected (``--attach``), if any.
            workflow_settled: Its workflow is decided already (the tab it was opened from had
                one): the host's workflows are not asked again.
            first: The first frame's widgets (`openwop_tui.ui.first_frame`), on screen already,
                for the first tab; None makes its widgets.
        """
        self.key = key
        self.chat = chat
        status, input_area = (
            (first.status, first.input_area)
            if first is not None
            else (StatusLine(id="status"), InputArea(id="input-area"))
        )
        middle: list[Widget] = [
            TimelinePanel(id="events"),
            TranscriptView(
                id="transcript",
                registry=chat.registry,
                code_theme=kit.lab.code_theme,
                vim_keys=chat.config.vim_keys,
            ),
            SearchBar(id="search"),
        ]
        widgets = [status, *middle, input_area]
        self.placed: AwaitMount | None = None
        """The rest of a first frame's pane, being mounted (awaited before the tab is used)."""
        if first is None:
            self.pane = ChatPane(*widgets, tab=key)
            """The tab's widgets (shown while it is the current tab)."""
        else:
            # On screen already with the status line and the prompt: the rest goes between.
            assert first.pane.tab == key, "the first frame's pane is the first tab's"
            self.pane = first.pane
            self.placed = first.pane.mount(*middle, after=status)
        chat.parts = Parts([self.pane, *widgets])
        self.focused: Widget | None = None
        """What had the keys when another tab was shown (given them back on return)."""
        self.interrupts = InterruptsController(chat)
        self.timeline = TimelineController(chat)
        self.feed = Feed(chat, self.interrupts, self.timeline)
        self.runs = RunsController(
            chat,
            self.feed,
            self.interrupts,
            attach_to=attach_to,
            workflow_settled=workflow_settled,
        )
        self.sessions = SessionsController(chat, self.runs, self.feed, kit.open_session)
        self.files = FilesController(chat)
        self.playback = Playback(chat, kit.player)
        self.attaching = AttachingController(chat)
        self.resend = ResendController(chat, self.runs, self.feed, self.attaching)
        self.item_actions = ItemActionsController(
            chat, self.playback, self.files, kit.lab, self.timeline, self.resend
        )
        self.diagnostics = DiagnosticsController(chat, self.timeline, kit.lab, kit.connection)
        self.chats = ChatsController(chat, kit.new_chat)
        self.search = SearchController(chat)
        self.settings = SettingsController(
            chat, kit.lab, kit.config_file, kit.connection, self.runs, self.chats
        )
        self._recording: RecordingController | None = None
        self.focus_ring = FocusController(
            chat, self.runs, self.resend, self.interrupts, recording=self.is_recording
        )
        self.unseen: str = ""
        """How its last run ended while another tab was shown (``"done"``, ``"failed"``;
        ``""``: seen, or still going), for its label's mark."""
        self.was_live = False
        """A run was live in it when its label was last drawn."""

    def is_recording(self) -> bool:
        """Whether a voice message is being recorded in this tab (Esc discards it)."""
        return self._recording is not None and bool(self._recording.recording)

    @property
    def recording(self) -> RecordingController:
        """Records this tab's voice messages, attached to its next message."""
        assert self._recording is not None, "made as the pane mounts (`mounted`)"
        return self._recording

    def mounted(self) -> None:
        """The pane is on screen: the keys its bars name (as ``[keys]`` moved them), and the
        recorder of its voice messages (its bar is there now)."""
        app = self.chat.app
        parts = self.chat.parts
        for kind in (PromptInput, QueuedMessages, AttachmentChips):
            # Found now (nested in the input area), so what is told to them after the tab is
            # closed finds them, gone, and is ignored, not a lookup that fails.
            parts.get(kind)
        effect = keys.in_effect(app)
        bar = parts.get(RecordingBar)
        bar.keys = f"{keys.display(effect['record_voice'].split(',')[0])} stops · Esc discards"
        chips = self.chat.parts.get(AttachmentChips)
        chips.keys = keys.display(effect["attachments"].split(",")[0])
        self._recording = RecordingController(
            bar,
            on_clip=self._voice_clip,
            on_error=lambda said: app.notify(said, severity="error", markup=False),
            on_note=lambda said: app.notify(said, severity="warning", markup=False),
        )

    def _voice_clip(self, data: bytes, name: str, mime: str, _duration: float) -> None:
        """A recorded clip: checked like any file, then attached to this tab's next message.

        Args:
            data: The clip's bytes (Ogg Vorbis, or WAV where libsndfile has no Vorbis).
            name: Its file name (``voice <date> <time>.ogg``).
            mime: ``audio/ogg`` or ``audio/wav``.
            _duration: Its length (read again from the bytes, as any clip's is).
        """
        try:
            self.attaching.add(attachment_of(data, name, mime))
        except AttachmentError as error:
            self.chat.app.notify(str(error), severity="error", markup=False)

    def draft_returned(self, event: DraftReturned, *, focus: bool) -> None:
        """A message of this tab that did not go: its words back in the prompt (unless
        something else was typed since), its attachments back in the chips; the prompt takes
        the keys if the tab is shown (``focus``)."""
        self.attaching.give_back(event.attachments)
        prompt = self.chat.parts.prompt
        if event.text and not prompt.text.strip():
            prompt.value = event.text
        if focus:
            prompt.focus()

    @property
    def live(self) -> bool:
        """A run is going in this tab (a turn, a followed run, a catch-up)."""
        return self.runs.busy

    def is_empty(self) -> bool:
        """Nothing would be lost if this tab made room for another: nothing sent (its notices
        aside), nothing typed, queued, attached or running."""
        chat = self.chat
        return (
            not self.runs.busy
            and chat.reading is None
            and not any(isinstance(item, UserTurn) for item in chat.transcript.items)
            and not chat.parts.prompt.text.strip()
            and not len(chat.parts.queued)
            and not self.attaching.pending
        )

    def close(self) -> None:
        """The tab is closing: its player line, recorder and frame timer stop, its logs are
        written and closed (the session stays in the store)."""
        self.playback.close()
        if self._recording is not None:
            self._recording.close()  # (the microphone is let go)
        self.feed.stop()
        self.chat.close()
        self.chat.conversation.logbook.flush()
        self.chat.conversation.logbook.close()
