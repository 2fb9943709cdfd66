"""The search bar (Ctrl+F): a query, its match count, Enter / Shift+Enter to step, Esc to close.

It searches nothing itself: it posts what the user typed and asked for (`SearchBar.Changed`,
`SearchBar.Stepped`, `SearchBar.Closed`), the app hands them to the transcript view and shows
the count the view answers with `show_count`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label


class SearchInput(Input):
    """The query field: Shift+Enter steps back (Enter, forward, is `Input.Submitted`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("shift+enter", "step_back", "Previous match", show=False),
        Binding("escape", "close", "Close search", show=False),
    ]

    def action_step_back(self) -> None:
        self.post_message(SearchBar.Stepped(-1))

    def action_close(self) -> None:
        self.post_message(SearchBar.Closed())


class SearchBar(Horizontal):
    """Find in the whole transcript."""

    DEFAULT_CSS = """
    SearchBar { height: 1; display: none; background: $boost; }
    SearchBar.-open { display: block; }
    SearchBar > Label { width: auto; padding: 0 1; color: $text-muted; }
    SearchBar > SearchInput, SearchBar > SearchInput:focus {
        width: 1fr; height: 1; border: none; padding: 0; color: $foreground;
    }
    """
    # ``:focus`` too: Textual's ``Input:focus`` draws a tall border and, being more specific
    # than ``SearchBar > SearchInput`` alone, won; in a one-line bar the border took the only
    # line, so what was typed was invisible.

    @dataclass
    class Changed(Message):
        """The query changed."""

        query: str

    @dataclass
    class Stepped(Message):
        """Go to the next (1) or previous (-1) match."""

        direction: int

    @dataclass
    class Closed(Message):
        """The user closed the search (Esc)."""

    def compose(self) -> ComposeResult:
        yield Label("Find:")
        yield SearchInput(placeholder="text in any item · Enter next · Shift+Enter previous")
        yield Label("", id="search-count")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        """Show the bar and put the cursor in it."""
        self.add_class("-open")
        self.query_one(SearchInput).focus()

    def close(self) -> None:
        self.remove_class("-open")
        self.show_count(0, 0, "")

    def show_count(self, current: int, total: int, query: str) -> None:
        """Say where the user is: "3 of 17", "17 matches", "no match"."""
        label = self.query_one("#search-count", Label)
        if not query:
            label.update("")
        elif total == 0:
            label.update("no match")
        elif current == 0:
            label.update(f"{total} match{'es' if total != 1 else ''}")
        else:
            label.update(f"{current} of {total}")

    @property
    def count_text(self) -> str:
        return str(self.query_one("#search-count", Label).content)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Stepped(1))
