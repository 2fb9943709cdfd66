"""The chat app: composition and routing, nothing else.

The app makes the chat screen's widgets and the controllers that own the chat's state (see
`openwop_tui.ui.controllers`), then routes what happens to them: a message from a widget or a
screen (`openwop_tui.ui.messages`), a key or palette action, a theme change. The conversation
pipeline (no Textual) folds the host's events; the controllers show what changed. Every failure
becomes a line in the transcript and a notification, never a traceback.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.theme import Theme

from openwop_tui.config import Config
from openwop_tui.store import state
from openwop_tui.text.redact import Redactor
from openwop_tui.ui import big_blocks, heap, keys, leaks, theme_palette, warming
from openwop_tui.ui.command_palette import AppCommands
from openwop_tui.ui.controllers.of_tab import TabParts
from openwop_tui.ui.controllers.opening import choose_theme, first_screen
from openwop_tui.ui.dialog_footer import give_dialogs_footers
from openwop_tui.ui.failure import GuardedApp
from openwop_tui.ui.first_frame import FirstPane, Held, HoldsActions
from openwop_tui.ui.key_watch import KeysCounted
from openwop_tui.ui.messages import (
    ActionRequested,
    DraftReturned,
    FilesPasted,
    InterruptAnswered,
    InterruptFormClosed,
    InterruptFormLeft,
    ItemEventsRequested,
    MessageSubmitted,
    RunCancelRequested,
    SessionArchived,
    SessionChosen,
    SessionDeleted,
    SessionRenamed,
    TimelineScreenOpened,
    TranscriptEnd,
    TranscriptLeft,
    WorkflowChosen,
)
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.quiet_walk import QuietWalks
from openwop_tui.ui.resizing import ResizeAtOnce
from openwop_tui.ui.signals import end_on_signals, stop_ending_on_signals
from openwop_tui.ui.widgets.footer import SteadyFooter
from openwop_tui.ui.workers import Deferred

# Named only, or imported where used: the chat's controllers, its pipeline, the store and the
# renderers are imported once the first frame is drawn (`openwop_tui.ui.first_frame`).
if TYPE_CHECKING:
    from openwop_tui.core.conversation import Conversation
    from openwop_tui.core.fold import Transcript
    from openwop_tui.core.session import Session
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.draw.palette import Palette
    from openwop_tui.renderers.base import AudioSupport
    from openwop_tui.ui.assembly import Assembled
    from openwop_tui.ui.controllers.connection import ConnectionController
    from openwop_tui.ui.controllers.leaving import Leaving
    from openwop_tui.ui.controllers.profile import LabController
    from openwop_tui.ui.controllers.recall import RecallController
    from openwop_tui.ui.controllers.reopening import Newest
    from openwop_tui.ui.controllers.search_all import SearchAllController
    from openwop_tui.ui.controllers.tabs import TabsController
    from openwop_tui.ui.screens.unsaved import UnsavedScreen
    from openwop_tui.ui.transcript.view import TranscriptView
    from openwop_tui.ui.widgets.chat_pane import ChatPane
    from openwop_tui.ui.widgets.chips import AttachmentChips
    from openwop_tui.ui.widgets.search_bar import SearchBar
    from openwop_tui.ui.widgets.status import StatusLine
    from openwop_tui.ui.widgets.tab_bar import TabBar
    from openwop_tui.ui.widgets.timeline_panel import TimelinePanel
    from openwop_tui.ui.widgets.timeline_view import TimelineView

log = logging.getLogger(__name__)


class ChatApp(TabParts, HoldsActions, QuietWalks, KeysCounted, ResizeAtOnce, GuardedApp):
    """Chat with an OpenWOP host; every envelope drawn (a new terminal size at once:
    `ResizeAtOnce`; the collector's full pass once nobody types: `QuietWalks`; the keys its
    terminal reads counted, for the work that gives way to them: `KeysCounted`)."""

    TITLE = "openwop-tui"
    CSS_PATH = "app.tcss"
    AUTO_FOCUS = "#prompt"
    # From the key table, with ids: the config's [keys] moves them (set_keymap in __init__).
    BINDINGS: ClassVar[list[BindingType]] = list(keys.bindings(keys.APP_KEYS))
    # The app's commands, then Textual's own (`AppCommands` offers both, in that order).
    COMMANDS: ClassVar = {AppCommands}
    # Made with the chat (`openwop_tui.ui.assembly`): in __init__, or once the first frame is
    # drawn (`AppOptions.draw_first`).
    tabs: TabsController
    """The open chats, one per tab, and the one on screen."""
    lab: LabController
    connection: ConnectionController
    recall: RecallController
    leaving: Leaving
    search_all: SearchAllController

    def __init__(
        self,
        config: Config,
        options: AppOptions | None = None,
        *,
        demo_host: DemoHost | None = None,
        audio_support: AudioSupport | None = None,
    ) -> None:
        """Open the chat (stored, new or replayed) and make its controllers: here, or with
        ``options.draw_first`` once the first frame is drawn (`after_first_frame`).

        Args:
            config: The configuration the app runs with (host, key, theme, keymap, limits…).
            options: How the app starts (`openwop_tui.ui.options.AppOptions`: a stored session, a
                recording to replay or write, a run to attach to, keys typed while it started); None
                opens a new chat.
            demo_host: An embedded host (not started) in place of the default one when
                ``config.host`` is None; tests pass a fast, deterministic one. None makes the
                default.
            audio_support: What the sound card can play, already known, so the probe is skipped;
                None probes.
        """
        options = options or AppOptions()
        leaks.install()  # (what Textual would keep of what the app lets go of)
        super().__init__(options.log_file, Redactor([config.api_key]))
        self.config = config
        self.set_keymap(config.keymap)
        self._typed = options.typed
        theme_problem = choose_theme(self, config)
        self._warnings = [theme_problem] if theme_problem else []
        """Said in the transcript once it is there (a theme that does not exist, a store that
        cannot be written)."""
        self._newest: Newest | None = None
        self._made = False
        """Whether the chat and its controllers are made (`_keep`)."""

        def make(first: FirstPane | None) -> None:
            """Open the chat and make its controllers (`openwop_tui.ui.assembly`)."""
            from openwop_tui.ui.assembly import assemble

            self._keep(
                assemble(
                    self,
                    config,
                    options,
                    demo_host=demo_host,
                    audio_support=audio_support,
                    first=first,
                )
            )

        self._making = make
        self._first: FirstPane | None = None
        """The first frame's widgets, made before the chat (`AppOptions.draw_first`)."""
        self.held = Held(holding=options.draw_first)
        """What came before the chat was made: done once it is."""
        if options.draw_first:
            self._first = FirstPane.make()
        else:
            make(None)

    def _keep(self, made: Assembled) -> None:
        """Keep what `openwop_tui.ui.assembly.assemble` made."""
        self.tabs, self.lab, self.connection = made.tabs, made.lab, made.connection
        self.recall, self.leaving, self.search_all = made.recall, made.leaving, made.search_all
        self._newest = made.newest
        self._warnings.extend(made.warnings)
        self._made = True

    # ------------------------------------------------------------ what tests and screens read

    @property
    def conversation(self) -> Conversation:
        """The pipeline on screen (no Textual): the fold, the chat history, the event log."""
        return self.chat.conversation

    @property
    def transcript(self) -> Transcript:
        """The fold's items and status (the conversation's)."""
        return self.chat.conversation.transcript

    @property
    def session(self) -> Session | None:
        return self.chat.session

    @property
    def view(self) -> TranscriptView:
        return self.chat.parts.view

    @property
    def status(self) -> StatusLine:
        return self.chat.parts.status

    @property
    def palette(self) -> Palette:
        """The colours of the active theme, for everything drawn as a Rich renderable."""
        return theme_palette.of(self.current_theme)

    # ------------------------------------------------------------ composition

    def compose(self) -> ComposeResult:
        first = self._first
        yield from (first.bar, first.pane) if first is not None else self.tabs.compose()
        # The key table has the palette's binding (moved by [keys] like any other): the
        # footer's own palette entry would name it a second time.
        yield SteadyFooter(show_command_palette=False)

    def _theme_changed(self, theme: Theme) -> None:
        """A theme was chosen (the palette's theme picker, or code): redraw in it, and keep it
        for the next start."""
        # The view redraws itself and asks again for its envelopes, drawn with this palette.
        self.lab.set_palette(theme_palette.of(theme))
        state.remember_theme(theme.name)

    async def on_mount(self) -> None:
        first = self._first
        if first is None:
            await self._opened()
            return
        # The first frame: the keys typed while the program started go in its prompt now (an
        # Enter among them sends once the chat is made: `Held`); the chat is made after it.
        typed, self._typed = self._typed, ""
        if typed:
            first.prompt.type_ahead(typed)
        self.call_after_refresh(self.after_first_frame)

    async def after_first_frame(self) -> None:
        """Make the chat around the first frame's widgets, open it as `on_mount` opens one
        made before, then do what came meanwhile (`openwop_tui.ui.first_frame`)."""
        first, self._first = self._first, None
        with heap.settled_heap():  # (it lives as long as the app: see `_run_app`'s pause)
            self._making(first)
        placed = self.tabs.current.placed
        if placed is not None:
            await placed
        await self._opened()
        self.refresh_bindings()  # the footer: the keys that apply, now that they can be asked
        await self.held.release()

    async def _opened(self) -> None:
        """The chat is on screen: the tabs watched, the signals and the dialogs' footers set,
        its first screen said and drawn, then the host reached (or the recording played)."""
        self.tabs.mounted()
        big_blocks.install()  # (a flood's big passing blocks returned, not left as holes)
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        give_dialogs_footers(self)  # each dialog's footer names its keys, not the chat's
        end_on_signals(self, self.tabs, self._finish, self.leaving.keep_unasked)
        typed, self._typed = self._typed, ""
        newest, self._newest = self._newest, None
        if newest is not None:
            # A long session: its newest runs now, the rest read once they are on screen
            # (`openwop_tui.ui.controllers.reopening`) while the host is reached.
            await self.sessions.reopening.show(
                newest, then=self.runs.after_reading, idle=self.runs.until_idle
            )
        await first_screen(self.chat, self.feed, self._warnings, typed)
        replay = self.chat.replaying
        if replay is not None:
            self.runs.play_recording(replay.path, replay.speed)
            self.call_after_refresh(warming.warm_lint)  # (past the first frame)
        else:
            # After the first frame, not before it: the screen is drawn (the status line says
            # "connecting") while the HTTP client loads and the host, or the embedded one, is
            # reached; nothing on the first screen waits for the host.
            self.call_after_refresh(self.start_connecting)

    def start_connecting(self) -> None:
        """Reach the host in a worker (called once the first frame is drawn: `on_mount`), and
        read what was sent to it before, for ↑."""
        self.run_worker(Deferred(self.connection.connect), group="connect", exclusive=True)
        self.run_worker(Deferred(self.recall.load), group="recall")
        self.search_all.index_in_background()

    async def on_unmount(self) -> None:
        stop_ending_on_signals()
        await self._finish()

    async def _finish(self) -> None:
        """Close what the app holds open: the player, a recording, the connection and store;
        what the store has not taken goes to a journal (`Leaving.keep_unasked`)."""
        if not self._made:
            return  # (stopped before the chat was made: nothing is open)
        self.leaving.keep_unasked()
        self.tabs.close_all()  # (the players, the microphone, the logs)
        await self.connection.close()

    # ------------------------------------------------------------------ messages

    async def on_message_submitted(self, event: MessageSubmitted) -> None:
        if self.held.hold(lambda: self.on_message_submitted(event)):
            return  # (Enter on the first frame: sent once the chat is made)
        text = event.text
        self.run_worker(Deferred(lambda: self.recall.kept(text)), group="recall")  # (↑ later)
        if self.attaching.command(event.text):
            return  # (/attach PATH: attached, nothing sent)
        if self.resend.editing:  # the last message, edited: it replaces its exchange
            await self.resend.send_edited(event.text, self.attaching.take())
            return
        attachments = self.attaching.take()
        reasons = await self.attaching.unreadable(attachments)
        if not reasons:
            await self.runs.submitted(event.text, attachments)
            return

        async def answered(send: bool | None) -> None:
            if send:
                await self.runs.submitted(event.text, attachments)
            else:
                self.on_draft_returned(DraftReturned(event.text, attachments))

        from openwop_tui.ui.screens.send_anyway import SendAnywayScreen  # (on first use)

        self.push_screen(SendAnywayScreen(reasons), answered)

    def on_draft_returned(self, event: DraftReturned) -> None:
        """A message that did not go: back in the prompt and the chips (`Tab.draft_returned`;
        one of a tab's own runs comes as `ChatPane.Said`)."""
        self.tabs.current.draft_returned(event, focus=True)

    async def on_chat_pane_said(self, event: ChatPane.Said) -> None:
        await self.tabs.said(event)  # (answered in the tab that said it, shown or not)

    def on_tab_bar_chosen(self, event: TabBar.Chosen) -> None:
        self.tabs.show(event.index)

    async def on_tab_bar_closed(self, event: TabBar.Closed) -> None:
        await self.tabs.close(event.index)

    def on_tab_bar_moved(self, event: TabBar.Moved) -> None:
        self.tabs.move_to(event.index, event.to)

    def on_files_pasted(self, event: FilesPasted) -> None:
        if not self.held.hold(lambda: self.on_files_pasted(event)):
            self.attaching.pasted(event.paths)

    def on_attachment_chips_removed(self, event: AttachmentChips.Removed) -> None:
        self.attaching.remove(event.index)

    def on_attachment_chips_left(self, _event: AttachmentChips.Left) -> None:
        self.chat.parts.prompt.focus()

    def on_interrupt_answered(self, event: InterruptAnswered) -> None:
        self.run_worker(
            Deferred(lambda: self.interrupts.answer(event.item_id, event.value)),
            group=f"answer-{event.item_id}",
            exclusive=True,
        )

    def on_interrupt_form_closed(self, event: InterruptFormClosed) -> None:
        self.interrupts.closed(event.item_id, event.message)

    async def on_unsaved_screen_chosen(self, event: UnsavedScreen.Chosen) -> None:
        await self.leaving.chosen(event.choice)

    async def on_run_cancel_requested(self, _event: RunCancelRequested) -> None:
        await self.runs.cancel()

    def on_workflow_chosen(self, event: WorkflowChosen) -> None:
        self.runs.use_workflow(event.workflow_id, "picked")

    async def on_session_chosen(self, event: SessionChosen) -> None:
        await self.tabs.open_session(event.session_id)

    def on_session_renamed(self, event: SessionRenamed) -> None:
        self.tabs.session_renamed(event)

    def on_session_deleted(self, event: SessionDeleted) -> None:
        self.tabs.session_deleted(event)

    def on_session_archived(self, event: SessionArchived) -> None:
        self.sessions.archive(event)

    async def on_action_requested(self, event: ActionRequested) -> None:
        await self.item_actions.act(event.item_id, event.action)

    @on(InterruptFormLeft)
    @on(TranscriptLeft)
    def _back_to_prompt(self) -> None:
        self.chat.parts.prompt.focus()

    def on_search_bar_changed(self, event: SearchBar.Changed) -> None:
        self.search.changed(event)

    def on_search_bar_stepped(self, event: SearchBar.Stepped) -> None:
        self.search.stepped(event)

    def on_search_bar_closed(self, _event: SearchBar.Closed) -> None:
        self.search.closed()

    # ------------------------------------------------------------------ actions

    def action_pick_workflow(self) -> None:
        """Choose the workflow each message runs, from the host's list."""
        self.runs.pick_workflow()

    def action_attach(self) -> None:
        """Ask for a run id, then follow that run."""
        self.runs.ask_for_run()

    def action_attach_file(self) -> None:
        """Pick a file for the next message to carry."""
        self.attaching.open_picker()

    def action_focus_attachments(self) -> None:
        """Go to the attachments' chips (when there are any)."""
        from openwop_tui.ui.widgets.chips import AttachmentChips

        chips = self.chat.parts.get(AttachmentChips)
        if chips.attachments:
            chips.focus()
        else:
            self.notify("Nothing is attached to the next message (F12 attaches a file).")

    def action_record_voice(self) -> None:
        """Start recording a voice message, or stop and attach it."""
        self.tabs.record_voice()
        self.refresh_bindings()  # Esc discards it while it records

    def action_discard_queued(self) -> None:
        self.runs.discard_queued()

    def action_save_as(self) -> None:
        """The selected item's file into a folder the user chooses."""
        self.files.save_as_selected()

    async def action_cancel_run(self) -> None:
        """Ask the host to cancel the running run; drop the stream if the host won't answer.
        (Esc's other meanings: `action_cancel_edit`, `action_discard_recording`.)"""
        await self.runs.cancel()

    def action_cancel_edit(self) -> None:
        """Esc while the last message is edited: keep the exchange as it was."""
        self.resend.cancel_edit()

    def action_discard_recording(self) -> None:
        """Esc while a voice message is recorded: discard it."""
        self.recording.discard()
        self.refresh_bindings()

    async def action_quit(self) -> None:
        """Quit; with a run in flight, first ask whether to cancel it or leave it running; with
        entries the store has not taken (a full disk), what to do with them.

        Every way to quit (Ctrl+Q, the command palette) comes here."""
        self.tabs.ask_to_quit(self.leaving.quit)

    def action_scroll_transcript(self, direction: int) -> None:
        """Page the transcript even while the input has focus. Not animated: each frame of
        a scroll animation drew every visible line again, and a page settled after 0.58 s."""
        if direction < 0:
            self.view.scroll_page_up(animate=False)
        else:
            self.view.scroll_page_down(animate=False)

    def on_transcript_end(self, _event: TranscriptEnd) -> None:
        """End in the input with nothing past its cursor: the transcript's end, followed
        again (the transcript's own End)."""
        self.view.action_last()

    def action_enter_transcript(self) -> None:
        self.focus_ring.enter_transcript()

    def action_previous_place(self) -> None:
        self.focus_ring.previous_place()

    def action_next_place(self) -> None:
        self.focus_ring.next_place()

    def action_search(self) -> None:
        self.search.open()

    def action_search_all(self) -> None:
        self.search_all.show()

    def action_lab(self) -> None:
        """The capabilities screen."""
        self.lab.open_lab()

    def action_lab_set(self, switch: str, value: str) -> None:
        """One lab switch: ``lab_set('images', 'none')`` (the palette's commands)."""
        self.lab.switch(switch, value)

    def action_matrix(self) -> None:
        """The selected envelope under each lab profile."""
        self.run_worker(self.lab.open_matrix(), group="matrix")

    def action_help(self) -> None:
        self.chats.open_help(self.log_file)

    def action_settings(self) -> None:
        self.settings.open(self.log_file)

    # ------------------------------------------------- the inspector: timeline, stats, doctor

    def action_toggle_events(self) -> None:
        """The event timeline beside the transcript (F2)."""
        self.timeline.toggle_panel()

    def action_timeline(self) -> None:
        """The event timeline as a screen of its own."""
        self.timeline.open_screen()

    def action_stats(self) -> None:
        self.diagnostics.open_stats()

    def action_doctor(self) -> None:
        self.diagnostics.open_doctor()

    def on_timeline_screen_opened(self, event: TimelineScreenOpened) -> None:
        self.timeline.attach(event.panel)

    def on_timeline_panel_filter_changed(self, event: TimelinePanel.FilterChanged) -> None:
        self.timeline.filter_changed(event.panel, event.text)

    def on_timeline_view_follow_changed(self, event: TimelineView.FollowChanged) -> None:
        self.timeline.follow_changed(event.view)

    def on_timeline_view_opened(self, event: TimelineView.Opened) -> None:
        self.timeline.open_event(event.entry)

    def on_timeline_view_go_to_item(self, event: TimelineView.GoToItem) -> None:
        self.timeline.go_to_item(event.entry)

    def on_item_events_requested(self, event: ItemEventsRequested) -> None:
        self.timeline.show_item(event.item_id)

    # ------------------------------------------------------------------ more actions

    async def action_new_chat(self) -> None:
        """A new chat, in a tab of its own (the others stay open)."""
        await self.tabs.new_tab()

    async def action_close_tab(self) -> None:
        await self.tabs.close()

    def action_next_tab(self, direction: int) -> None:
        self.tabs.step(direction)

    def action_go_to_tab(self, number: int) -> None:
        self.tabs.jump(number)

    def action_move_tab(self, direction: int) -> None:
        self.tabs.move(direction)

    def action_edit_last(self) -> None:
        self.resend.edit()

    async def action_regenerate(self) -> None:
        await self.resend.regenerate()

    def action_rename_chat(self) -> None:
        self.chats.ask_title()

    def action_focus_form(self) -> None:
        self.interrupts.focus_open_form()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that apply only sometimes are hidden from the footer (and left to the key's
        next meaning) when they do not: `FocusController.applies`."""
        return self.focus_ring.applies(action) if hasattr(self, "focus_ring") else True

    def streaming(self) -> bool:
        """A run is going in some tab (`QuietWalks` takes no full pass of the collector then)."""
        return self._made and self.connection.runs_going()

    def action_vim_keys(self, on: bool) -> None:
        """Turn the transcripts' vim-style keys on or off for this run (the palette): every
        tab's, and the tabs opened after."""
        self.tabs.common.config = replace(self.tabs.common.config, vim_keys=on)
        for chat in self.tabs.chats():
            chat.parts.view.set_vim_keys(on)

    def action_toggle_verbose(self) -> None:
        self.view.show_verbose = not self.view.show_verbose

    def action_sessions(self) -> None:
        """The saved sessions: open, rename, delete."""
        self.sessions.show()

    async def action_export(self) -> None:
        """This session as Markdown with its assets, in the download folder."""
        await self.sessions.export()

    def action_record(self) -> None:
        """Start or stop recording the raw stream to an SSE file."""
        self.sessions.toggle_record()

    async def action_clear(self) -> None:
        await self.view.clear()
