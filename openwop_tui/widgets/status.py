"""The status line: host, protocol version, run status and connection state at a glance."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from openwop_tui.sanitize import clean

_STATE_STYLE = {
    "connected": "green",
    "streaming": "bold green",
    "connecting": "yellow",
    "reconnecting": "yellow",
    "disconnected": "red",
    "error": "bold red",
}


class StatusLine(Static):
    """One line at the top of the screen."""

    DEFAULT_CSS = """
    StatusLine { dock: top; height: 1; background: $panel; color: $text; padding: 0 1; }
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

    def render(self) -> Text:
        # Most important first: the line is cut at the right edge on narrow terminals.
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("● ", style=_STATE_STYLE.get(self.connection, ""))
        text.append(self.connection, style=_STATE_STYLE.get(self.connection, ""))
        text.append(" · run ")
        text.append(clean(self.run_status), style="bold")
        if self.run_id:
            text.append(f" {clean(self.run_id)}", style="dim")
        text.append(" · ")
        text.append(clean(self.host) or "no host", style="cyan")
        if self.implementation:
            text.append(f" ({clean(self.implementation)})", style="dim")
        if self.protocol:
            text.append(f" · protocol {clean(self.protocol)}")
        return text
