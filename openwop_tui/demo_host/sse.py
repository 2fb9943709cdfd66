"""Stream modes and SSE frames (protocol.md §3.1, §3.4).

Pure functions: which events a ``?streamMode=`` admits, and the text of one frame.

* ``updates`` (the default): run transitions, node transitions (``node.started`` included, as
  the Python and SQLite reference hosts send it in this mode, although stream-modes.md's table
  leaves it to ``debug``), suspensions, HITL and artifacts; not chunks, not reasoning, not
  usage.
* ``messages``: only ``output.chunk``, sent as ``event: ai.message.chunk`` whose ``data:`` is the
  bare chunk payload.
* ``debug``: everything, ``event:`` = the type.
* A comma mix is the union; each frame's ``event:`` names the mode that admitted it and ``data:``
  is the full RunEventDoc, so a client dispatches on ``data.type``.
* ``?bufferMs=N`` (any mode): the admitted events go out as ``event: batch`` frames whose ``data:``
  is an array of RunEventDocs, flushed at once on a terminal event and on ``node.suspended``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: The modes this host serves, as ``details.supported`` lists them on a 400.
SUPPORTED_MODES = ("updates", "messages", "debug")

_UPDATES_EXACT = frozenset(
    {
        "node.started",
        "node.completed",
        "node.failed",
        "node.skipped",
        "node.cancelled",
        "node.suspended",
        "node.resumed",
        "node.dispatched",
        "artifact.created",
    }
)
_UPDATES_PREFIXES = ("run.", "interrupt.", "approval.", "clarification.", "conversation.")


class StreamModeError(ValueError):
    """``?streamMode=`` named a mode this host does not serve."""


def parse_modes(values: Iterable[str]) -> tuple[str, ...]:
    """Parse the ``streamMode`` query values (repeats are joined) into distinct modes, in order.

    No value, or only empty ones, means the default ``updates``.
    """
    raw = ",".join(values)
    if not raw.strip():
        return ("updates",)
    modes: list[str] = []
    for part in raw.split(","):
        mode = part.strip()
        if mode not in SUPPORTED_MODES:
            raise StreamModeError(raw)
        if mode not in modes:
            modes.append(mode)
    return tuple(modes)


def admits(mode: str, event_type: str) -> bool:
    """Whether ``mode`` lets an event of this type through."""
    if mode == "debug":
        return True
    if mode == "messages":
        return event_type == "output.chunk"
    return event_type in _UPDATES_EXACT or event_type.startswith(_UPDATES_PREFIXES)


def admitted(doc: Mapping[str, Any], modes: tuple[str, ...]) -> bool:
    """Whether any of ``modes`` admits this event."""
    return any(admits(mode, doc["type"]) for mode in modes)


def frame(
    doc: Mapping[str, Any], modes: tuple[str, ...], out: Mapping[str, Any] | None = None
) -> str | None:
    """The SSE frame for one event under ``modes``, or ``None`` if none of them admits it.

    ``doc`` is the stored event (admission is decided on its v1 type); ``out`` is what goes on
    the wire, the same event as the request's major names it (default: ``doc`` itself)."""
    event_type: str = doc["type"]
    data: Any = doc if out is None else out
    if len(modes) == 1:
        mode = modes[0]
        if not admits(mode, event_type):
            return None
        label = data["type"]
        if mode == "messages":
            label, data = "ai.message.chunk", data["payload"]
    else:
        # Label with the narrowest admitting mode (fixed order, whatever the query's order),
        # so `debug,updates` still says `updates` for a run transition.
        found = [m for m in SUPPORTED_MODES if m in modes and admits(m, event_type)]
        if not found:
            return None
        label = found[0]
    # ensure_ascii: some line splitters (str.splitlines) break on U+2028 and friends, which
    # would tear a frame; escaped, every data line is plain ASCII with no separators in it.
    return f"id: {doc['sequence']}\nevent: {label}\ndata: {json.dumps(data)}\n\n"


#: Events after which a batch is sent at once, whatever ``bufferMs`` says (events.md §SSE frames).
FLUSH_TYPES = frozenset({"run.completed", "run.failed", "run.cancelled", "node.suspended"})


def batch_frame(docs: Sequence[Mapping[str, Any]]) -> str:
    """One ``event: batch`` frame: ``data:`` a JSON array of RunEventDocs, ``id:`` the highest
    sequence in it (the docs are in log order), so ``Last-Event-ID`` resumes after the batch."""
    return f"id: {docs[-1]['sequence']}\nevent: batch\ndata: {json.dumps(list(docs))}\n\n"
