"""What a run's subscription yields and what an event log keeps of it: `StreamNotice` (a word
about the stream itself), `StreamItem` (an event or a notice), `Arrival` (the raw material of
events, as it arrived), and `synthesize_terminal`, the end event made from a run's snapshot when
the host sent none. No I/O here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from openwop_tui.base.records import quick_init
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.hostdata import host_text
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.text.sanitize import HostText, clean

_TERMINAL_EVENT = {
    "completed": "run.completed",
    "failed": "run.failed",
    "cancelled": "run.cancelled",
}


@dataclass(frozen=True, slots=True)
class StreamNotice:
    """Something the user should know about the stream itself (not a run event)."""

    level: Literal["info", "warning", "error"]
    message: str
    raw: str | None = None
    """The frame text a warning is about: cleaned (and, where it is made, the API key masked
    and the text cut), so it is safe to show."""
    kind: Literal["note", "reconnecting"] = "note"
    """What the notice means for the connection, so a front end never reads it from the
    sentence: ``reconnecting`` while the client waits to open the stream again."""

    def __post_init__(self) -> None:
        # A boundary: notices are built all over the stream code from f-strings around host
        # values, exception messages and frame text; what a notice holds is always printable.
        object.__setattr__(self, "message", clean(self.message))
        if self.raw is not None:
            object.__setattr__(self, "raw", clean(self.raw))

    @property
    def shown(self) -> HostText:
        """The message, typed as the clean text `__post_init__` made it."""
        return HostText(self.message)


StreamItem: TypeAlias = RunEvent | StreamNotice


@quick_init
@dataclass(frozen=True, slots=True)
class Arrival:
    """The raw material of a run's events, as it arrived: what an event log keeps.

    Exactly one of the three is set. ``frame``: an SSE frame exactly as received (its ``event:``,
    ``id:`` and data text, never cleaned). ``document``: one event document of a JSON answer or
    a poll, as JSON text. ``snapshot``: the run snapshot a terminal event was synthesized from
    (the host sent no terminal event). Raw host text: stored, never shown.
    """

    frame: SSEFrame | None = None
    document: str | None = None
    snapshot: Mapping[str, Any] | None = None


ArrivalSink: TypeAlias = Callable[[Arrival], None]


def synthesize_terminal(run_id: str, snapshot: Mapping[str, Any]) -> RunEvent | None:
    """A terminal run event built from a terminal run snapshot; ``None`` if it is not terminal.

    ``raw`` is ``{"synthesized": True, "status": …, "snapshot": …}`` so the inspector can say the
    host never sent it. ``run.failed`` carries the snapshot's ``error``; ``run.completed`` its
    ``outputs`` when it has them.
    """
    status = snapshot.get("status")
    if not isinstance(status, str):
        status = snapshot.get("runStatus")  # the poll endpoint's spelling on reference hosts
    if not isinstance(status, str) or status not in _TERMINAL_EVENT:
        return None
    payload: dict[str, Any] = {}
    if status == "completed":
        outputs = snapshot.get("outputs")
        payload["outputs"] = dict(outputs) if isinstance(outputs, Mapping) else {}
    elif status == "failed":
        error = snapshot.get("error")
        if isinstance(error, Mapping):
            payload["error"] = dict(error)
    else:
        reason = snapshot.get("reason")
        if isinstance(reason, str):
            payload["reason"] = reason
    return RunEvent(
        type=HostText(_TERMINAL_EVENT[status]),  # the client's own ASCII event names
        payload=payload,
        sequence=None,
        # A boundary: the run id is the caller's (the user's command line or a host answer).
        run_id=host_text(run_id),
        raw={"synthesized": True, "status": status, "snapshot": dict(snapshot)},
    )
