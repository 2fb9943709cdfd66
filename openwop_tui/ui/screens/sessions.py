"""The sessions screen: saved sessions in a list, to open, rename or delete.

It knows nothing of where sessions are kept: it is given `SessionSummary` rows (a list, or a
callable that returns one, called when the screen opens) and says what the user did with
app-wide messages the app carries out: `SessionChosen` (Enter; the screen closes),
`SessionRenamed` (``r``, a new title typed in a line under the list, Enter) and `SessionDeleted`
(``d``, then ``y`` to confirm). The list is updated at once for a rename or a delete; Esc cancels a
rename or a delete under way, else closes the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from openwop_tui.text.sanitize import HostText, clean_own
from openwop_tui.ui.messages import SessionChosen, SessionDeleted, SessionRenamed

HINT = "Enter opens · r renames · d deletes · Esc closes"


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


Rows = Sequence[SessionSummary] | Callable[[], Sequence[SessionSummary]]


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
    SessionsScreen #session-title { display: none; }
    SessionsScreen #session-title.-open { display: block; }
    SessionsScreen #session-note { color: $text-muted; height: auto; }
    SessionsScreen #session-note.-asking { color: $warning; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Close"),
        Binding("r", "rename", "Rename"),
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

    def compose(self) -> ComposeResult:
        with Vertical() as panel:
            panel.border_title = "Sessions"
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
        for row in rows:
            self._rows[row.id] = row
            table.add_row(
                Text(row.title or "(untitled)"),
                when(row.updated),
                row.messages,
                Text(row.host),
                key=row.id,
            )
        if not rows:
            self._say("No saved sessions yet. Esc closes.")
        table.focus()

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
        session_id = self._renaming
        if session_id is None:
            return
        title = clean_own(" ".join(event.value.split()))  # the user's own
        if not title:
            self._say("A title cannot be empty: type one, or Esc to cancel.", asking=True)
            return
        row = self._rows[session_id]
        self._rows[session_id] = SessionSummary(row.id, title, row.updated, row.messages, row.host)
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
        """Esc: cancel a rename or a delete under way, else close."""
        if self._renaming is not None:
            self._end_rename()
            self._say(HINT)
        elif self._deleting is not None:
            self.action_confirm(False)
        else:
            self.dismiss(None)
