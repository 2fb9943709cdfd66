"""What a conversation gives its front ends, and the few types around it.

`openwop_tui.core.conversation.Conversation` yields `Update`\\ s as a run goes: the fold's
`Added` / `Updated` (`openwop_tui.core.fold`) and the run's own moments here (`RunStarted`,
`EventArrived`, `StreamNoticed`, `RunEnded`), so a view only draws. `Answered` is what became of
an answer sent to a question; `Replaced` what an edit or regenerate took off the screen.
`EventLog` is what a conversation appends to; `Offline` what sending without a host raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias, TypedDict

from openwop_tui.base.records import quick_init
from openwop_tui.core.fold import Added, Change, Limits, Updated
from openwop_tui.core.hitl import Submitted
from openwop_tui.core.session import RunCreated
from openwop_tui.protocol.client import RunHandle
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.stream_items import StreamNotice
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

__all__ = [
    "REPLACED_NOTICE",
    "Answered",
    "EventArrived",
    "EventLog",
    "NeedsBytes",
    "Offline",
    "Options",
    "Replaced",
    "RunEnded",
    "RunStarted",
    "StreamItem",
    "StreamNoticed",
    "Update",
]


#: The line logged (and shown) where an exchange was replaced by an edited or regenerated one.
REPLACED_NOTICE = (
    "the last message was sent again (edited or regenerated): the exchange before this line "
    "was replaced, and stays in the session's history"
)


@dataclass(frozen=True, slots=True)
class Replaced:
    """What `Conversation.replace_last_exchange` took off the screen, and the line saying so."""

    item_ids: tuple[str, ...]
    """The last user turn and every item after it."""
    text: str
    """What the user had sent."""
    notice: Added


@dataclass(frozen=True, slots=True)
class RunStarted:
    """The host created a run (its stream follows)."""

    run_id: str
    workflow: str
    status: str | None = None
    handle: RunHandle | None = None
    """The host's answer, when live (``None`` when replayed from a log)."""


@dataclass(frozen=True, slots=True)
class RunEnded:
    """A run's stream is over: ``status`` is the last the fold saw (``None``: it never said)."""

    run_id: str | None
    status: str | None


@quick_init
@dataclass(frozen=True, slots=True)
class EventArrived:
    """A run event arrived (before the fold's changes for it); for an events panel."""

    event: RunEvent
    logged: int = -1
    """The position in the session's log of the entry the event arrived in (the timeline
    reads it back from there); -1: in none."""


@dataclass(frozen=True, slots=True)
class StreamNoticed:
    """The stream told something about itself (reconnecting, a malformed frame…)."""

    notice: StreamNotice


Update: TypeAlias = Added | Updated | RunStarted | RunEnded | EventArrived | StreamNoticed

StreamItem: TypeAlias = RunCreated | RunEvent | StreamNotice
"""What a run's stream brings to `Conversation._consume`."""


@dataclass(frozen=True, slots=True)
class Answered:
    """What became of an answer sent with `Conversation.answer`: the host's verdict
    (`openwop_tui.core.hitl.Submitted`: outcome, sentence, whether to retry) and what it changed in
    the transcript (the interrupt answered here, or closed)."""

    submitted: Submitted
    changes: list[Change]


NeedsBytes: TypeAlias = Callable[[str | None], bool]
"""Whether the renderer for a display value needs its envelope's bytes fetched."""


class EventLog(Protocol):
    """Where a conversation appends what it learns (a stored session, a recording)."""

    def append(self, entry: Entry) -> None:
        """Keep ``entry``; called as things arrive, in order."""


class Offline(RuntimeError):
    """A send on a conversation that has no host."""


class Options(TypedDict, total=False):
    """The constructor's keywords, for `Conversation.from_log` (each as described there)."""

    limits: Limits | None
    logs: Sequence[EventLog]
    store: Store | None
    secrets: Iterable[str]
    capture: bool
