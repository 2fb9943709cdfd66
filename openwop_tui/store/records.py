"""What the session store hands out: `Entry`, one row of a session's log, and `SessionInfo`, a
stored session as the list shows it (`openwop_tui.store.sessions.Store` reads and writes them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from openwop_tui.base.records import quick_init
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.protocol.stream_items import Arrival
from openwop_tui.text.sanitize import HostText

Kind = Literal["user", "notice", "run", "end", "frame", "document", "snapshot"]


@quick_init
@dataclass(frozen=True, slots=True)
class Entry:
    """One row of a session's log.

    ``kind``: ``user`` (``data`` is the message), ``notice`` (``label`` the level, ``data`` the
    text), ``run`` (the host created run ``run``; ``meta`` holds the workflow), ``end`` (the
    stream of ``run`` ended; ``meta`` may hold ``status`` or ``error``), ``frame`` (an SSE frame:
    ``label`` its ``event:``, ``frame_id`` its ``id:``, ``data`` its data text, ``meta`` the
    decoder's ``problem``), ``document`` (an event document from a JSON answer or a poll) or
    ``snapshot`` (the run snapshot a terminal event was synthesized from, as JSON).
    """

    kind: Kind
    data: str = ""
    run: str | None = None
    label: str | None = None
    frame_id: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    at: float = 0.0
    """Seconds since the epoch when it was appended (replay paces by it)."""
    seq: int = -1
    """Its place in the session's log (read from the store, or given by `Store.append`);
    -1 for an entry that is not in a store."""

    @property
    def arrival(self) -> Arrival | None:
        """The `Arrival` a ``frame``, ``document`` or ``snapshot`` entry holds."""
        if self.kind == "frame":
            problem = self.meta.get("problem")
            retry = self.meta.get("retry")
            return Arrival(
                frame=SSEFrame(
                    event=self.label or "message",
                    data=self.data,
                    id=self.frame_id,
                    retry=retry if isinstance(retry, int) else None,
                    problem=problem if isinstance(problem, str) else None,
                )
            )
        if self.kind == "document":
            return Arrival(document=self.data)
        if self.kind == "snapshot":
            try:
                snapshot = json.loads(self.data)
            except ValueError:
                return None
            return Arrival(snapshot=snapshot) if isinstance(snapshot, dict) else None
        return None

    @classmethod
    def of_arrival(cls, arrival: Arrival, run: str | None) -> Entry:
        """The entry that keeps ``arrival`` (of run ``run``)."""
        if arrival.frame is not None:
            frame = arrival.frame
            meta: dict[str, Any] = {}
            if frame.problem is not None:
                meta["problem"] = frame.problem
            if frame.retry is not None:
                meta["retry"] = frame.retry
            return cls(
                "frame", frame.data, run=run, label=frame.event, frame_id=frame.id, meta=meta
            )
        if arrival.document is not None:
            return cls("document", arrival.document, run=run)
        text = json.dumps(arrival.snapshot, default=str)
        return cls("snapshot", text, run=run)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A stored session as the list shows it."""

    id: str
    title: HostText
    host: HostText
    workflow: HostText
    created: float
    updated: float
    messages: int
    runs: int
    entries: int
    archived: bool = False
    """Put away: out of the default list, kept (`Store.archive`)."""

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``sessions --json``)."""
        return {
            "id": self.id,
            "title": self.title,
            "host": self.host,
            "workflow": self.workflow,
            "created": self.created,
            "updated": self.updated,
            "messages": self.messages,
            "runs": self.runs,
            "archived": self.archived,
        }
