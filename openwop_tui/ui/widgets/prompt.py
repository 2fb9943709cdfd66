"""The message input: a multi-line `TextArea` that remembers what was sent, as a shell does.

Enter sends (the prompt posts `MessageSubmitted` and empties itself); Shift+Enter and Ctrl+J
insert a newline. Ctrl+J is the one that always works: most terminals send Shift+Enter as a plain
Enter unless they speak the kitty keyboard protocol. A paste keeps every line. The prompt grows
with its text up to a few lines (app.tcss), then scrolls.

Up and Down walk through earlier messages only when the cursor is on the first (Up) or last
(Down) visual line; anywhere else they move the cursor, so a long message can be edited. The text
being typed is kept and comes back at the bottom of the history. The placeholder says which keys
do what, and when a run is in progress that a new message will wait for it.

Keys typed before the prompt was first on screen were typed blind, and are taken the same way
wherever they were read (`type_ahead` for those the terminal held while the app started, `_on_key`
for those Textual read before its first frame): text, Enter, Ctrl+J and Backspace as typed, in
order; the keys that move the cursor, the selection or focus (arrows, Home, End, Esc, Tab …)
dropped. Acted on, an Up typed ahead moved the cursor to the start of the line, and "abc", Up,
Esc, "def" came out "defabc". The app's own keys still do what they do: Ctrl+Q typed as the
first frame is painted quits.
"""

from __future__ import annotations

from textual import _time  # the clock Textual stamps events with (`Message.time`)
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key, Paste
from textual.widgets import TextArea

from openwop_tui.core.attachments import complete_path, pasted_paths
from openwop_tui.ui import keys
from openwop_tui.ui.messages import FilesPasted, MessageSubmitted, TranscriptEnd
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.echo import draw_now, keys_waiting
from openwop_tui.ui.widgets.queued import QueuedMessages
from openwop_tui.ui.widgets.recording import RecordingBar

IDLE_PLACEHOLDER = "Message the host — Enter sends, Ctrl+J (or Shift+Enter) adds a line, F1 help"
BUSY_PLACEHOLDER = "A run is in progress — Enter queues a message for after it, Esc cancels it"
READING_PLACEHOLDER = "{reading} — Enter queues a message for when they are in"
READING_SENDS_PLACEHOLDER = "{reading} — Enter sends (the host gets the whole history)"
CARRYING_PLACEHOLDER = (
    "Enter sends {count} (words optional) — Alt+↑ to remove one, F12 attaches more"
)
CONVERSATION_PLACEHOLDER = (
    "Your turn in the conversation — Enter sends it to the same run; “bye” closes it"
)


def _moves() -> frozenset[str]:
    """The keys that move the prompt's cursor or selection (its `TextArea` bindings whose
    action is a ``cursor_`` or ``select_`` one), and Esc and Tab, which move focus: typed
    before the prompt was on screen they would put the text typed blind out of order, so
    they are dropped then (module docstring)."""
    found = {"escape", "tab", "shift+tab"}
    for binding in TextArea.BINDINGS:
        key, action = (binding.key, binding.action) if isinstance(binding, Binding) else binding[:2]
        if action.startswith(("cursor_", "select_")):
            found.update(key.split(","))
    return frozenset(found)


#: Keys dropped when typed ahead (`_moves`).
_MOVES = _moves()
#: What Alt+1…9 arrive as from a terminal without the kitty keyboard protocol.
_ALT_DIGIT_KEYS = frozenset(keys.ALT_DIGITS.values())


