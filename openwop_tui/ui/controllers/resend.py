"""Edit-and-resend and regenerate, for the last message the user sent.

``E`` on the last user item (or the palette's Edit the last message) puts its text back in the
prompt; Enter then sends the edited text *in place of* the last exchange: the exchange leaves the
view and the history the host is sent, and the run starts again with the new text. ``r`` (or
Regenerate the last reply) sends the same message again the same way. Its attachments go with it:
editing puts them back in the chips (where they can be removed or added to), regenerating sends
them again (their bytes from the transcript, `own_media.sent_with`). The transcript and the
stored session keep the replaced exchange, with a line saying it was replaced
(`Conversation.replace_last_exchange`), so a reopened session shows honestly what happened.
Esc while editing keeps the exchange as it was.
"""

from __future__ import annotations

from openwop_tui.core.attachments import Attachment
from openwop_tui.core.fold import UserTurn
from openwop_tui.core.own_media import sent_with
from openwop_tui.ui.controllers.attaching import AttachingController
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.controllers.runs import RunsController


class ResendController:
    """Edits, resends and regenerates the last exchange."""

    def __init__(
        self, chat: Chat, runs: RunsController, feed: Feed, attaching: AttachingController
    ) -> None:
        """Edits and resends on ``chat``.

        Args:
            chat: The chat whose last exchange is edited or sent again.
            runs: Starts the run that replaces it.
            feed: Shows the line that says the exchange was replaced.
            attaching: The chips, where an edited message's attachments go back.
        """
        self.chat = chat
        self.runs = runs
        self.feed = feed
        self.attaching = attaching
        self._editing = False
        self._notice: str | None = None
        """The item id of the line the last replacement showed ("the last message was sent
        again…"), taken off the screen by the next one: one such line, not one per resend."""

    @property
    def editing(self) -> bool:
        """The prompt holds the last message being edited: Enter replaces the exchange."""
        return self._editing

    def editing_now(self, editing: bool) -> None:
        """Whether the last message is being edited, from now on (Esc's meaning follows)."""
        self._editing = editing
        self.chat.app.refresh_bindings()

    def why_not(self) -> str | None:
        """Why the last exchange cannot be replaced now (``None``: it can)."""
        chat = self.chat
        conversation = chat.conversation
        if chat.reading is not None:
            # (Replacing it would fold into, and log before, a session still being read.)
            return "This session's older turns are still being read: try again once they are in."
        if conversation.last_user_turn() is None:
            return "Nothing sent yet: there is no message to edit or regenerate."
        if chat.session is None or chat.session.discovery is None:
            return "Not connected to a host: it cannot be sent again now."
        if self.runs.busy:
            return "A run is in progress: send it again when the run has ended (Esc cancels it)."
        if conversation.open_conversation() is not None:
            return "The run waits for your turn in its conversation: answer that first."
        return None

    def _last(self, item_id: str | None) -> UserTurn | None:
        """The last message, when ``item_id`` (if given) is it; else say why not."""
        turn = self.chat.conversation.last_user_turn()
        if turn is not None and item_id is not None and item_id != turn.id:
            self._refuse("Only your last message can be edited or regenerated.")
            return None
        why = self.why_not()
        if why is not None or turn is None:
            self._refuse(why or "Nothing sent yet.")
            return None
        return turn

    def _carried(self, turn: UserTurn) -> tuple[Attachment, ...] | None:
        """What ``turn`` carried, to send again; ``None`` (and why, said) when the bytes of one
        are not kept (a part sent by ``url`` in a log that kept no copy): nothing is sent half."""
        attachments, missing = sent_with(self.chat.conversation.transcript.items, turn)
        if missing:
            self._refuse(
                f"{', '.join(missing)}: not kept in this session, so your last message cannot "
                "go again with it; attach the file again and send a new message."
            )
            return None
        return attachments

    def _refuse(self, why: str) -> None:
        self.chat.app.notify(why, severity="warning", markup=False)

    def is_last(self, item_id: str) -> bool:
        """Whether ``item_id`` is the last message the user sent (its keys apply)."""
        turn = self.chat.conversation.last_user_turn()
        return turn is not None and turn.id == item_id

    def edit(self, item_id: str | None = None) -> None:
        """Put the last message in the prompt and its attachments in the chips; Enter sends
        them in place of its exchange."""
        turn = self._last(item_id)
        attachments = self._carried(turn) if turn is not None else None
        if turn is None or attachments is None:
            return
        prompt = self.chat.parts.prompt
        prompt.value = turn.text
        self.attaching.take()  # (what was attached for another message is not this one's)
        self.attaching.give_back(attachments)
        prompt.focus()
        self.editing_now(True)
        self.chat.app.notify(
            "Editing your last message: Enter sends it in place of the last exchange; "
            "Esc keeps the exchange.",
            markup=False,
        )

    def forget(self) -> None:
        """A new chat is shown: an edit begun in the old one is not the new one's (its prompt
        text goes with the old chat's draft)."""
        self.editing_now(False)
        self._notice = None

    def cancel_edit(self) -> bool:
        """Esc while editing: the exchange stays; ``True`` if there was an edit to cancel."""
        if not self.editing:
            return False
        self.editing_now(False)
        self.chat.parts.prompt.value = ""
        self.attaching.take()
        self.chat.app.notify("Edit cancelled: the last exchange is kept.", markup=False)
        return True

    async def send_edited(self, text: str, attachments: tuple[Attachment, ...] = ()) -> None:
        """Enter while editing: ``text`` (with ``attachments``) replaces the last exchange."""
        if self.chat.conversation.last_user_turn() is None:
            self.editing_now(False)  # a new chat since: nothing to replace, an ordinary message
            await self.runs.submitted(text, attachments)
            return
        why = self.why_not()
        if why is not None:
            self.chat.parts.prompt.value = text  # kept, to send when it can go
            self.attaching.give_back(attachments)
            self._refuse(why)
            return
        self.editing_now(False)
        await self._resend(text, attachments)

    async def regenerate(self, item_id: str | None = None) -> None:
        """Send the last message again (with its attachments) in place of its exchange."""
        turn = self._last(item_id)
        attachments = self._carried(turn) if turn is not None else None
        if turn is not None and attachments is not None:
            self.editing_now(False)
            await self._resend(turn.text, attachments)

    async def _resend(self, text: str, attachments: tuple[Attachment, ...]) -> None:
        replaced = self.chat.conversation.replace_last_exchange()
        if replaced is None:
            return
        # The line an earlier resend showed goes with the exchange (the session keeps both).
        earlier = (self._notice,) if self._notice is not None else ()
        self.chat.parts.view.drop((*earlier, *replaced.item_ids))
        await self.feed.show([replaced.notice])
        self._notice = replaced.notice.item.id
        self.runs.start_turn(text, attachments)
