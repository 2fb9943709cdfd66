"""The chat history a conversation sends the host: ``inputs.messages`` (protocol.md §5 A).

A user's message joins it once the host accepted the run it started (a send that failed must not
be replayed in the next turn); the assistant's reply is what the transcript fold assembled for
that run (the completion when one came, else the streamed text), so the history and the screen
can never disagree about what was said. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from openwop_tui.core.items import Added, AssistantTurn, Change


class ChatHistory:
    """The messages so far, as the host is sent them."""

    def __init__(self) -> None:
        self.messages: list[dict[str, str]] = []
        self._turns: list[AssistantTurn] = []

    def inputs(self, text: str) -> dict[str, list[dict[str, str]]]:
        """The run inputs for a new user message: the whole history, then the message."""
        return {"messages": [*self.messages, {"role": "user", "content": text}]}

    def accepted(self, text: str) -> None:
        """The host created the run for ``text``: the message joins the history."""
        self.messages.append({"role": "user", "content": text})
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
