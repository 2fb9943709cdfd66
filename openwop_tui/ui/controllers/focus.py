"""Which of the app's keys apply now, and the focus ring the keys move through.

The footer lists only what works where the focus is: Textual asks the app's ``check_action``
for each of its bindings, and an action this says does not apply is hidden from the footer and
left to the next binding of the same key. So Esc names what it does there: "Cancel run" only
while a run is live, "Keep exchange" while the last message is edited, "Discard recording"
while a voice message is recorded, and nothing when it would do nothing
(`openwop_tui.keymap.ALSO_RUNS`).

The places a person moves between are the screen's focus chain (the events panel's filter and
rows when shown, the transcript, the attachments' chips when there are some, the input), a
ring: Tab goes forward, Shift+Tab back, the same way from every place, so pressing Shift+Tab
twice with more than two places never lands where it began. Going back from the input into
the transcript selects its newest item, as entering it always did.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ScreenStackError

from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.controllers.resend import ResendController
from openwop_tui.ui.controllers.runs import RunsController


class FocusController:
    """The app's keys in force, and the moves around the focus ring."""

    def __init__(
        self,
        chat: Chat,
        runs: RunsController,
        resend: ResendController,
        interrupts: InterruptsController,
        *,
        recording: Callable[[], bool],
    ) -> None:
        """Answers for the app's keys, in one tab.

        Args:
            chat: The tab's chat and its parts (the transcript, the input).
            runs: Whether a run is live (Esc cancels it).
            resend: Whether the last message is being edited (Esc keeps the exchange).
            interrupts: Whether a question's form is open (F5 goes back to it).
            recording: Whether a voice message is being recorded (Esc discards it).
        """
        self.chat = chat
        self.runs = runs
        self.resend = resend
        self.interrupts = interrupts
        self.recording = recording

    def applies(self, action: str) -> bool:
        """Whether the app's ``action`` does something now (else it is not offered, and its
        key is left to the next meaning: `openwop_tui.keymap.ALSO_RUNS`)."""
        if action == "focus_form":
            return self.interrupts.has_open_form()
        if action == "discard_recording":
            return self.recording()
        if action == "cancel_run":
            return self.runs.busy and not self.recording()
        if action == "cancel_edit":
            return self.resend.editing and not self.runs.busy and not self.recording()
        if action == "enter_transcript":
            # On the chat screen only: under a dialog the transcript is not where keys go.
            view = self.chat.parts.view
            try:
                return view.is_attached and view.screen is self.chat.app.screen
            except ScreenStackError:
                return False  # (the app is closing: no screen, nowhere to go)
        return True

    def enter_transcript(self) -> None:
        """Into the transcript, at its newest item (Ctrl+↑ from anywhere on the chat screen)."""
        view = self.chat.parts.view
        view.focus()
        view.select_last()

    def previous_place(self) -> None:
        """Shift+Tab: the previous place of the ring; from the input that is the transcript
        (unless the attachments are between them), entered at its newest item."""
        screen = self.chat.app.screen
        chain = screen.focus_chain
        focused = screen.focused
        view = self.chat.parts.view
        if focused is self.chat.parts.prompt and focused in chain:
            before = chain[chain.index(focused) - 1]
            if before is view:
                self.enter_transcript()
                return
        screen.focus_previous()

    def next_place(self) -> None:
        """Tab: the next place of the ring."""
        self.chat.app.screen.focus_next()