class PromptInput(TextArea):
    """Where the user types."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            placeholder=IDLE_PLACEHOLDER,
        )
        self._sent: list[str] = []
        self._position = 0
        """Index into ``_sent``; ``len(_sent)`` is the draft being typed."""
        self._draft = ""
        self._busy = False
        self._reading = ""
        self._reading_sends = False
        self._shown_at: float | None = None
        """When the prompt was first on screen (`_time`); keys read before were typed ahead."""
        self._carrying = 0
        """Attachments the next message carries (it may then be sent without words)."""

    def on_mount(self) -> None:
        if self.app.is_headless:
            self._shown_at = _time.time()  # no screen to wait for, nor a terminal typing ahead
        else:
            self.call_after_refresh(self._first_shown)

    def _first_shown(self) -> None:
        self._shown_at = _time.time()

    @property
    def value(self) -> str:
        """The text in the prompt (the name `Input` uses, kept for callers and tests)."""
        return self.text

    @value.setter
    def value(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def remember(self, text: str) -> None:
        """Record a sent message (consecutive repeats are kept once)."""
        if not self._sent or self._sent[-1] != text:
            self._sent.append(text)
        self._position = len(self._sent)
        self._draft = ""

    def recall(self, earlier: list[str]) -> None:
        """Put ``earlier`` (messages sent before this start, oldest first) before those sent
        since, for ↑; a walk through the history under way starts again at the draft."""
        self._sent = [*earlier, *self._sent]
        self._position = len(self._sent)

    def set_busy(self, busy: bool) -> None:
        """Say in the placeholder whether a run is in progress."""
        self._busy = busy
        self.placeholder = self._resting()

    def set_reading(self, reading: str, *, sends: bool = False) -> None:
        """Say in the placeholder how far a session's older turns are read (``reading``, the
        status line's words), while no run is in progress, and whether Enter sends now
        (``sends``) or queues until they are in; ``""``: they are in."""
        self._reading = reading
        self._reading_sends = sends
        self.placeholder = self._resting()

    def set_attachments(self, count: int) -> None:
        """Say how many attachments the next message carries (Enter then sends without words)."""
        self._carrying = count
        self.placeholder = self._resting()

    def _resting(self) -> str:
        if self._busy:
            return BUSY_PLACEHOLDER
        if self._carrying:
            files = "1 attachment" if self._carrying == 1 else f"{self._carrying} attachments"
            return CARRYING_PLACEHOLDER.format(count=files)
        if self._reading:
            words = READING_SENDS_PLACEHOLDER if self._reading_sends else READING_PLACEHOLDER
            return words.format(reading=self._reading.capitalize())
        return IDLE_PLACEHOLDER

    def set_conversation(self, open_turn: bool) -> None:
        """Say in the placeholder that the run waits for the user's turn of a conversation
        (Enter sends it), or go back to the busy/idle one."""
        self.placeholder = CONVERSATION_PLACEHOLDER if open_turn else self._resting()

    # ------------------------------------------------------------------ keys

    def action_send(self) -> None:
        """Post the text as a `MessageSubmitted`, remember it and empty the prompt.

        Blank text is not a message, unless it carries attachments. Blank lines around the
        text and trailing spaces go; the indentation of the first line stays (it may be code)."""
        text = self.text.strip("\r\n").rstrip()
        if not text.strip() and not self._carrying:
            return
        if not text.strip():
            text = ""
        self.remember(text)
        self.value = ""
        self.post_message(MessageSubmitted(text))

    def action_cursor_line_end(self, select: bool = False) -> None:
        """End (Ctrl+E): the cursor to the end of its line; already at the end of the text,
        with nothing selected and nothing to move past, the transcript's end, followed again
        (`TranscriptEnd`): paged up from here (Page Up pages it from the input), the
        transcript's "new output below ↓ (End)" line is answered from here too."""
        if not select and self.selection.is_empty and self.cursor_location == self.document.end:
            self.post_message(TranscriptEnd())
            return
        super().action_cursor_line_end(select)

    def type_ahead(self, typed: str) -> None:
        """Take keys typed before the app was up (`openwop_tui.devices.typeahead`) as if
        typed here: text inserted, Enter (CR) sends, Ctrl+J (LF) a new line, Backspace
        deletes; other control keys (arrows, Tab …) are dropped, not guessed at."""
        run: list[str] = []

        def flush() -> None:
            if run:
                self.insert("".join(run))
                run.clear()

        for char in typed:
            if char == "\r":
                flush()
                self.action_send()
            elif char == "\n":
                flush()
                self.action_newline()
            elif char in "\x7f\x08":
                flush()
                self.action_delete_left()
            elif char.isprintable():
                run.append(char)
        flush()

    def action_newline(self) -> None:
        """Insert a line break at the cursor (replacing the selection)."""
        self.replace("\n", *self.selection)

    def action_cursor_up(self, select: bool = False) -> None:
        """On the first visual line Up recalls an earlier message; elsewhere it moves up."""
        if not select and self._sent and self._visual_row() == 0:
            self.action_history(-1)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """On the last visual line Down goes to a later message; elsewhere it moves down."""
        last = self.wrapped_document.height - 1
        if not select and self._position < len(self._sent) and self._visual_row() >= last:
            self.action_history(1)
            return
        super().action_cursor_down(select)

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """Alt keys are never typed: a terminal sends Alt+S as ``ESC s``, which Textual reads
        as ``alt+s`` with ``s`` as its character, and the input typed the ``s`` where the app's
        key (search every session) was meant (`_on_key` leaves them to the app's bindings);
        nor are the characters an old terminal's Alt+1…9 arrive as (`keys.ALT_DIGITS`: ``™``
        for Alt+2), the app's tab keys. (A letter a keyboard's Option or AltGr makes, ``ƒ`` or
        ``@``, arrives as itself and is typed.)"""
        if key.startswith("alt+") or key in _ALT_DIGIT_KEYS:
            return False
        return super().check_consume_key(key, character)

    async def _on_key(self, event: Key) -> None:
        """Send and new-line keys are handled here, as each key arrives, in typing order.

        Not as bindings: TextArea takes Enter in its own key handler before bindings are looked
        at, a priority binding runs as the key arrives, ahead of the letters still queued before
        it, and an ordinary binding runs after the key has bubbled up to the app, behind the
        letters typed after it: a fast ``hello⏎world`` would send ``""`` or ``helloworld``. The
        keys are the ``[keys]`` names ``send`` and ``newline`` (`openwop_tui.ui.keys`). A key
        read before the prompt was first shown is taken as typed ahead (module docstring)."""
        # Drawn at once, once TextArea's own handler has typed it (`echo.draw_now`).
        self.call_next(self._echo)
        in_effect = keys.in_effect(self.app)
        typed_ahead = self._shown_at is None or event.time < self._shown_at
        if typed_ahead and event.key in _MOVES:
            # As `type_ahead` takes the keys the terminal held: a move aimed at nothing seen.
            # Any other key goes on: Ctrl+Q typed as the first frame is painted still quits
            # (it was dropped too, and the app went on as if it had not been pressed).
            event.prevent_default()
            event.stop()
        elif event.key in in_effect["send"].split(","):
            event.prevent_default()
            event.stop()
            self.action_send()
        elif event.key in in_effect["newline"].split(","):
            event.prevent_default()
            event.stop()
            self.action_newline()
        elif event.key.startswith("alt+") or event.key in _ALT_DIGIT_KEYS:
            event.prevent_default()  # never typed: the app's key (`check_consume_key`)
        elif event.key == "tab" and self.text.startswith("/attach "):
            event.prevent_default()
            event.stop()
            head, _, partial = self.text.partition(" ")
            self.value = f"{head} {complete_path(partial)}"

    def _echo(self) -> None:
        """The key just typed, on screen at once rather than in the screen's next frame, where
        the prompt keeps its height (a line more or fewer moves what is above it: a layout, left
        to that frame). Keys queued behind it (typed in a burst, typed ahead) are drawn with
        the last of them: one drawing a burst, not one a key."""
        if self.wrapped_document.height == self.content_size.height and not keys_waiting(self):
            draw_now(self)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """PgUp and PgDn pass through to the app, which pages the transcript: the prompt is a
        few lines high and has nothing to page."""
        if action in ("cursor_page_up", "cursor_page_down"):
            return False
        return super().check_action(action, parameters)

    def _visual_row(self) -> int:
        """The cursor's row counted in wrapped lines, so a long soft-wrapped line is not one."""
        return self.wrapped_document.location_to_offset(self.cursor_location).y

    def action_history(self, step: int) -> None:
        """Show the previous (``-1``) or next (``1``) sent message."""
        if not self._sent:
            return
        if self._position == len(self._sent):
            self._draft = self.text
        position = min(max(self._position + step, 0), len(self._sent))
        if position == self._position:
            return
        self._position = position
        self.value = self._draft if position == len(self._sent) else self._sent[position]

    async def _on_paste(self, event: Paste) -> None:
        """Keep every pasted line; Windows and old Mac line ends become newlines (a stray
        carriage return would otherwise be sent to the host inside the text)."""
        event.prevent_default()  # TextArea's own handler would insert the raw text again
        if self.read_only:
            return
        paths = pasted_paths(event.text)
        if paths:
            # What a terminal pastes for files dropped on it: attached, not typed (a local
            # path is not words for the host).
            self.post_message(FilesPasted(paths))
            return
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        result = self.replace(text, *self.selection)
        self.move_cursor(result.end_location)
        self.focus()


class InputArea(Vertical):
    """The bottom of the chat screen: the queued messages' line and the attachments' chips
    above the prompt."""

    def compose(self) -> ComposeResult:
        yield QueuedMessages(id="queued")
        yield AttachmentChips(id="chips")
        yield RecordingBar(id="recording-bar")
        yield PromptInput(id="prompt")
