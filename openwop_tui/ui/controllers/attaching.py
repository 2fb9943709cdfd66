"""The attachments the next message carries: added, shown as chips, removed, sent, given back.

A file comes in four ways: the picker (the ``attach_file`` key, F12 or Alt+U, or the
palette's "Attach a file"), ``/attach PATH`` typed in the prompt (Tab completes the path), a
paste that is nothing but file paths (what a terminal pastes for files dropped on it), and a
recorded clip (F11 or Alt+R). Each is
checked as it comes (`openwop_tui.core.attachments`): a refusal is a notification naming the
file and why, and what was attached before stays. The chips above the prompt show them, with a
mark on one the host's model cannot read (`openwop_tui.core.sending.unreadable`); the send
takes them all (`take`) and, when the host cannot take one, the runs controller gives the
message back (`give_back`): the draft and every attachment return, nothing was sent half.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from openwop_tui.core.attachments import Attachment, AttachmentError, read_attachment
from openwop_tui.core.sending import NEEDS, unreadable
from openwop_tui.protocol.catalog import workflow_reads
from openwop_tui.text.sanitize import clean_own
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import PromptInput

__all__ = ["ATTACH_COMMAND", "MAX_PENDING", "AttachingController"]

#: What typed at the start of the prompt attaches a file instead of sending a message.
ATTACH_COMMAND = "/attach"
#: The most attachments one message carries (the chips stay one row on a wide screen).
MAX_PENDING = 8


class AttachingController:
    """Owns the pending attachments of the chat on screen."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self._pending: list[Attachment] = []
        self._reads: dict[str, tuple[str, ...] | None] = {}
        """What each workflow's model reads, as its definition said (``None``: it did not)."""

    @property
    def pending(self) -> tuple[Attachment, ...]:
        return tuple(self._pending)

    # ------------------------------------------------------------------ adding

    def add_path(self, path: str | Path) -> bool:
        """Attach the file at ``path``; a refusal is said (``False``)."""
        try:
            attachment = read_attachment(path)
        except AttachmentError as error:
            self.chat.app.notify(str(error), severity="error", markup=False, timeout=8)
            return False
        return self.add(attachment)

    def add(self, attachment: Attachment) -> bool:
        """Attach ``attachment`` (checked already); ``False`` when it cannot be (said)."""
        name = clean_own(attachment.name)
        if len(self._pending) >= MAX_PENDING:
            self.chat.app.notify(
                f"{name} was not attached: a message carries at most {MAX_PENDING} files",
                severity="warning",
                markup=False,
            )
            return False
        if any(a.name == attachment.name and a.data == attachment.data for a in self._pending):
            self.chat.app.notify(f"{name} is attached already", markup=False)
            return False
        self._pending.append(attachment)
        self._show()
        mark = self._mark(attachment)
        said = f"attached {clean_own(attachment.describe())}" + (f" · ⚠ {mark}" if mark else "")
        self.chat.app.notify(said, markup=False)
        return True

    def pasted(self, paths: Sequence[Path]) -> None:
        """A paste named these files: attach each (the paste is not typed in)."""
        added = [path for path in paths if self.add_path(path)]
        if added:
            self.chat.app.notify(
                "the pasted path was attached, not typed: remove its chip (Del) and type it "
                "to send the path as text",
                markup=False,
                timeout=6,
            )

    def command(self, text: str) -> bool:
        """``/attach PATH`` (attach it) or ``/attach`` (the picker) typed as the message:
        ``True`` when ``text`` was that command (nothing is sent)."""
        head, _, rest = text.partition(" ")
        if head != ATTACH_COMMAND:
            return False
        if rest.strip():
            self.add_path(rest.strip())
        else:
            self.open_picker()
        return True

    def open_picker(self, start: Path | None = None) -> None:
        """The file picker: the tree of ``start`` (the working folder), narrowed by typing."""
        from openwop_tui.ui.screens.attach_picker import AttachPicker

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.add_path(path)

        self.chat.app.push_screen(AttachPicker(start), chosen)

    # ------------------------------------------------------------ removing, sending

    def remove(self, index: int) -> None:
        """Take the chip at ``index`` off (the chips' Delete)."""
        if 0 <= index < len(self._pending):
            gone = self._pending.pop(index)
            self._show()
            self.chat.app.notify(f"removed {clean_own(gone.name)}", markup=False)

    def take(self) -> tuple[Attachment, ...]:
        """Everything attached, for the message being sent (the chips empty)."""
        taken, self._pending = tuple(self._pending), []
        self._show()
        return taken

    def give_back(self, attachments: Sequence[Attachment]) -> None:
        """A message that did not go: its attachments are pending again, before any attached
        since."""
        self._pending[:0] = [a for a in attachments if a not in self._pending]
        self._show()

    async def unreadable(self, attachments: Sequence[Attachment]) -> list[str]:
        """What the model of the workflow messages run cannot read of ``attachments``: the
        workflow's own word when its definition gives one (asked once a workflow), else the
        host's discovery document; nothing while the host is not known yet."""
        session, client = self.chat.session, self.chat.client
        if attachments and session is not None and client is not None:
            workflow = session.workflow_id
            if workflow not in self._reads:
                self._reads[workflow] = await workflow_reads(client, workflow)
        capabilities = self._capabilities()
        return [] if capabilities is None else unreadable(attachments, capabilities)

    def refresh_marks(self) -> None:
        """The host changed (connected, another one): mark the chips again."""
        self._show()

    # ------------------------------------------------------------------ showing

    def _capabilities(self) -> tuple[str, ...] | None:
        """What the model reads: the workflow's word when known, else the host's."""
        session = self.chat.session
        discovery = session.discovery if session is not None else None
        if session is None or discovery is None:
            return None
        reads = self._reads.get(session.workflow_id)
        return reads if reads is not None else discovery.model_capabilities

    def _mark(self, attachment: Attachment) -> str | None:
        capabilities = self._capabilities()
        needed = NEEDS.get(attachment.kind)
        if capabilities is None or needed is None or needed in capabilities:
            return None
        return f"no {needed}"

    def _show(self) -> None:
        parts = self.chat.parts
        parts.get(AttachmentChips).show(self._pending, [self._mark(a) for a in self._pending])
        parts.get(PromptInput).set_attachments(len(self._pending))
