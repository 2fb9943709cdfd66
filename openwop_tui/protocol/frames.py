"""A decoded SSE frame turned into run events: the trust boundary for everything a stream sends.

`openwop_tui.protocol.sse` hands over frames of raw host text; `events_from_frame` (and
`decode_frame`, for an `SSEFrame`) turns one frame's ``data:`` into `RunEvent`\\ s: a single
RunEventDoc, a ``batch`` array of them, or the bare ``outputChunk`` payload of ``messages`` mode
(protocol.md §3.1, §3.4, §3.5). It never raises: what cannot be understood becomes a specific
problem sentence, and the frame's text is kept in `FrameResult.raw` (cleaned, the API key
masked, cut at `RAW_CHARS`). Events come out of `openwop_tui.protocol.events.normalize`, so
their host data is cleaned too (`openwop_tui.protocol.hostdata`); the frame's exact text is on
each event's ``wire``, for storage only. Every sentence here that quotes the host goes through
`host_text`, so nothing above this module needs to clean a problem or a raw excerpt again.

Pure: no I/O, no Rich, no Textual.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.base.records import quick_init
from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize, parse_int
from openwop_tui.protocol.hostdata import (
    NOT_PLAIN,
    host_str,
    host_text,
    host_value,
    mask,
    plain_document,
)
from openwop_tui.protocol.sse import SSEFrame
from openwop_tui.text.sanitize import HostText

__all__ = [
    "EXCERPT_CHARS",
    "RAW_CHARS",
    "FrameResult",
    "decode_frame",
    "events_from_frame",
    "safe_raw",
    "snapshot_event",
]

#: How much of a bad frame's text a problem sentence quotes (the full text is in `FrameResult.raw`).
EXCERPT_CHARS = 80
#: How much of a bad frame's text `FrameResult.raw` keeps (it is shown in notices and panels).
RAW_CHARS = 4000


@quick_init
@dataclass(frozen=True, slots=True)
class FrameResult:
    """What one frame held: the events understood, and a sentence for each thing that was not."""

    events: list[RunEvent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    raw: str | None = None
    """The frame's ``data:`` text when there are problems: cleaned, the API key masked, and cut
    at `RAW_CHARS` characters (with a note of the full length), so it is safe to show."""


def _describe(event: str, frame_id: str | None, secrets: tuple[str, ...] = ()) -> str:
    # The id and event are the host's: shown as `clean` shows them (an ESC in them is `␛`).
    shown_id = host_text(frame_id[:200], secrets) if frame_id is not None else None
    where = f"frame id {shown_id}" if shown_id is not None else "frame without id"
    return f'{where} (event "{host_text(event[:200], secrets)}")'


def _excerpt(data: str, secrets: tuple[str, ...] = ()) -> str:
    # Mask before cutting: a cut through the key would leave a prefix the mask cannot see whole.
    # `repr` shows every control, bidi and invisible character as an escape; `clean` makes sure.
    cut = mask(data[: EXCERPT_CHARS + 200], secrets)[:EXCERPT_CHARS]
    more = f" ({len(data)} chars in all)" if len(data) > EXCERPT_CHARS else ""
    return f"first {EXCERPT_CHARS} chars: {host_text(repr(cut), secrets)}{more}"


def safe_raw(data: str, secrets: Iterable[str] = ()) -> str:
    """A frame's (or body's) text made safe to keep on a notice: masked, cleaned, cut."""
    head = host_text(data[: RAW_CHARS + 200], tuple(secrets))
    if len(data) <= RAW_CHARS and len(head) <= RAW_CHARS:
        return head
    return f"{head[:RAW_CHARS]}… ({len(data)} chars in all)"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


def snapshot_event(
    doc: Mapping[str, Any],
    *,
    frame_event: str | None = None,
    frame_id: str | None = None,
    secrets: Iterable[str] = (),
    wire: str | None = None,
) -> RunEvent:
    """A ``state.snapshot`` event from a ``values``-mode frame whose data is a bare RunSnapshot (its
    host data cleaned, as `normalize` does).

    Args:
        doc: The frame's decoded RunSnapshot.
        frame_event: The SSE ``event:`` line, kept cleaned on the event; None when there was none.
        frame_id: The SSE ``id:`` line, read as the event's sequence; None when there was none.
        secrets: Values (the API key) masked wherever they occur.
        wire: The frame's ``data:`` text exactly as received; None when not kept.
    """
    secrets = tuple(secrets)
    cleaned = host_value(doc, secrets)
    sequence = parse_int(frame_id) if frame_id is not None else None
    return RunEvent(
        type=HostText("state.snapshot"),  # the client's own ASCII event name
        payload=cleaned,
        sequence=sequence,
        run_id=host_str(cleaned.get("runId")),
        frame_event=None if frame_event is None else host_text(frame_event, secrets),
        raw=cleaned,
        wire=wire,
    )


def events_from_frame(
    event: str, data: str, id: str | None = None, *, secrets: Iterable[str] = ()
) -> FrameResult:
    """Decode one frame's data into run events; report what cannot be decoded, never raise.

    * a JSON object: one RunEventDoc (any of the three host shapes), or a bare ``outputChunk``
      (``messages`` mode), or, for ``event: state.snapshot``, a bare RunSnapshot;
    * a JSON array (``event: batch``): each element is an event; the frame's ``id:`` is *not* used
      as the elements' sequence (it is the batch's highest, and SQLite hosts omit it);
    * empty data (a frame with only ``event:``, ``id:`` or ``retry:``): nothing, silently.

    Args:
        event: The frame's SSE ``event:`` line.
        data: The frame's ``data:`` text.
        id: The frame's SSE ``id:`` line; None when it had none.
        secrets: Values (the API key) masked in the events and in every problem sentence.
    """
    if not data.strip():
        return FrameResult()
    secrets = tuple(secrets)

    def failed(sentence: str, shown: str = data) -> str:
        # Worked out only for a frame that failed: naming it is a cost no good frame pays.
        return f"{_describe(event, id, secrets)}: {sentence}; {_excerpt(shown, secrets)}"

    # Nothing to clean in it (nearly every frame): its decoded document is taken as it is.
    doc = plain_document(data, secrets)
    plain = doc is not NOT_PLAIN
    if not plain:
        try:
            doc = json.loads(data)
        except json.JSONDecodeError as error:
            problem = failed(f"data is not valid JSON: {error.msg} at char {error.pos}")
            return FrameResult(problems=[problem], raw=safe_raw(data, secrets))
        except (ValueError, RecursionError) as error:
            # Valid JSON Python will not build: an integer over `sys.get_int_max_str_digits()`
            # digits (ValueError), or arrays/objects nested deeper than the recursion limit.
            reason = (
                "it is nested too deeply"
                if isinstance(error, RecursionError)
                else f"a number in it has too many digits: {error}"
            )
            problem = failed(f"data cannot be decoded ({reason})")
            return FrameResult(problems=[problem], raw=safe_raw(data, secrets))

    if isinstance(doc, list):
        events: list[RunEvent] = []
        problems: list[str] = []
        for index, element in enumerate(doc):
            try:
                found = normalize(
                    element, frame_event=event, secrets=secrets, wire=data, plain=plain
                )
                events.append(found)
            except EventShapeError as error:
                shown = json.dumps(host_value(element, secrets))
                where = f"batch element {index + 1} of {len(doc)}"
                problems.append(failed(f"{where} is not a run event ({error})", shown))
        raw = safe_raw(data, secrets) if problems else None
        return FrameResult(events=events, problems=problems, raw=raw)

    # (An exact type first, as `normalize` does: the ABC's check is slow for the dict every
    # decoder makes.)
    if type(doc) is not dict and not isinstance(doc, Mapping):
        problem = failed(f"data is {_json_kind(doc)}, not an event object")
        return FrameResult(problems=[problem], raw=safe_raw(data, secrets))

    if event == "state.snapshot" and not isinstance(doc.get("type"), str):
        snapshot = snapshot_event(doc, frame_event=event, frame_id=id, secrets=secrets, wire=data)
        return FrameResult(events=[snapshot])

    try:
        found = normalize(
            doc, frame_event=event, frame_id=id, secrets=secrets, wire=data, plain=plain
        )
        return FrameResult(events=[found])
    except EventShapeError as error:
        return FrameResult(problems=[failed(str(error))], raw=safe_raw(data, secrets))


def decode_frame(frame: SSEFrame, *, secrets: Iterable[str] = ()) -> FrameResult:
    """`events_from_frame` for a decoded `SSEFrame`, reporting a frame the decoder cut short."""
    if frame.problem is not None:
        # The decoder's sentence quotes the frame's raw id and event: cleaned (and masked) here.
        return FrameResult(problems=[host_text(frame.problem, tuple(secrets))])
    return events_from_frame(frame.event, frame.data, frame.id, secrets=secrets)
