"""The status line: connection, run, workflow, host, protocol at a glance, at any width.

Each part has a rank; when the line does not fit, the least important parts go first (the
implementation name, the run id, then the protocol, the host…), so the connection state and the
run status are always there and nothing is cut mid-word.

Drawn as Textual `Content` styled with theme variables (``$success``, ``$text-muted``), so it
takes the active theme's colours, and a theme switched live recolours it at once.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from openwop_tui.text.sanitize import NO_TEXT, HostText
from openwop_tui.ui.messages import (
    Connection,
    ConnectionChanged,
    HostShown,
    LoadingChanged,
    ReadingChanged,
    RunChanged,
    RunPhase,
    SessionKept,
    TitleShown,
    WorkflowChosen,
)

#: Longest title the line shows (longer ones end in "…").
TITLE_SHOWN = 40

_STATE_STYLE = {
    Connection.CONNECTED: "$text-success",
    Connection.STREAMING: "bold $text-success",
    Connection.CONNECTING: "$text-warning",
    Connection.RECONNECTING: "$text-warning",
    Connection.DISCONNECTED: "$text-error",
    Connection.ERROR: "bold $text-error",
}


#: The status line's own words for a run's status before a host names one.
_IDLE, _RUNNING = HostText("idle"), HostText("running")


class StatusLine(Static):
    """One line at the top of the screen, kept up to date by the app-wide messages the
    controllers post to it (`ConnectionChanged`, `HostShown`, `RunChanged`, `WorkflowChosen`,
    `TitleShown`, `LoadingChanged`):
    nothing else sets its parts. Every part is `HostText`: the messages carry cleaned text (their
    senders clean the user's own with ``clean_own``), so the line draws it as it is."""

    DEFAULT_CSS = """
    StatusLine {
        dock: top; height: 1; background: $panel; color: $text; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    host: reactive[HostText] = reactive(NO_TEXT)
    """The host's base URL (never the key)."""
    implementation: reactive[HostText] = reactive(NO_TEXT)
    protocol: reactive[HostText] = reactive(NO_TEXT)
    """The protocol version from discovery."""
    run_status: reactive[HostText] = reactive(_IDLE)
    """Status of the current (or last) run."""
    connection: reactive[Connection] = reactive(Connection.CONNECTING)
    """Where the app stands with its host."""
    run_id: reactive[HostText] = reactive(NO_TEXT)
    unsaved: reactive[bool] = reactive(False)
    """The session cannot be written to the store now (shown until it can)."""
    workflow: reactive[HostText] = reactive(NO_TEXT)
    """The workflow each message runs."""
    title: reactive[HostText] = reactive(NO_TEXT)
    """The chat's title (the stored session's)."""
    items_loading: reactive[int] = reactive(0)
    """Items on screen still loading (media being fetched or drawn)."""
    reading: reactive[str] = reactive("")
    """How far a session's older turns are read (the client's own words; ``""``: not read)."""

    @property
    def run_shown(self) -> str:
        """The run status as the line words it: ``completed, 2 loading`` while items load."""
        status = self.run_status
        return f"{status}, {self.items_loading} loading" if self.items_loading else status

    def on_loading_changed(self, message: LoadingChanged) -> None:
        message.stop()  # told to the status line, for the status line
        self.items_loading = message.count

    def on_reading_changed(self, message: ReadingChanged) -> None:
        message.stop()  # told to the status line, for the status line
        self.reading = message.text

    def on_title_shown(self, message: TitleShown) -> None:
        message.stop()  # told to the status line, for the status line
        self.title = message.title
        if message.new_chat:
            self.run_id = NO_TEXT
            self.run_status = _IDLE
            self.items_loading = 0

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        message.stop()  # told to the status line, for the status line
        self.connection = message.state

    def on_host_shown(self, message: HostShown) -> None:
        message.stop()  # told to the status line, for the status line
        self.host = message.host
        self.protocol = message.protocol
        self.implementation = message.implementation

    def on_session_kept(self, message: SessionKept) -> None:
        message.stop()  # told to the status line, for the status line
        self.unsaved = not message.kept

    def on_workflow_chosen(self, message: WorkflowChosen) -> None:
        message.stop()  # told to the status line, for the status line
        self.workflow = message.workflow_id

    def on_run_changed(self, message: RunChanged) -> None:
        message.stop()  # told to the status line, for the status line
        if message.phase is RunPhase.STARTED:
            self.run_id = message.run_id or NO_TEXT
            if message.workflow:
                self.workflow = message.workflow
            self.run_status = message.status or _RUNNING
            self.connection = Connection.STREAMING
            return
        if message.status:
            self.run_status = message.status
        if message.phase is RunPhase.ENDED and self.connection in (
            Connection.STREAMING,
            Connection.RECONNECTING,
        ):
            self.connection = Connection.CONNECTED

    def _parts(self) -> list[tuple[int, list[tuple[str, str]]]]:
        """(rank, pieces) in display order; rank 0 is never dropped, higher ranks go first."""
        state = _STATE_STYLE.get(self.connection, "")
        parts: list[tuple[int, list[tuple[str, str]]]] = [
            (0, [("● ", state), (str(self.connection), state)]),
            (0, [(" · run ", ""), (self.run_shown, "bold")]),
        ]
        if self.reading:
            parts.append((0, [(" · ", ""), (self.reading, "$text-warning")]))
        if self.unsaved:
            parts.append((0, [(" · ", ""), ("⚠ not saved", "bold $text-error")]))
        if self.run_id:
            parts.append((5, [(f" {self.run_id}", "$text-muted")]))
        if self.title:
            title: str = self.title
            if len(title) > TITLE_SHOWN:  # the store keeps 80; the line has other news too
                title = title[: TITLE_SHOWN - 1] + "…"
            parts.append((4, [(" · ", ""), (f"“{title}”", "italic")]))
        if self.workflow:
            parts.append((1, [(" · ", ""), (self.workflow, "bold $text-accent")]))
        parts.append((3, [(" · ", ""), (self.host or "no host", "$text-primary")]))
        if self.implementation:
            parts.append((6, [(f" ({self.implementation})", "$text-muted")]))
        if self.protocol:
            parts.append((2, [(f" · protocol {self.protocol}", "")]))
        return parts

    def render(self) -> Content:
        parts = self._parts()
        room = max(self.size.width, 1) if self.size.width else 10_000
        # Drop the least important parts until the rest fits.
        while sum(len(t) for _, pieces in parts for t, _ in pieces) > room:
            rank = max(r for r, _ in parts)
            if rank == 0:
                break  # the essentials, cut at the edge if even they do not fit
            drop = max(i for i, (r, _) in enumerate(parts) if r == rank)
            del parts[drop]
        return Content.assemble(*(piece for _, pieces in parts for piece in pieces))
