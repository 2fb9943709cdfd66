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

from openwop_tui.text.sanitize import clean

_STATE_STYLE = {
    "connected": "$text-success",
    "streaming": "bold $text-success",
    "connecting": "$text-warning",
    "reconnecting": "$text-warning",
    "disconnected": "$text-error",
    "error": "bold $text-error",
}


class StatusLine(Static):
    """One line at the top of the screen."""

    DEFAULT_CSS = """
    StatusLine {
        dock: top; height: 1; background: $panel; color: $text; padding: 0 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    """

    host: reactive[str] = reactive("")
    """The host's base URL (never the key)."""
    implementation: reactive[str] = reactive("")
    protocol: reactive[str] = reactive("")
    """The protocol version from discovery."""
    run_status: reactive[str] = reactive("idle")
    """Status of the current (or last) run."""
    connection: reactive[str] = reactive("connecting")
    """connecting, connected, streaming, reconnecting, disconnected or error."""
    run_id: reactive[str] = reactive("")
    workflow: reactive[str] = reactive("")
    """The workflow each message runs."""

    def _parts(self) -> list[tuple[int, list[tuple[str, str]]]]:
        """(rank, pieces) in display order; rank 0 is never dropped, higher ranks go first."""
        state = _STATE_STYLE.get(self.connection, "")
        parts: list[tuple[int, list[tuple[str, str]]]] = [
            (0, [("● ", state), (self.connection, state)]),
            (0, [(" · run ", ""), (clean(self.run_status), "bold")]),
        ]
        if self.run_id:
            parts.append((5, [(f" {clean(self.run_id)}", "$text-muted")]))
        if self.workflow:
            parts.append((1, [(" · ", ""), (clean(self.workflow), "bold $text-accent")]))
        parts.append((3, [(" · ", ""), (clean(self.host) or "no host", "$text-primary")]))
        if self.implementation:
            parts.append((6, [(f" ({clean(self.implementation)})", "$text-muted")]))
        if self.protocol:
            parts.append((2, [(f" · protocol {clean(self.protocol)}", "")]))
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
