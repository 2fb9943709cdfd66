"""Human in the loop in the app: a form for every question a run asks, answered through the
conversation pipeline.

A pending `Interrupt` item gets an `InterruptForm` above the prompt, which takes focus; its answer
goes through `Conversation.answer` (the same call ``run --answer`` makes); the host's verdict goes
back to the form (a 400 keeps it open for another try, 409/410 close it) and the item's changes to
the view. An interrupt answered elsewhere or expired closes its form. A conversation interrupt
gets no form: the prompt says whose turn it is and a typed message is the next turn.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from openwop_tui.core.fold import Added, Change, Updated
from openwop_tui.core.items import Interrupt
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.widgets.interrupt_form import InterruptForm


class InterruptsController:
    """The open question forms of the chat, by interrupt item id."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.forms: dict[str, InterruptForm] = {}

    def _item(self, item_id: str) -> Interrupt | None:
        return next(
            (i for i in self.chat.transcript.items if isinstance(i, Interrupt) and i.id == item_id),
            None,
        )

    async def follow_changes(self, changes: Iterable[Change]) -> None:
        """Open a form for each new pending interrupt; close those settled elsewhere."""
        parts = self.chat.parts
        for change in changes:
            item = change.item
            if not isinstance(item, Interrupt):
                continue
            form = self.forms.get(item.id)
            if item.request is not None and item.request.kind == "conversation":
                # Answered from the prompt, turn by turn: no form.
                parts.prompt.set_conversation(
                    self.chat.conversation.open_conversation() is not None
                )
                continue
            if isinstance(change, Added) and form is None:
                if item.state == "pending" and item.request is not None:
                    form = InterruptForm(item, id=f"form-{item.id}")
                    self.forms[item.id] = form
                    await parts.input_area.mount(form, before=parts.prompt)
            elif isinstance(change, Updated) and form is not None:
                form.sync()  # closes itself once the item is answered, expired or closed

    async def answer(self, item_id: str, value: Any) -> None:
        """Send a form's answer; report the host's verdict in the form and draw the item."""
        item = self._item(item_id)
        form = self.forms.get(item_id)
        if item is None:
            if form is not None:
                form.close("This question is no longer in the transcript.")
            return
        result = await self.chat.conversation.answer(item, value)
        submitted = result.submitted
        if form is not None:
            form.show_outcome(submitted.message, retry=submitted.retry, close=submitted.closes_form)
        await self.chat.parts.view.apply(result.changes)

    async def say(self, item_id: str, text: str) -> None:
        """Send ``text`` as the next turn of the conversation ``item_id`` waits on."""
        item = self._item(item_id)
        if item is None:
            return
        parts = self.chat.parts
        parts.prompt.set_conversation(False)
        result = await self.chat.conversation.say(item, text)
        await parts.view.apply(result.changes)
        parts.view.scroll_end(animate=False)
        if result.submitted.outcome != "answered":
            self.chat.app.notify(
                result.submitted.message, severity="error", timeout=8, markup=False
            )
        parts.prompt.set_conversation(self.chat.conversation.open_conversation() is not None)

    def closed(self, item_id: str, message: str | None) -> None:
        """A form removed itself: forget it, say why, give the prompt its focus back."""
        self.forms.pop(item_id, None)
        if message:
            self.chat.app.notify(message, markup=False)
        self.chat.parts.prompt.focus()

    def has_open_form(self) -> bool:
        """A question form is on screen, waiting for an answer."""
        return any(not form.closing for form in self.forms.values())

    def focus_open_form(self) -> None:
        """From the prompt (F5 / Alt+A, the palette): back into the newest open form, which
        Esc or Shift+Tab left (the app's ``check_action`` offers the key only while one is)."""
        open_forms = [form for form in self.forms.values() if not form.closing]
        if open_forms:
            open_forms[-1].focus_first()

    def drop_all(self) -> None:
        """A new chat replaced the one these forms belong to: remove them, quietly (the
        questions stay in the old chat, unanswered, as the host has them)."""
        for form in list(self.forms.values()):
            form.remove()
        self.forms.clear()

    def close_all(self) -> None:
        """The run ended: forms still open can no longer be answered."""
        for form in list(self.forms.values()):
            form.sync()
