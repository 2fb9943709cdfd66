"""Search every session: type, and what every stored chat said is found as you type.

The screen knows nothing of the store: it is given a function that searches (a
`~openwop_tui.core.searching.Found` for a query, run in a thread: a large store takes a
moment) and a clock (`ago` says dates relative to it; a test gives a fixed one). Each result is
one message or reply: its session's title, how long ago the session was written, whose words
they are, how many times the query occurs in it, and a line of context with every occurrence
marked. The count above says occurrences over all sessions ("17 in 5 sessions").

Typing searches again after a short pause (`PAUSE`), the newest query winning (an older answer
that comes back late is dropped). ↑/↓ (or PgUp/PgDn) choose from the input, Enter opens the
chosen match: the screen is dismissed with it, and the app opens that session there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from openwop_tui.core.searching import Found, Result
from openwop_tui.store.database import StoreError
from openwop_tui.text.sanitize import clean_own

#: How long typing pauses before the query is searched.
PAUSE = 0.15
HINT = "↑↓ choose · Enter opens the session at the match · Esc closes"
_WHO = {"user": "you", "assistant": "assistant"}
_UNITS = (
    (365 * 86400, "year"),
    (30 * 86400, "month"),
    (7 * 86400, "week"),
    (86400, "day"),
    (3600, "hour"),
    (60, "minute"),
)


def ago(stamp: float, now: float) -> str:
    """How long before ``now`` ``stamp`` was, in words: ``just now``, ``5 minutes ago``,
    ``yesterday``, ``3 days ago``, ``a week ago``… (elapsed time, not the calendar: the same
    whatever the time zone)."""
    seconds = max(0.0, now - stamp)
    if seconds < 60:
        return "just now"
    if 86400 <= seconds < 2 * 86400:
        return "yesterday"
    for size, unit in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            if count == 1:
                return f"{'an' if unit == 'hour' else 'a'} {unit} ago"
            return f"{count} {unit}s ago"
    return "just now"  # (not reached: a minute is the smallest unit above)


def result_text(result: Result, now: float, match: Style, width: int) -> Text:
    """A result's two lines: its session, date and whose words; the context, matches marked.

    Args:
        result: The message or reply found.
        now: The time its date is said against.
        match: The style laid on each occurrence.
        width: The cells each line is cut to (with an ellipsis): a result is two rows.
    """
    said = [ago(result.updated, now), _WHO.get(result.role, result.role)]
    if result.occurrences > 1:
        said.append(f"{result.occurrences} times")
    if result.archived:
        said.append("archived")
    meta = "  " + " · ".join(said)
    # The title gives way first: the date and whose words always show.
    head = Text(result.title or "(untitled)", style="bold")
    head.truncate(max(8, width - len(meta)), overflow="ellipsis")
    head.append(meta, "dim")
    context = result.context
    line = Text("  …" if context.cut_before else "  ", style="dim")
    offset = len(line)
    line.append(context.text)
    for start, end in context.spans:
        line.stylize(match, offset + start, offset + end)
    if context.cut_after:
        line.append("…", "dim")
    for each in (head, line):
        each.truncate(width, overflow="ellipsis")
    return Text("\n").join([head, line])


def count_text(found: Found) -> str:
    """The count over everything found: ``17 in 5 sessions``, ``no match``."""
    if not found.query.strip():
        return "Type to search every stored session."
    if not found.occurrences:
        return f"No match for “{clean_own(found.query)}” in any session."
    more = "+" if found.capped else ""
    sessions = f"{found.sessions} session{'s' if found.sessions != 1 else ''}"
    said = f"{found.occurrences:,}{more} occurrence{'s' if found.occurrences != 1 else ''}"
    return f"{said} in {len(found.results):,} messages of {sessions}"


class SearchAllScreen(ModalScreen[tuple[Result, str] | None]):
    """Search every stored session; dismissed with the chosen result and its query, or
    ``None``."""

    DEFAULT_CSS = """
    SearchAllScreen { align: center middle; }
    SearchAllScreen > Vertical {
        width: 110; max-width: 100%; height: 100%; max-height: 40; margin: 1 2;
        background: $panel; border: round $primary; padding: 0 1;
    }
    SearchAllScreen OptionList { height: 1fr; }
    SearchAllScreen .-muted { color: $text-muted; height: auto; }
    SearchAllScreen #search-all-count { text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_screen", "Close"),
        Binding("down", "move(1)", "Next", show=False, priority=True),
        Binding("up", "move(-1)", "Previous", show=False, priority=True),
        Binding("pagedown", "move(8)", "Page down", show=False, priority=True),
        Binding("pageup", "move(-8)", "Page up", show=False, priority=True),
    ]

    def __init__(
        self,
        searcher: Callable[[str], Found],
        *,
        match: Style,
        now: Callable[[], float] = time.time,
        note: str | None = None,
    ) -> None:
        """A screen that searches with ``searcher`` (called in a thread).

        Args:
            searcher: What a query finds (raises `StoreError` with a sentence).
            match: The style each occurrence is marked with (the palette's ``match``).
            now: The clock dates are said relative to.
            note: A line under the results (sessions still being indexed), or ``None``.
        """
        super().__init__()
        self._searcher, self._match, self._now = searcher, Style.parse(str(match)), now
        self._note = note
        self._found: Found | None = None
        self._timer: Timer | None = None
        self._asked = ""
        self._open_first = False
        """Enter came before the newest query's results: open its first when they come."""

    def compose(self) -> ComposeResult:
        with Vertical() as panel:
            panel.border_title = "Search every session"
            yield Input(placeholder="words from any chat, as you remember them", id="search-all")
            yield Static(
                "Type to search every stored session.", id="search-all-count", markup=False
            )
            yield OptionList(id="search-all-results")
            yield Static(self._note or "", id="search-all-note", classes="-muted", markup=False)
            yield Static(HINT, classes="-muted", markup=False)

    def on_mount(self) -> None:
        self.query_one("#search-all-note", Static).display = bool(self._note)
        self.query_one(OptionList).display = False
        self.query_one(Input).focus()

    @property
    def found(self) -> Found | None:
        """What the newest search found (``None`` before the first)."""
        return self._found

    def on_input_changed(self, event: Input.Changed) -> None:
        """Search again once typing pauses."""
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._asked = event.value
        self._timer = self.set_timer(PAUSE, self._search)

    def _search(self) -> None:
        self._timer = None
        self._run(self._asked)

    @work(thread=True, exclusive=True, group="search-all", exit_on_error=False)
    def _run(self, query: str) -> None:
        try:
            found = self._searcher(query)
        except StoreError as error:
            self.app.call_from_thread(self._failed, query, str(error))
            return
        self.app.call_from_thread(self._show, found)

    def _failed(self, query: str, why: str) -> None:
        if query == self._asked:
            self.query_one("#search-all-count", Static).update(Text(why, style="bold red"))

    def _show(self, found: Found) -> None:
        """Show ``found``, unless the query changed since it was asked."""
        if found.query != self._asked.strip("\n"):
            return
        self._found = found
        now = self._now()
        results = self.query_one(OptionList)
        # The list's width less its padding and scrollbar (the panel's before it is shown).
        width = max(20, self.query_one(Vertical).content_region.width - 4)
        results.clear_options()
        results.add_options(
            Option(result_text(result, now, self._match, width)) for result in found.results
        )
        results.display = bool(found.results)
        if found.results:
            results.highlighted = 0
            if self._open_first:
                self._open(0)
        self._open_first = False
        self.query_one("#search-all-count", Static).update(count_text(found))
        note = found.note or self._note
        widget = self.query_one("#search-all-note", Static)
        widget.update(note or "")
        widget.display = bool(note)

    def on_resize(self) -> None:
        """Cut the results to the new width."""
        if self._found is not None:
            highlighted = self.query_one(OptionList).highlighted
            self._show(self._found)
            if highlighted is not None:
                self.query_one(OptionList).highlighted = highlighted

    def action_move(self, step: int) -> None:
        """Choose another result, from the input (the list never takes the focus)."""
        results = self.query_one(OptionList)
        if not results.option_count:
            return
        current = results.highlighted or 0
        results.highlighted = max(0, min(results.option_count - 1, current + step))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter: open the chosen result."""
        event.stop()
        found, results = self._found, self.query_one(OptionList)
        if self._timer is not None or found is None or found.query != self._asked.strip("\n"):
            self._open_first = True  # (typed faster than the search: its first result)
            return
        if results.highlighted is not None:
            self._open(results.highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a result opens it."""
        event.stop()
        self._open(event.option_index)

    def _open(self, index: int) -> None:
        found = self._found
        if found is not None and 0 <= index < len(found.results):
            self.dismiss((found.results[index], found.query))

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
