"""Find in the transcript: the search bar's query, toggles and steps, applied to the view.

The bar (`openwop_tui.ui.widgets.search_bar.SearchBar`) says what was typed or pressed; the view
(`openwop_tui.ui.transcript.view.TranscriptView`) finds and marks the occurrences; this
tells one what the other found ("3 of 17").
"""

from __future__ import annotations

from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.widgets.search_bar import SearchBar

__all__ = ["SearchController"]


class SearchController:
    """Between the search bar and the transcript view; owns no state of its own (the query is
    the view's, what is shown is the bar's)."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    def open(self) -> None:
        self.chat.parts.search.open()

    def changed(self, event: SearchBar.Changed) -> None:
        """A new query or toggle: every occurrence found again, none current yet."""
        view = self.chat.parts.view
        total = view.search(event.query, case=event.case, whole_word=event.whole_word)
        self.chat.parts.search.show_count(0, total, event.query)

    def stepped(self, event: SearchBar.Stepped) -> None:
        """To the next or previous occurrence."""
        view = self.chat.parts.view
        current, total = view.step_match(event.direction)
        self.chat.parts.search.show_count(current, total, view.search_query)

    def closed(self) -> None:
        """The bar closed: the marks go, the prompt has the keys again."""
        self.chat.parts.search.close()
        self.chat.parts.view.end_search()
        self.chat.parts.prompt.focus()
