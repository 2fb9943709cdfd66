"""The status line: host, protocol version, run status and connection state at a glance.

Drawn as Textual `Content` styled with theme variables (``$success``, ``$text-muted``), so it
takes the active theme's colours, and a theme switched live recolours it at once.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from openwop_tui.sanitize import clean

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

    def render(self) -> Content:
        # Most important first: the line is cut at the right edge on narrow terminals.
        state = _STATE_STYLE.get(self.connection, "")
        parts: list[str | tuple[str, str]] = [
            ("● ", state),
            (self.connection, state),
            " · run ",
            (clean(self.run_status), "bold"),
        ]
        if self.run_id:
            parts.append((f" {clean(self.run_id)}", "$text-muted"))
        parts += [" · ", (clean(self.host) or "no host", "$text-primary")]
        if self.implementation:
            parts.append((f" ({clean(self.implementation)})", "$text-muted"))
        if self.protocol:
            parts.append(f" · protocol {clean(self.protocol)}")
        return Content.assemble(*parts)
