"""What the fold's event families share: a payload value as text (`text_of`), the text the fold
makes of values and its own words (`made`, `made_line`), a payload's error (`error_of`), the
statuses a run ends in, and the one line an event with no handler of its own becomes
(`on_line`).

The modules of this package whose names begin with ``_`` are private to it: the names in
them are plain so that the family modules can import them from one another, not so that
anything outside the package can.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openwop_tui.core.event_lines import line_for
from openwop_tui.core.items import Change
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.hostdata import host_str
from openwop_tui.text.sanitize import HostLine, HostText, one_line

if TYPE_CHECKING:
    from openwop_tui.core.fold.transcript import Transcript

#: Statuses after which nothing more happens to a run.
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})


def text_of(value: Any) -> HostText | None:
    """A non-empty string of an event's payload (cleaned by `normalize`), or ``None``."""
    return host_str(value)


def made(text: str) -> HostText:
    """Text the fold made of an event's cleaned fields and payload values (`normalize` cleaned
    them) and its own words: clean by construction, never cleaned again. The walk test
    (``tests/hostile/test_boundary_walk.py``) checks every string of every item it makes."""
    return HostText(text)


def made_line(text: str) -> HostLine:
    """`made` text the client draws as one line (a notice, a tool call's words): a newline in
    a host value shows as ``␊`` (`one_line`), so a reason, an error message or a tool's outcome
    cannot end the line and forge the client's next (``• run completed``)."""
    return one_line(made(text))


def error_of(payload: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(code, message)`` from ``payload.error{}``, else from the top level (protocol.md §8.4)."""
    error = payload.get("error")
    if isinstance(error, Mapping):
        return text_of(error.get("code")), text_of(error.get("message"))
    if isinstance(error, str):
        return error, text_of(payload.get("message"))
    return text_of(payload.get("code")), text_of(payload.get("message"))


def on_line(fold: Transcript, event: RunEvent) -> list[Change]:
    """The one line `openwop_tui.core.event_lines` has for the event (none if it is silent)."""
    line = line_for(event)
    if line is None:
        return []
    level, text, verbose = line
    return [fold._notice(level, text, verbose=verbose)]
