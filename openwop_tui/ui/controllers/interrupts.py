"""Human in the loop in the app: a form for every question a run asks, answered through the
conversation pipeline.

Functions of the `openwop_tui.ui.app.ChatApp` they are given (its handlers call these), kept apart
so the app module stays about composition and routing. A pending `Interrupt` item gets an
`InterruptForm` above the prompt, which takes focus; its answer goes through
`Conversation.answer` (the same call ``run --answer`` makes); the host's verdict goes back to the
form (a 400 keeps it open for another try, 409/410 close it) and the item's changes to the view.
An interrupt answered elsewhere or expired closes its form.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from openwop_tui.core.fold import Added, Change, Updated
from openwop_tui.core.items import Interrupt
from openwop_tui.ui.widgets.interrupt_form import InterruptForm
from openwop_tui.ui.widgets.prompt import InputArea, PromptInput

if TYPE_CHECKING:
    from openwop_tui.ui.app import ChatApp


async def follow_changes(app: ChatApp, changes: Iterable[Change]) -> None:
    """Open a form for each new pending interrupt; close those settled elsewhere."""
    for change in changes:
        item = change.item
        if not isinstance(item, Interrupt):
            continue
        form = app.forms.get(item.id)
        if item.request is not None and item.request.kind == "conversation":
            # Answered from the prompt, turn by turn: no form, the prompt says whose turn it is.
            app._part(PromptInput).set_conversation(
                app.conversation.open_conversation() is not None
            )
            continue
        if isinstance(change, Added) and form is None:
            if item.state == "pending" and item.request is not None:
                form = InterruptForm(item, id=f"form-{item.id}")
                app.forms[item.id] = form
                area = app._part(InputArea)
                await area.mount(form, before=app._part(PromptInput))
        elif isinstance(change, Updated) and form is not None:
            form.sync()  # closes itself once the item is answered, expired or closed


async def answer(app: ChatApp, item_id: str, value: Any) -> None:
    """Send a form's answer; report the host's verdict in the form and draw the item."""
    item = next(
        (i for i in app.transcript.items if isinstance(i, Interrupt) and i.id == item_id), None
    )
    form = app.forms.get(item_id)
    if item is None:
        if form is not None:
            form.close("This question is no longer in the transcript.")
        return
    result = await app.conversation.answer(item, value)
    submitted = result.submitted
    if form is not None:
        form.show_outcome(submitted.message, retry=submitted.retry, close=submitted.closes_form)
    await app.view.apply(result.changes)


async def say(app: ChatApp, item_id: str, text: str) -> None:
    """Send ``text`` as the next turn of the conversation ``item_id`` waits on."""
    item = next(
        (i for i in app.transcript.items if isinstance(i, Interrupt) and i.id == item_id), None
    )
    if item is None:
        return
    prompt = app._part(PromptInput)
    prompt.set_conversation(False)
    result = await app.conversation.say(item, text)
    await app.view.apply(result.changes)
    app.view.scroll_end(animate=False)
    if result.submitted.outcome != "answered":
        app.notify(result.submitted.message, severity="error", timeout=8, markup=False)
    prompt.set_conversation(app.conversation.open_conversation() is not None)


def closed(app: ChatApp, item_id: str, message: str | None) -> None:
    """A form removed itself: forget it, say why, give the prompt its focus back."""
    app.forms.pop(item_id, None)
    if message:
        app.notify(message, markup=False)
    app._part(PromptInput).focus()


def close_all(app: ChatApp) -> None:
    """The run ended: forms still open can no longer be answered."""
    for form in list(app.forms.values()):
        form.sync()
