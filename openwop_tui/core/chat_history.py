"""The chat history a conversation sends the host: ``inputs.messages`` (protocol.md §5 A).

A user's message joins it once the host accepted the run it started (a send that failed must not
be replayed in the next turn); the assistant's reply is what the transcript fold assembled for
that run (the completion when one came, else the streamed text), so the history and the screen
can never disagree about what was said. Pure: no I/O.

A long session's history outgrows what a host takes in one request (3.6 MB at 3,000 turns), so
`ChatHistory.fitted` sends the newest whole turns that fit: under the host's request limit
(``limits.maxRequestBodyBytes``, measured as the exact body the client sends) and under the
user's own caps (``[chat] history_turns`` / ``history_bytes``), and says how many earlier turns
it left out and why, naming the attachments they carried. A message with attachments is a list
of content parts (`openwop_tui.protocol.content_parts`), kept as sent and sent again whole with
its turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openwop_tui.core.items import Added, AssistantTurn, Change
from openwop_tui.protocol.content_parts import message_content, read_parts, text_of_content
from openwop_tui.text.units import human_size

#: One message of the history: ``{"role", "content"}``, the content a string or a list of parts.
Message = dict[str, Any]


def body_size(value: Any) -> int:
    """Bytes of ``value`` as a request body: JSON the way httpx encodes it (compact, UTF-8)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True, slots=True)
class Fitted:
    """The run inputs for a message, with the history cut to fit."""

    inputs: dict[str, list[Message]]
    left_out: int = 0
    """Earlier turns (a user message and its reply) not sent."""
    why: str = ""
    """What they were left out for, in a few words (the limit that bound)."""
    attachments: tuple[str, ...] = ()
    """The names of the attachments the turns left out carried."""

    @property
    def note(self) -> str | None:
        """The line a transcript shows when turns were left out (``None`` when none were)."""
        if not self.left_out:
            return None
        turns = "turn was" if self.left_out == 1 else "turns were"
        names = self.attachments[:5]
        more = f" and {len(self.attachments) - 5:,} more" if len(self.attachments) > 5 else ""
        carried = f" (with {', '.join(names)}{more})" if names else ""
        return (
            f"{self.left_out:,} earlier {turns}{carried} left out of this request to fit "
            f"{self.why}; the host sees the newest turns only"
        )


class ChatHistory:
    """The messages so far, as the host is sent them."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._turns: list[AssistantTurn] = []
        self._sizes: dict[int, tuple[Message, int]] = {}
        """`body_size` of each message sent, by its ``id`` (with the message, so a new one
        at an old address is measured again): each turn's request measures the whole history
        again, and encoding it again each time made turn 500 cost 8 ms more."""

    def inputs(self, text: str) -> dict[str, list[Message]]:
        """The run inputs for a new user message: the whole history, then the message."""
        return {"messages": [*self.messages, {"role": "user", "content": text}]}

    def fitted(
        self,
        text: str,
        *,
        parts: Sequence[Mapping[str, Any]] = (),
        workflow_id: str = "",
        max_body_bytes: int | None = None,
        max_turns: int | None = None,
        max_history_bytes: int | None = None,
    ) -> Fitted:
        """The run inputs for ``text`` with the newest whole earlier turns that fit every limit
        given.

        The message itself always goes, even alone over a limit: the host's refusal then says so.

        Args:
            text: The new user message.
            parts: Its attachments' content parts (`openwop_tui.core.sending`); none: the
                message is a plain string.
            workflow_id: The workflow the request names; only its length counts, toward the body's
                size.
            max_body_bytes: The most bytes the whole request body (``{"workflowId", "inputs"}``) may
                take: the host's ``limits.maxRequestBodyBytes``; None for no limit.
            max_turns: The most earlier turns sent (the user's ``[chat] history_turns``); None for
                no limit.
            max_history_bytes: The most bytes of earlier messages sent (the user's
                ``[chat] history_bytes``); None for no limit.
        """
        turns = _turns(self.messages)
        new: Message = {"role": "user", "content": message_content(text, parts)}
        body = body_size({"workflowId": workflow_id, "inputs": {"messages": [new]}})
        history = 0
        kept = 0
        why = ""
        for turn in reversed(turns):
            cost = sum(self._size(m) + 1 for m in turn)  # each with its comma
            if max_turns is not None and kept + 1 > max_turns:
                why = f"[chat] history_turns = {max_turns}"
                break
            if max_history_bytes is not None and history + cost > max_history_bytes:
                why = f"[chat] history_bytes = {max_history_bytes:,}"
                break
            if max_body_bytes is not None and body + cost > max_body_bytes:
                why = (
                    f"the host's request limit of {human_size(max_body_bytes)} "
                    "(limits.maxRequestBodyBytes)"
                )
                break
            body += cost
            history += cost
            kept += 1
        sent = [message for turn in turns[len(turns) - kept :] for message in turn]
        if len(self._sizes) > 2 * len(self.messages) + 64:  # (messages that left the history)
            self._sizes.clear()
        left = [m for turn in turns[: len(turns) - kept] for m in turn]
        names = tuple(part.name for m in left for part in read_parts(m.get("content")))
        return Fitted({"messages": [*sent, new]}, len(turns) - kept, why, names)

    def _size(self, message: Message) -> int:
        known = self._sizes.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        size = body_size(message)
        self._sizes[id(message)] = (message, size)
        return size

    def accepted(self, text: str, parts: Sequence[Mapping[str, Any]] = ()) -> None:
        """The host created the run for ``text`` (with its attachments' ``parts``): the
        message joins the history."""
        self.messages.append({"role": "user", "content": message_content(text, parts)})
        self._turns = []

    def retract(self, text: str) -> int:
        """The last exchange is replaced (an edited message sent again, a regenerate): its
        user message ``text`` and the replies after it leave the history, so the host is not
        sent them again; how many messages went (0 when ``text`` never joined it: its run was
        refused). `drop` does the same when a log is read back."""
        end = len(self.messages)
        while end and self.messages[end - 1]["role"] != "user":
            end -= 1
        if not end or text_of_content(self.messages[end - 1]["content"]) != text:
            return 0
        count = len(self.messages) - end + 1
        self.drop(count)
        return count

    def drop(self, count: int) -> None:
        """The last ``count`` messages leave the history (a logged `retract`)."""
        if count > 0:
            del self.messages[-count:]
        self._turns = []

    def saw(self, changes: Iterable[Change]) -> None:
        """Note the replies the fold started during the current run."""
        for change in changes:
            if isinstance(change, Added) and isinstance(change.item, AssistantTurn):
                self._turns.append(change.item)

    def run_ended(self) -> None:
        """The run is over: its reply (every reply turn it had, in order) joins the history."""
        reply = "\n\n".join(turn.full_text for turn in self._turns if turn.full_text)
        self._turns = []
        if reply and self.messages and self.messages[-1]["role"] == "user":
            self.messages.append({"role": "assistant", "content": reply})


def _turns(messages: list[Message]) -> list[list[Message]]:
    """The messages grouped into turns: each user message with the replies that follow it."""
    turns: list[list[Message]] = []
    for message in messages:
        if message.get("role") == "user" or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns
