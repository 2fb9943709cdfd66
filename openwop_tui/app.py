"""The chat app: composition and routing.

The app connects a `Session` (network, no Textual) to the widgets: user input starts a run in
an exclusive worker, each event is folded by the pure `Transcript` and the changes drawn by the
`TranscriptView`; envelopes are fetched and rendered off the event loop; envelope buttons are
carried out here (play through the sound card, save, open). Every failure becomes a line in the
transcript and a notification, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult, InvalidThemeError
from textual.binding import BindingType
from textual.notifications import SeverityLevel
from textual.theme import Theme
from textual.widget import Widget
from textual.widgets import Footer

from openwop_tui import (
    actions,
    app_files,
    app_interrupts,
    app_playback,
    app_profile,
    app_runs,
    app_sessions,
    clipboard,
    keys,
    overflow,
    state,
)
from openwop_tui.audio import PlaybackError, probe
from openwop_tui.commands_palette import AppCommands
from openwop_tui.config import Config
from openwop_tui.conversation import (
    Conversation,
    EventArrived,
    EventLog,
    RunStarted,
    StreamNoticed,
    Update,
    stored,
)
from openwop_tui.embed_open import open_embed
from openwop_tui.messages import (
    ActionRequested,
    EnvelopeRenderRequested,
    InterruptAnswered,
    InterruptFormClosed,
    InterruptFormLeft,
    MessageSubmitted,
    RunCancelRequested,
    SessionDeleted,
    SessionRenamed,
    TranscriptLeft,
)
from openwop_tui.palette import Palette
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.record import Recorder
from openwop_tui.redact import Redactor, display_url
from openwop_tui.renderers import Registry, render
from openwop_tui.renderers.base import AudioSupport, Rendered
from openwop_tui.sanitize import clean
from openwop_tui.saving import SaveBudget
from openwop_tui.screens.help import HelpScreen
from openwop_tui.screens.inspect import InspectScreen
from openwop_tui.screens.quit import QuitChoice, QuitScreen
from openwop_tui.session import Session
from openwop_tui.store import Store, StoreError
from openwop_tui.terminal import ImageSupport, app_image_context
from openwop_tui.themes import DEFAULT as DEFAULT_THEME
from openwop_tui.themes import THEMES
from openwop_tui.transcript import (
    Added,
    AssistantTurn,
    Change,
    EnvelopeItem,
    Level,
    Transcript,
    Updated,
)
from openwop_tui.widgets.blocks import FRAGMENT, code_blocks
from openwop_tui.widgets.events_panel import EventsPanel
from openwop_tui.widgets.interrupt_form import InterruptForm
from openwop_tui.widgets.prompt import InputArea, PromptInput
from openwop_tui.widgets.queued import QueuedMessages
from openwop_tui.widgets.search_bar import SearchBar
from openwop_tui.widgets.status import StatusLine
from openwop_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from openwop_tui.demo_host import DemoHost

log = logging.getLogger(__name__)

_W = TypeVar("_W", bound="Widget")

#: How long after an accepted cancel the app waits for the stream's run.cancelled.
CANCEL_GRACE_SECONDS = 5.0


class ChatApp(App[None]):
    """Chat with an OpenWOP host; every envelope drawn."""

    TITLE = "openwop-tui"
    CSS_PATH = "app.tcss"
    AUTO_FOCUS = "#prompt"
    # From the key table, with ids: the config's [keys] moves them (set_keymap in __init__).
    BINDINGS: ClassVar[list[BindingType]] = list(keys.bindings(keys.APP_KEYS))
    COMMANDS = App.COMMANDS | {AppCommands}

    def __init__(
        self,
        config: Config,
        *,
        demo_host: DemoHost | None = None,
        audio_support: AudioSupport | None = None,
        image_support: ImageSupport | None = None,
        log_file: Path | None = None,
        session_id: str | None = None,
        record: Path | None = None,
        replay: tuple[Path, float] | None = None,
        attach: str | None = None,
        save_media: Path | None = None,
    ) -> None:
        """``demo_host`` (not started) replaces the default embedded host when ``config.host``
        is ``None``; tests pass a fast, deterministic one. ``audio_support`` skips the probe.
        ``image_support`` is what ``__main__`` detected before the app started; ``None`` (tests)
        draws images in half-blocks. ``log_file`` is where details of an unexpected error went,
        named in the one sentence the user gets instead of a traceback. ``session_id`` reopens
        a stored session (drawn at once, without the host); ``record`` writes the raw stream to
        an SSE file as it arrives; ``replay`` (``(path, speed)``) plays a recording through the
        app as if live, without any host; ``attach`` follows a run already on the host once
        connected (its history, then live); ``save_media`` is where a replay may write the
        full text of cut replies (a replay writes nothing unasked)."""
        super().__init__()
        self.config = config
        self.set_keymap(config.keymap)
        self.log_file = log_file
        self._parts: dict[type[Widget], Widget] = {}
        """The chat screen's widgets by type, made in `compose` (see `_part`)."""
        self._redact = Redactor([config.api_key])
        """Masks the key (and the demo host's, once started) in every notice and notification."""
        self._replay = replay
        self._overflow_folder: Path | None = save_media or (
            None if replay is not None else actions.download_dir(config.download_dir)
        )
        """Where cut replies are written (`openwop_tui.saving`); ``None``: not at all."""
        self._save_budget = SaveBudget(config.max_saved_bytes)
        self._workflow_settled = False
        """The workflow to chat with is decided (said by the user, or picked from the host)."""
        self._picking = False
        self.forms: dict[str, InterruptForm] = {}
        """The open question forms, by interrupt item id (`openwop_tui.app_interrupts`)."""
        self.save_as_folder: Path | None = None
        """The folder last chosen for "save as…" this session (`openwop_tui.app_files`)."""
        self._attach_to = attach
        self._store_problem: str | None = None
        self.store: Store | None = None
        """Where sessions are kept (``None``: not kept, or a replay)."""
        self.registry = Registry(override=config.renderer_override).load()
        """The renderers (built-ins and plugins, loaded once, here): what draws each display
        value, which get their bytes fetched, which redraw on resize, their actions. What the
        plugins did is in ``registry.notices``, shown at mount."""
        self.conversation = self._open_conversation(session_id, record)
        """The pipeline (no Textual): the fold, the chat history, the event log, the host."""
        self.session: Session | None = None
        self.demo_host = demo_host
        self._audio_support = audio_support
        self.playback = app_playback.Playback(self)
        self._client: HostClient | None = None
        self._image_support = image_support
        self._base_context = app_image_context(image_support, config.images)
        self.profile = app_profile.initial(config, image_support)
        """The degradation lab's switches (`openwop_tui.app_profile`)."""
        self._busy = False
        """A turn is between Enter and the end of its run (set before any await, so a second
        Enter cannot start a second run while the first is still being created)."""
        self._startup_warning: str | None = None
        for theme in THEMES:
            self.register_theme(theme)
        # The config file wins; else the theme last chosen in the app; else the default. A
        # remembered theme that no longer exists (a plugin theme gone) is quietly dropped.
        wanted = config.theme or state.remembered_theme() or DEFAULT_THEME
        try:
            self.theme = wanted
        except InvalidThemeError:
            self.theme = DEFAULT_THEME
            if config.theme:
                names = ", ".join(sorted(self.available_themes))
                self._startup_warning = f"unknown theme {config.theme!r}; available: {names}"
        self._base_context = replace(self._base_context, palette=self.palette)

    def _open_conversation(self, session_id: str | None, record: Path | None) -> Conversation:
        """The conversation this app shows: a stored session (reopened or new), recorded to a
        file if asked. Without a usable store the chat still works, unkept, and says why."""
        config = self.config
        logs: list[EventLog] = []
        if record is not None:
            try:
                logs.append(Recorder(record, secrets=[config.api_key]))
            except OSError as error:
                self._store_problem = f"cannot record to {record}: {error.strerror or error}"
        if self._replay is not None:  # a recording plays; nothing of it is stored again
            return Conversation(limits=config.limits, logs=logs, secrets=self._secrets)
        try:
            store = self.store = Store(secrets=[config.api_key])
            if store.read_only is not None:
                self._store_problem = f"this session is not kept: {store.read_only}"
            return stored(
                store,
                session_id,
                host=display_url(config.host) if config.host else "embedded demo host",
                workflow=config.workflow,
                limits=config.limits,
                secrets=self._secrets,
                logs=logs,
            )
        except StoreError as error:
            self._store_problem = f"this session is not kept: {error}"
            return Conversation(limits=config.limits, logs=logs, secrets=self._secrets)

    @property
    def _secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.config.api_key,) if s)

    @property
    def transcript(self) -> Transcript:
        """The fold's items and status (the conversation's)."""
        return self.conversation.transcript

    # ------------------------------------------------------------ composition

    def compose(self) -> ComposeResult:
        parts: list[Widget] = [
            StatusLine(id="status"),
            EventsPanel(id="events", max_events=self.config.max_events_shown),
            TranscriptView(id="transcript", registry=self.registry),
            SearchBar(id="search"),
        ]
        parts.append(InputArea(id="input-area"))
        self._parts = {type(part): part for part in parts}
        yield from parts
        yield Footer()

    def _part(self, kind: type[_W]) -> _W:
        """A widget of the chat screen, whichever screen is on top, even while the app closes.

        Kept from `compose` rather than queried: ``App.query_one`` searches the active screen,
        so with the quit question or help open it found nothing (and during shutdown there is
        no screen at all), and a run's events arriving then killed the worker drawing them.
        Widgets that are gone ignore what they are given (`TranscriptView.apply`).
        """
        part = self._parts.get(kind)
        if part is None:  # inside one of them (the prompt in the input area): found once
            for parent in list(self._parts.values()):
                found = parent.query(kind)
                if found:
                    part = self._parts[kind] = found.first()
                    break
            else:
                raise LookupError(f"the chat screen has no {kind.__name__}")
        assert isinstance(part, kind)
        return part

    @property
    def view(self) -> TranscriptView:
        return self._part(TranscriptView)

    @property
    def status(self) -> StatusLine:
        return self._part(StatusLine)

    @property
    def palette(self) -> Palette:
        """The colours of the active theme, for everything drawn as a Rich renderable."""
        return Palette.of(self.current_theme)

    def _theme_changed(self, theme: Theme) -> None:
        """A theme was chosen (the palette's theme picker, or code): redraw in it, and keep it
        for the next start."""
        # The view redraws itself and asks again for its envelopes, drawn with this palette.
        self._base_context = replace(self._base_context, palette=Palette.of(theme))
        state.remember_theme(theme.name)

    async def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self._startup_warning:
            await self._notice("warning", self._startup_warning)
        if self._store_problem:
            await self._notice("warning", self._store_problem)
        for notice in self.registry.notices:  # plugins refused, replacing, broken
            await self._notice("warning", notice)
            self.notify(notice, severity="warning", timeout=8, markup=False)
        if self.transcript.items:
            # A reopened session: everything at once, before (and without) the host.
            await self.view.apply([Added(item) for item in self.transcript.items])
            self.view.scroll_end(animate=False)
        if self._replay is not None:
            self.play_recording(*self._replay)
            return
        self.connect()

    @work(exclusive=True, group="run")
    async def follow_run(self, run_id: str) -> None:
        """``--attach RUN_ID`` and the palette's Attach (`openwop_tui.app_runs`)."""
        await app_runs.follow_run(self, run_id)

    @work(exclusive=True, group="workflows")
    async def choose_workflow(self, *, ask: bool = False) -> None:
        """Decide what each message runs from the host's workflows (`openwop_tui.app_runs`)."""
        await app_runs.choose_workflow(self, ask=ask)

    @work(exclusive=True, group="run")
    async def play_recording(self, path: Path, speed: float) -> None:
        """``replay FILE`` through the app (`openwop_tui.app_runs`)."""
        await app_runs.play_recording(self, path, speed)

    def action_pick_workflow(self) -> None:
        """Choose the workflow each message runs, from the host's list."""
        if self.session is None or self.session.discovery is None or self._busy:
            self.notify("Connect first, and wait for the run to end.", severity="warning")
            return
        self.choose_workflow(ask=True)

    def action_attach(self) -> None:
        """Ask for a run id, then follow that run."""
        app_runs.ask_for_run(self)

    def on_interrupt_answered(self, event: InterruptAnswered) -> None:
        self.run_worker(
            app_interrupts.answer(self, event.item_id, event.value),
            group=f"answer-{event.item_id}",
            exclusive=True,
        )

    def on_interrupt_form_closed(self, event: InterruptFormClosed) -> None:
        app_interrupts.closed(self, event.item_id, event.message)

    def on_interrupt_form_left(self, _event: InterruptFormLeft) -> None:
        self._part(PromptInput).focus()

    async def on_run_cancel_requested(self, _event: RunCancelRequested) -> None:
        await self.action_cancel_run()

    async def on_unmount(self) -> None:
        self.playback.close()
        for keep in self.conversation.logs:
            close = getattr(keep, "close", None)
            if close is not None:  # a recording: flushed and closed with the app
                close()
        if self._client is not None:
            await self._client.aclose()
        if self.demo_host is not None and self.config.host is None:
            await asyncio.to_thread(self.demo_host.stop)

    # -------------------------------------------------------------- connecting

    @work(exclusive=True, group="connect")
    async def connect(self) -> None:
        """Start the demo host if needed, then read the host's discovery document."""
        status = self.status
        status.connection = "connecting"
        if self._audio_support is None:
            self._audio_support = (
                await asyncio.to_thread(probe)
                if self.config.audio
                else AudioSupport(False, "audio is off (--no-audio)")
            )
        self._base_context = replace(self._base_context, audio=self._audio_support)
        status.workflow = self.config.workflow
        host, api_key = self.config.host, self.config.api_key
        if host is None:
            try:
                # Imported here: against a real host the demo host (and Pillow's drawing code
                # behind it) is never needed, so start-up does not pay for it.
                from openwop_tui.demo_host import DemoHost

                self.demo_host = self.demo_host or DemoHost(pace=self.config.demo_pace)
                await asyncio.to_thread(self.demo_host.start)
            except OSError as error:
                await self._notice("error", f"could not start the embedded demo host: {error}")
                status.connection = "error"
                return
            host, api_key = self.demo_host.url, self.demo_host.api_key
            self._redact = self._redact.with_secrets(api_key)
            status.host = "embedded demo host"
        else:
            status.host = display_url(host)
        try:
            self._client = HostClient(host, api_key)
        except HostError as error:  # a URL the client cannot use, e.g. a port that is not one
            status.connection = "error"
            await self._notice("error", error.message)
            return
        self.session = Session(
            self._client,
            workflow_id=self.config.workflow,
            max_asset_bytes=self.config.max_asset_bytes,
            stream_modes=self.config.stream_modes,
        )
        self.conversation.session = self.session
        self.conversation.secrets = tuple({*self.conversation.secrets, *secrets_of(api_key)})
        await self._discover()

    async def _discover(self, *, unsent: str | None = None) -> bool:
        """Read the discovery document; say why when the host cannot be reached. ``unsent``: a
        message that was waiting for it, kept on screen (and in the log) above the reason."""
        assert self.session is not None
        try:
            discovery = await self.session.connect()
        except HostError as error:
            self.status.connection = "disconnected"
            if unsent is not None:
                await self._draw([self.conversation.add_user(unsent)])
            await self._notice("error", error.message)
            return False
        self.status.connection = "connected"
        if self._attach_to is not None:
            run_id, self._attach_to = self._attach_to, None
            self.follow_run(run_id)
        elif self.config.host is not None and not self._workflow_settled:
            self._workflow_settled = True
            self.choose_workflow()
        else:
            self.call_later(self._send_queued)
        self.status.protocol = discovery.protocol_version or "?"
        self.status.implementation = discovery.implementation_name or ""
        if self.demo_host is not None and not self.transcript.items:
            await self._notice(
                "info",
                "Connected to the embedded demo host. Try “show me everything”, or ask for an "
                "image, audio, code, a card, a file or json. F1 lists the keys.",
            )
        return True

    # ---------------------------------------------------------------- chatting

    @property
    def queued(self) -> QueuedMessages:
        return self._part(QueuedMessages)

    async def on_message_submitted(self, event: MessageSubmitted) -> None:
        """Send the message now, or queue it (shown above the input) while a run is going or
        the host is not reached yet; `_send_queued` sends it when that ends."""
        talking = self.conversation.open_conversation()
        if talking is not None and not self._picking:
            # The run holds a conversation open: the message is its next turn (RFC 0005).
            self.say_turn(talking.id, event.text)
            return
        if self.session is None or self._busy or self._picking:
            self.queued.add(event.text)
            return
        await self._start_turn(event.text)

    @work(group="turns")
    async def say_turn(self, item_id: str, text: str) -> None:
        """Send one turn of the open conversation; draw the turn and what the host answered."""
        await app_interrupts.say(self, item_id, text)

    async def _start_turn(self, text: str) -> None:
        self._busy = True
        self.view.scroll_end(animate=False)
        self.run_turn(text)

    async def _send_queued(self) -> None:
        """The run ended or the host answered: send the next queued message, if any."""
        if self._busy or self.session is None:
            return
        text = self.queued.take()
        if text is not None:
            await self._start_turn(text)

    def action_discard_queued(self) -> None:
        count = self.queued.clear()
        self.notify(f"discarded {count} queued message{'s' if count != 1 else ''}")

    @work(exclusive=True, group="run")
    async def run_turn(self, text: str) -> None:
        """One user turn: create the run, stream it, fold and draw every event."""
        session = self.session
        assert session is not None
        status = self.status
        prompt = self._part(PromptInput)
        prompt.set_busy(True)
        try:
            if session.discovery is None and not await self._discover(unsent=text):
                return
            async for update in self.conversation.send(text):
                await self._draw([update])
        except HostError as error:
            status.run_status = "error"
            await self._notice("error", error.message)
        except Exception as error:  # the user sees a sentence, the log keeps the traceback
            if not self.is_running:
                # The app is closing (its widgets are going away under the stream): not an error.
                return
            log.exception("run failed unexpectedly")
            status.run_status = "error"
            await self._notice("error", f"unexpected error: {type(error).__name__}: {error}")
        finally:
            try:
                await self._run_ended(prompt)
            except Exception:
                if self.is_running:
                    raise
                # Textual removes the widgets before it cancels the workers: a run that ends
                # while the app closes finds nothing to draw into, which is not an error.

    async def _draw(self, updates: Iterable[Update]) -> None:
        """Show what the conversation says changed: items in the view, events in the panel,
        run state in the status line."""
        status = self.status
        changes: list[Change] = []
        for update in updates:
            if isinstance(update, Added | Updated):
                changes.append(update)
                continue
            if changes:
                await self._show_changes(changes)
                changes = []
            if isinstance(update, RunStarted):
                status.run_id = update.run_id
                status.run_status = update.status or "running"
                status.connection = "streaming"
            elif isinstance(update, EventArrived):
                self._part(EventsPanel).add_event(update.event)
            elif isinstance(update, StreamNoticed):
                message = update.notice.message
                self._part(EventsPanel).add_note(message)
                if "reconnect" in message.lower():
                    status.connection = "reconnecting"
                if update.notice.level == "error":
                    self.notify(message, severity="error", timeout=8, markup=False)
        if changes:
            await self._show_changes(changes)
        if self.transcript.status:
            status.run_status = self.transcript.status

    async def _show_changes(self, changes: list[Change]) -> None:
        await self._keep_overflow(changes)
        await self.view.apply(changes)
        await app_interrupts.follow_changes(self, changes)

    async def _run_ended(self, prompt: PromptInput) -> None:
        """Whatever ended the stream, nothing still open will change any more; then the next
        queued message goes."""
        await self._draw(self.conversation.settle())
        closed = self.transcript.close_open()
        await self._show_changes(closed)
        app_interrupts.close_all(self)
        self._busy = False
        prompt.set_busy(False)
        if self.status.connection in ("streaming", "reconnecting"):
            self.status.connection = "connected"
        self.call_later(self._send_queued)

    async def _keep_overflow(self, changes: list[Change]) -> None:
        """Write the full text of items that were cut and just became final, before they are
        drawn, so their marker shows where it went (`openwop_tui.overflow`)."""
        folder = self._overflow_folder
        for change in changes:
            item = change.item
            if folder is None or not overflow.needs_saving(item):
                continue
            try:
                await asyncio.to_thread(
                    overflow.save, item, folder, self._save_budget, self._redact
                )
            except actions.ActionError as error:
                await self._notice("error", f"the cut part of {item.id} was not saved: {error}")

    async def _notice(self, level: Level, text: str) -> None:
        text = self._redact(clean(text))
        await self.view.apply([self.conversation.notice(level, text)])
        if level == "error":
            self.notify(text, severity="error", timeout=8, markup=False)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is cleaned and has its secrets masked, whoever raised it."""
        super().notify(
            self._redact(clean(message)),
            title=self._redact(clean(title)),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def _handle_exception(self, error: Exception) -> None:
        """Textual calls this for an exception that escaped a handler, a worker or a render.

        Its default prints a traceback with local variables when the app exits, and the API
        key is among them. The widget whose handler failed has stopped processing messages, so
        the app cannot carry on safely: it exits with one sentence naming the log file, where
        the details are (secrets masked). Pilot still re-raises the error in tests.
        """
        log.error("unexpected error in the app", exc_info=error)
        self._return_code = 1
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        where = f" Details are in {self.log_file}." if self.log_file else ""
        self.panic(
            Text(
                f"openwop-tui stopped after an unexpected error ({type(error).__name__}).{where}",
                style="bold red",
            )
        )

    def on_envelope_render_requested(self, event: EnvelopeRenderRequested) -> None:
        """Draw an envelope the view needs, in a worker of its own: a newer request (a resize,
        a later fragment) replaces one still running, so the last one wins."""
        block = self.view.block_for(event.item_id)
        if block is None or not isinstance(block.item, EnvelopeItem):
            return
        self.run_worker(
            self._render(block.item, event.width), group=f"render-{event.item_id}", exclusive=True
        )

    async def _render(self, item: EnvelopeItem, width: int) -> None:
        """Render the item's envelope and hand the result to the view."""
        envelope = item.envelope
        rendered = await self._rendered(envelope, width)
        self.view.set_rendered(item.id, rendered, envelope=envelope, width=width)

    async def _rendered(self, envelope: Envelope, width: int) -> Rendered:
        """Fetch the envelope's asset, then run its renderer in a thread."""
        # Under the lab's profile; stored bytes first (a reopened session draws without its
        # host), then the host; the app's registry says which envelopes carry bytes.
        context = await app_profile.context_for(self, envelope, width)
        rendered = await asyncio.to_thread(render, envelope, context, self.registry)
        if envelope.partial:
            # Rule E1: a fragment may be drawn, but nothing may be done with it until the
            # emission is complete.
            rendered = replace(rendered, actions=(), title=f"{rendered.title} · {FRAGMENT}")
        return rendered

    # ----------------------------------------------------------------- actions

    async def on_action_requested(self, event: ActionRequested) -> None:
        """Carry out an action the user asked for on a transcript item."""
        block = self.view.block_for(event.item_id)
        if block is None:
            return
        item, name = block.item, event.action
        if name == "matrix":
            self.run_worker(app_profile.open_matrix(self, item.id), group="matrix")
            return
        if not isinstance(item, EnvelopeItem):
            text = block.copy_text()
            if name == "copy-code":
                found = code_blocks(item.text) if isinstance(item, AssistantTurn) else []
                if not found:
                    self.notify("no code block in this item", severity="warning")
                    return
                text = found[-1]
            self.copy_to_clipboard(text)
            self.notify("copied to the clipboard")
            return
        rendered = block.rendered
        if rendered is None:
            return
        if name == "inspect":
            self.push_screen(InspectScreen(item.envelope, rendered))
            return
        try:
            if name in app_playback.CONTROLS:
                await self.playback.act(item, name, rendered)
            elif name == "open" and rendered.renderer == "embed":
                message = await asyncio.to_thread(open_embed, rendered)
                self.notify(clean(message), markup=False)
            elif name in app_files.NAMES:
                await app_files.carry_out(self, name, rendered)
            elif name == "copy":
                # What the renderer kept is what was shown: code as sent, the full JSON.
                data = rendered.data
                text = (
                    data.decode("utf-8", "replace")
                    if data is not None
                    else item.envelope.text or ""
                )
                folder = actions.download_dir(self.config.download_dir)
                outcome = await clipboard.copy_text(self, text, folder, what="the text")
                self.notify(outcome.message, severity=outcome.severity, markup=False)
            else:  # a renderer's own action (a plugin's): its handler says what it did
                message = await asyncio.to_thread(
                    self.registry.run_action, rendered.renderer, name, item.envelope, rendered
                )
                self.notify(message, markup=False)
        except (actions.ActionError, PlaybackError) as error:
            self.notify(clean(str(error)), severity="error", timeout=8, markup=False)

    def action_save_as(self) -> None:
        """The selected item's file into a folder the user chooses (`openwop_tui.app_files`)."""
        app_files.save_as_selected(self)

    # ---------------------------------------------------------------- bindings

    async def action_cancel_run(self) -> None:
        """Ask the host to cancel the running run; drop the stream if the host won't answer."""
        session = self.session
        if session is None or session.current_run is None:
            self.notify("No run to cancel.")
            return
        self.status.run_status = "cancelling"
        run = session.current_run
        try:
            await session.cancel()
        except HostError as error:
            await self._notice("warning", f"the host did not accept the cancel: {error.message}")
            self._stop_listening()
            return

        async def give_up() -> None:
            # The host said yes but its stream never said run.cancelled (a dead connection
            # would otherwise keep the prompt busy for ever).
            if self.session is not None and self.session.current_run is run:
                await self._notice(
                    "warning",
                    f"the host accepted the cancel, but the run's stream did not end within "
                    f"{CANCEL_GRACE_SECONDS:g} s: stopped listening",
                )
                self._stop_listening()

        self.set_timer(CANCEL_GRACE_SECONDS, give_up)

    def _stop_listening(self) -> None:
        self.workers.cancel_group(self, "run")
        self.status.run_status = "cancelled (locally)"

    async def action_quit(self) -> None:
        """Quit; with a run in flight, first ask whether to cancel it or leave it running.

        Every way to quit (Ctrl+Q, the command palette) comes here."""
        session = self.session
        run = session.current_run if session is not None else None
        if run is None:
            self.exit()
            return
        if isinstance(self.screen, QuitScreen):
            return  # already asking
        self.push_screen(QuitScreen(run.run_id), self._quit_with)

    async def _quit_with(self, choice: QuitChoice | None) -> None:
        session = self.session
        run = session.current_run if session is not None else None
        if choice == "stay" or choice is None:
            return
        if run is None or session is None:  # the run ended while the dialog was open
            self.exit()
            return
        shown = clean(run.run_id)
        if choice == "leave":
            self.exit(message=f"openwop-tui: left run {shown} running on the host")
            return
        self.status.run_status = "cancelling"
        try:
            await asyncio.wait_for(session.cancel(), CANCEL_GRACE_SECONDS)
        except HostError as error:
            self.exit(message=f"openwop-tui: could not cancel run {shown}: {clean(error.message)}")
            return
        except TimeoutError:
            self.exit(
                message=f"openwop-tui: the host did not answer the cancel of run {shown} within "
                f"{CANCEL_GRACE_SECONDS:g} s: it may still be running"
            )
            return
        self.exit(message=f"openwop-tui: cancelled run {shown} on the host")

    def action_scroll_transcript(self, direction: int) -> None:
        """Page the transcript even while the input has focus."""
        if direction < 0:
            self.view.scroll_page_up()
        else:
            self.view.scroll_page_down()

    def action_enter_transcript(self) -> None:
        """From the input, select the newest item in the transcript; elsewhere Shift+Tab keeps
        its usual meaning (focus the previous widget)."""
        if isinstance(self.focused, PromptInput) or self.focused is None:
            self.view.focus()
            self.view.select_last()
        else:
            self.screen.focus_previous()

    def on_transcript_left(self, _event: TranscriptLeft) -> None:
        self._part(PromptInput).focus()

    def action_search(self) -> None:
        self._part(SearchBar).open()

    def on_search_bar_changed(self, event: SearchBar.Changed) -> None:
        total = self.view.search(event.query)
        self._part(SearchBar).show_count(0, total, event.query)

    def on_search_bar_stepped(self, event: SearchBar.Stepped) -> None:
        bar = self._part(SearchBar)
        current, total = self.view.step_match(event.direction)
        bar.show_count(current, total, self.view.search_query)

    def on_search_bar_closed(self, _event: SearchBar.Closed) -> None:
        self._part(SearchBar).close()
        self.view.end_search()
        self._part(PromptInput).focus()

    # ------------------------------------------------------- the degradation lab

    def action_lab(self) -> None:
        """The capabilities screen (`openwop_tui.app_profile`)."""
        app_profile.open_lab(self)

    def action_lab_set(self, switch: str, value: str) -> None:
        """One lab switch: ``lab_set('images', 'none')`` (the palette's commands)."""
        app_profile.switch(self, switch, value)

    def action_matrix(self) -> None:
        """The selected envelope under each lab profile."""
        self.run_worker(app_profile.open_matrix(self), group="matrix")

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_toggle_events(self) -> None:
        self._part(EventsPanel).toggle_class("-visible")

    def action_toggle_verbose(self) -> None:
        self.view.show_verbose = not self.view.show_verbose

    def action_sessions(self) -> None:
        """The saved sessions: open, rename, delete (`openwop_tui.app_sessions`)."""
        app_sessions.show_sessions(self)

    def on_session_renamed(self, event: SessionRenamed) -> None:
        app_sessions.rename(self, event)

    def on_session_deleted(self, event: SessionDeleted) -> None:
        app_sessions.delete(self, event)

    async def action_export(self) -> None:
        """This session as Markdown with its assets, in the download folder."""
        await app_sessions.export(self)

    def action_record(self) -> None:
        """Start or stop recording the raw stream to an SSE file."""
        app_sessions.toggle_record(self)

    async def action_clear(self) -> None:
        await self.view.clear()
