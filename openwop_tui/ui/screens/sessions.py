"""The sessions screen: saved sessions in a list, to filter, open, rename, archive or delete.

It knows nothing of where sessions are kept: it is given `SessionSummary` rows (a list, or a
callable that returns one, called when the screen opens) and says what the user did with
app-wide messages the app carries out: `SessionChosen` (Enter; the screen closes),
`SessionRenamed` (``r``, a new title typed in a line under the list, Enter), `SessionArchived`
(``a``: put away, or back) and `SessionDeleted` (``d``, then ``y`` to confirm). The list is
updated at once; Esc cancels a rename or a delete under way, else clears the filter, else
closes the screen.

The screen opens with the filter line above the list focused, as pickers do: typing filters the
list at once (by title and host, case folded, every word found), and a first letter that is
also one of the list's keys (``r``, ``a``, ``d``…) is typed, not carried out. Enter there opens
the highlighted session; ↓ goes to the list, whose letters act on the highlighted session (↑ on
its first row, or ``/``, goes back to the filter; another printable key there goes to the filter
too). The highlighted session is kept when it still shows. An archived session is kept whole
but out of the list, until ``v`` shows the archived ones too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from openwop_tui.text.sanitize import HostText, clean_own
from openwop_tui.ui.messages import (
    SessionArchived,
    SessionChosen,
    SessionDeleted,
    SessionRenamed,
)

HINT = (
    "Type to filter · Enter opens · ↓ to the list: r renames · a archives · v shows archived"
    " · d deletes"
)


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What the list shows of one saved session."""

    id: str
    title: HostText
    """Cleaned as the store read it, or as the user typed it (`clean_own`)."""
    updated: datetime
    """When its last event was written (naive means local time)."""
    messages: int
    host: HostText
    """The host it talked to, as shown (no credentials)."""
    archived: bool = False
    """Put away: listed only when the archived ones are shown."""

    def matches(self, words: list[str]) -> bool:
        """Whether every one of ``words`` (case folded) is in its title or host."""
        shown = f"{self.title} {self.host}".casefold()
        return all(word in shown for word in words)


Rows = Sequence[SessionSummary] | Callable[[], Sequence[SessionSummary]]


#: The printable keys the list's bindings take (the others are typed into the filter).
_LETTER_KEYS = frozenset({"r", "a", "v", "d", "y", "n", "slash"})


