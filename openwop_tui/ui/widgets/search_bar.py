"""The search bar (Ctrl+F): a query, its match count, Enter / Shift+Enter to step, Esc to close.

Two toggles, shown in the bar with their state and key: Alt+C case-sensitive, Alt+W whole words
only (a click on either toggles it too). It searches nothing itself: it posts what the user typed
and asked for (`SearchBar.Changed` with the toggles, `SearchBar.Stepped`, `SearchBar.Closed`),
the app hands them to the transcript view and shows the count the view answers with
`show_count`: occurrences, not items ("3 of 17").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Click
from textual.message import Message
from textual.widgets import Input, Label


class SearchInput(Input):
    """The query field: Shift+Enter steps back (Enter, forward, is `Input.Submitted`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "shift+enter",
            "step_back",
            "Previous match",
            show=False,
            tooltip="the previous match (Enter: the next)",
        ),
        Binding("escape", "close", "Close search", show=False, tooltip="close the search"),
        # Priority: a terminal sends Alt+W with the character w, which the field would type
        # before an ordinary binding is looked at.
        Binding(
            "alt+c",
            "flip('case')",
            "Case",
            show=False,
            priority=True,
            tooltip="case-sensitive or not",
        ),
        Binding(
            "alt+w",
            "flip('whole_word')",
            "Whole words",
            show=False,
            priority=True,
            tooltip="whole words only or not",
        ),
    ]

    def action_step_back(self) -> None:
        self.post_message(SearchBar.Stepped(-1))

    def action_flip(self, name: str) -> None:
        self.post_message(SearchBar.Toggled(name))

    def action_close(self) -> None:
        self.post_message(SearchBar.Closed())


class SearchBar(Horizontal):
    """Find in the whole transcript."""

    DEFAULT_CSS = """
    SearchBar { height: 1; display: none; background: $boost; }
    SearchBar.-open { display: block; }
    SearchBar > Label { width: auto; padding: 0 1; color: $text-muted; }
    SearchBar > Label.toggle { padding: 0 0 0 1; }
    SearchBar > Label.toggle.-on { color: $text-accent; text-style: bold; }
    SearchBar > SearchInput, SearchBar > SearchInput:focus {
        width: 1fr; height: 1; border: none; padding: 0; color: $foreground;
    }
    """
    # ``:focus`` too: Textual's ``Input:focus`` draws a tall border and, being more specific
    # than ``SearchBar > SearchInput`` alone, won; in a one-line bar the border took the only
    # line, so what was typed was invisible.

    @dataclass
    class Changed(Message):
        """The query or a toggle changed."""

        query: str
        case: bool = False
        """Case-sensitive."""
        whole_word: bool = False
        """Whole words only."""

    @dataclass
    class Toggled(Message):
        """A toggle's key was pressed in the query field (``case`` or ``whole_word``)."""

        name: str

    @dataclass
    class Stepped(Message):
        """Go to the next (1) or previous (-1) match."""

        direction: int

    @dataclass
    class Closed(Message):
        """The user closed the search (Esc)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.case = False
        """Case-sensitive (Alt+C)."""
        self.whole_word = False
        """Whole words only (Alt+W)."""

    def compose(self) -> ComposeResult:
        yield Label("Find:")
        yield SearchInput(placeholder="text in any item · Enter next · Shift+Enter previous")
        yield Label("", id="search-count")
        yield Label(self._toggle_text("case"), id="search-case", classes="toggle")
        yield Label(self._toggle_text("whole_word"), id="search-whole_word", classes="toggle")

    def _toggle_text(self, name: str) -> str:
        word, key = {"case": ("case", "Alt+C"), "whole_word": ("word", "Alt+W")}[name]
        return f"{word}: {'on' if getattr(self, name) else 'off'} ({key})"

    @property
    def toggles_text(self) -> str:
        """The toggles as the bar shows them: ``case: on (Alt+C) word: off (Alt+W)``."""
        return " ".join(
            str(self.query_one(f"#search-{name}", Label).content) for name in ("case", "whole_word")
        )

    def toggle(self, name: str) -> None:
        """Turn ``case`` or ``whole_word`` on or off, show it, and search again."""
        setattr(self, name, not getattr(self, name))
        label = self.query_one(f"#search-{name}", Label)
        label.update(self._toggle_text(name))
        label.set_class(getattr(self, name), "-on")
        self._changed()

    def _changed(self) -> None:
        query = self.query_one(SearchInput).value
        self.post_message(self.Changed(query, self.case, self.whole_word))

    def on_search_bar_toggled(self, event: SearchBar.Toggled) -> None:
        event.stop()
        self.toggle(event.name)

    def on_click(self, event: Click) -> None:
        widget = event.widget
        if widget is not None and widget.id in ("search-case", "search-whole_word"):
            event.stop()
            self.toggle(widget.id.removeprefix("search-"))

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        """Show the bar and put the cursor in it."""
        self.add_class("-open")
        self.query_one(SearchInput).focus()

    def show_query(self, query: str) -> None:
        """Show the bar holding ``query`` as found elsewhere (a search everywhere), without
        searching again: the view has found it and made a match current."""
        self.add_class("-open")
        field = self.query_one(SearchInput)
        with field.prevent(Input.Changed):
            field.value = query
        field.focus()

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
        self._changed()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Stepped(1))