def when(moment: datetime) -> str:
    """``2025-06-01 14:03`` in local time."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


class SessionsScreen(ModalScreen[str | None]):
    """Pick, rename or delete a saved session; dismissed with the chosen id or ``None``."""

    DEFAULT_CSS = """
    SessionsScreen { align: center middle; }
    SessionsScreen > Vertical {
        width: 110; max-width: 100%; height: auto; max-height: 100%; margin: 1 2;
        background: $panel; border: round $primary; padding: 0 1;
    }
    SessionsScreen DataTable { height: auto; max-height: 20; }
    SessionsScreen #session-filter { margin: 0 0 1 0; }
    SessionsScreen #session-title { display: none; }
    SessionsScreen #session-title.-open { display: block; }
    SessionsScreen #session-note { color: $text-muted; height: auto; }
    SessionsScreen #session-note.-asking { color: $warning; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Close"),
        Binding("r", "rename", "Rename"),
        Binding("a", "archive", "Archive"),
        Binding("v", "show_archived", "Archived"),
        Binding("slash", "filter", "Filter", show=False),
        Binding("d,delete", "delete", "Delete"),
        Binding("y", "confirm(True)", "Yes", show=False),
        Binding("n", "confirm(False)", "No", show=False),
    ]

    def __init__(self, sessions: Rows) -> None:
        super().__init__()
        self._source = sessions
        self._rows: dict[str, SessionSummary] = {}
        self._renaming: str | None = None
        self._deleting: str | None = None
        self._archived = False
        """The archived sessions are listed too."""

    def compose(self) -> ComposeResult:
        with Vertical() as panel:
            panel.border_title = "Sessions"
            yield Input(id="session-filter", placeholder="Type to filter by title or host")
            table: DataTable[Text | str | int] = DataTable(cursor_type="row", zebra_stripes=True)
            yield table
            yield Input(id="session-title", placeholder="New title — Enter keeps it, Esc cancels")
            yield Static(HINT, id="session-note", markup=False)

    def on_mount(self) -> None:
        rows = self._source() if callable(self._source) else self._source
        table = self.query_one(DataTable)
        table.add_column("Title", key="title")
        table.add_column("Updated", key="updated")
        table.add_column("Messages", key="messages")
        table.add_column("Host", key="host")
        self._rows = {row.id: row for row in rows}
        self._fill()
        if not rows:
            self._say("No saved sessions yet. Esc closes.")
            table.focus()
        else:
            self.query_one("#session-filter", Input).focus()  # (typing filters at once)

    def _shown(self) -> list[SessionSummary]:
        """The rows the filter and the archived switch let through, in the store's order."""
        words = self.query_one("#session-filter", Input).value.casefold().split()
        return [
            row
            for row in self._rows.values()
            if (self._archived or not row.archived) and row.matches(words)
        ]

    def _fill(self) -> None:
        """List the rows shown now, the highlighted session kept when it still is."""
        table = self.query_one(DataTable)
        current = self._current()
        table.clear()
        for row in self._shown():
            title = Text(row.title or "(untitled)")
            if row.archived:
                title.append(" (archived)", "italic dim")
            table.add_row(title, when(row.updated), row.messages, Text(row.host), key=row.id)
        if current is not None and current.id in table.rows:
            table.move_cursor(row=table.get_row_index(current.id))

    @property
    def listed(self) -> list[str]:
        """The ids of the sessions listed, in order."""
        table = self.query_one(DataTable)
        return [str(key.value) for key in table.rows]

    def on_input_changed(self, event: Input.Changed) -> None:
        """The filter changed: list what it lets through."""
        if event.input.id != "session-filter":
            return
        event.stop()
        self._fill()
        if self._rows and not self.query_one(DataTable).row_count:
            self._say("No session matches the filter. Esc clears it.")
        elif self._deleting is None and self._renaming is None:
            self._say(HINT)

    def on_key(self, event: events.Key) -> None:
        """A key the list does not take goes to the filter (typing filters); ↓ from the
        filter goes back to the list."""
        table = self.query_one(DataTable)
        field = self.query_one("#session-filter", Input)
        if field.has_focus and event.key == "down":
            event.stop()
            table.focus()
        elif table.has_focus and event.key == "up" and table.cursor_row == 0:
            event.stop()
            field.focus()
        elif table.has_focus and event.is_printable and event.character:
            if event.key in _LETTER_KEYS:
                return  # (the screen's own: rename, archive…)
            if self._renaming is None and self._deleting is None:
                event.stop()
                field.focus()
                field.insert_text_at_cursor(event.character)

    def action_filter(self) -> None:
        """``/``: to the filter line."""
        if self._renaming is None and self._deleting is None:
            self.query_one("#session-filter", Input).focus()

    def action_show_archived(self) -> None:
        """``v``: list the archived sessions too, or not."""
        self._archived = not self._archived
        self._fill()
        shown = "Archived sessions are listed too" if self._archived else "Archived are hidden"
        self._say(f"{shown} (v switches). {HINT}")

    def action_archive(self) -> None:
        """``a``: put the highlighted session away (or, archived, back)."""
        row = self._current()
        if row is None or self._renaming is not None or self._deleting is not None:
            return
        changed = dataclasses.replace(row, archived=not row.archived)
        self._rows[row.id] = changed
        self.post_message(SessionArchived(row.id, changed.archived))
        self._fill()
        title = row.title or "(untitled)"
        if changed.archived:
            self._say(f"Archived “{title}”: kept, out of the list (v shows it). {HINT}")
        else:
            self._say(f"“{title}” is back in the list. {HINT}")

    # ----------------------------------------------------------------- helpers

    def _current(self) -> SessionSummary | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return self._rows.get(key) if key is not None else None

    def _say(self, text: str, *, asking: bool = False) -> None:
        note = self.query_one("#session-note", Static)
        note.set_class(asking, "-asking")
        note.update(Text(text))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``y`` and ``n`` mean something only while a delete is being confirmed."""
        if action == "confirm":
            return self._deleting is not None
        return True

    # ----------------------------------------------------------------- actions

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row: open that session."""
        event.stop()
        session_id = event.row_key.value
        if session_id is None or self._deleting is not None:
            return
        self.app.post_message(SessionChosen(session_id))  # the screen is going away
        self.dismiss(session_id)

    def action_rename(self) -> None:
        """Show the title line, filled with the current title."""
        row = self._current()
        if row is None:
            return
        self._deleting = None
        self._renaming = row.id
        title = self.query_one("#session-title", Input)
        title.value = row.title
        title.add_class("-open")
        title.focus()
        self._say("Type the new title; Enter keeps it, Esc cancels.")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "session-filter":
            table = self.query_one(DataTable)
            if table.row_count and self._deleting is None:
                table.action_select_cursor()  # the highlighted session opens (a picker's Enter)
            return
        session_id = self._renaming
        if session_id is None:
            return
        title = clean_own(" ".join(event.value.split()))  # the user's own
        if not title:
            self._say("A title cannot be empty: type one, or Esc to cancel.", asking=True)
            return
        row = self._rows[session_id]
        self._rows[session_id] = dataclasses.replace(row, title=title)
        self.query_one(DataTable).update_cell(session_id, "title", Text(title))
        self.post_message(SessionRenamed(session_id, title))
        self._end_rename()
        self._say(f"Renamed to “{title}”. {HINT}")

    def _end_rename(self) -> None:
        self._renaming = None
        self.query_one("#session-title", Input).remove_class("-open")
        self.query_one(DataTable).focus()

    def action_delete(self) -> None:
        """Ask before deleting the highlighted session."""
        row = self._current()
        if row is None or self._renaming is not None:
            return
        self._deleting = row.id
        self._say(
            f"Delete “{row.title or '(untitled)'}” and its {row.messages} messages? "
            "It cannot be undone. y deletes · n or Esc keeps it",
            asking=True,
        )
        self.refresh_bindings()

    def action_confirm(self, yes: bool) -> None:
        session_id, self._deleting = self._deleting, None
        self.refresh_bindings()
        if session_id is None:
            return
        if not yes:
            self._say(HINT)
            return
        title = self._rows.pop(session_id).title
        self.query_one(DataTable).remove_row(session_id)
        self.post_message(SessionDeleted(session_id))
        self._say(f"Deleted “{title or '(untitled)'}”. {HINT}")

    def action_back(self) -> None:
        """Esc: cancel a rename or a delete under way, else clear the filter, else close."""
        field = self.query_one("#session-filter", Input)
        if self._renaming is not None:
            self._end_rename()
            self._say(HINT)
        elif self._deleting is not None:
            self.action_confirm(False)
        elif field.value:
            field.value = ""
            field.focus()
        else:
            self.dismiss(None)
