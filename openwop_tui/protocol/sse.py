"""Server-Sent Events, decoded without I/O, and turned into run events.

Two layers, both pure (sans-IO, in the manner of httpx-sse's ``_decoders.py`` and h11):

* `SSEDecoder` implements the WHATWG "event stream interpretation" incrementally: feed it text
  as it arrives (split anywhere, even inside a ``\\r\\n``) and it returns the frames completed so
  far. Lines end in ``\\r\\n``, ``\\r`` or ``\\n``; ``:`` lines are comments (keep-alives);
  ``data:`` lines join with ``\\n``; an ``id:`` containing NUL is ignored; ``retry:`` takes
  digits only. `SSEDecoder.close` flushes a last frame the host did not end with a blank line
  (the spec would drop it; a client that loses a terminal event that way is worse off).
* `events_from_frame` turns one frame's ``data:`` into `RunEvent`\\ s: a single RunEventDoc, a
  ``batch`` array of them, or the bare ``outputChunk`` payload of ``messages`` mode
  (protocol.md §3.1, §3.4, §3.5). It never raises: what cannot be understood becomes a
  specific problem sentence, and the frame's full text is kept in `FrameResult.raw`.

Unlike the WHATWG dispatch rule (and httpx-sse), `SSEFrame.id` is the ``id:`` line *of this
frame* and ``None`` when the frame had none. Carrying the previous id forward would give a
SQLite host's id-less batch frames, or id-less bare chunks, the sequence of an event already
seen, and sequence de-duplication would then drop them. The stream-level "last event id" is
still tracked, as `SSEDecoder.last_event_id`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize

__all__ = [
    "FrameResult",
    "SSEDecoder",
    "SSEFrame",
    "events_from_frame",
    "parse_sse_text",
    "snapshot_event",
]

#: How much of a bad frame's text a problem sentence quotes (the full text is in `FrameResult.raw`).
EXCERPT_CHARS = 80


@dataclass(frozen=True, slots=True)
class SSEFrame:
    """One dispatched SSE frame.

    ``event`` is ``"message"`` when the frame had no ``event:`` line (the WHATWG default).
    ``retry`` is set only on the frame whose block carried a valid ``retry:`` line.
    """

    event: str
    data: str
    id: str | None = None
    retry: int | None = None


class SSEDecoder:
    """Incremental WHATWG event-stream decoder: `feed` text, get frames; `close` at EOF."""

    def __init__(self) -> None:
        self._pending = ""
        """Text after the last complete line."""
        self._started = False
        """Whether the first character has been seen (a leading BOM is dropped)."""
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None
        self._seen_field = False
        self.last_event_id: str | None = None
        """The stream's last event id (persists across frames, as the spec's buffer does)."""
        self.retry: int | None = None
        """The latest reconnection time the host asked for, in milliseconds."""

    def feed(self, text: str) -> list[SSEFrame]:
        """Decode ``text`` (any fragment of the stream) and return the frames it completed."""
        if not text:
            return []
        if not self._started:
            self._started = True
            if text.startswith("\ufeff"):
                text = text[1:]
        buffer = self._pending + text
        frames: list[SSEFrame] = []
        start = 0
        length = len(buffer)
        # Positions of the next CR and LF, searched again only once passed: re-searching every
        # line would rescan the rest of the chunk per line (quadratic on LF-only streams).
        cr = buffer.find("\r")
        lf = buffer.find("\n")
        while True:
            if cr != -1 and cr < start:
                cr = buffer.find("\r", start)
            if lf != -1 and lf < start:
                lf = buffer.find("\n", start)
            if cr == -1 and lf == -1:
                break
            if cr != -1 and (lf == -1 or cr < lf):
                if cr == length - 1:
                    # A lone trailing CR may be the first half of CRLF: wait for more text.
                    break
                end, next_start = cr, (cr + 2 if buffer[cr + 1] == "\n" else cr + 1)
            else:
                end, next_start = lf, lf + 1
            frame = self._line(buffer[start:end])
            if frame is not None:
                frames.append(frame)
            start = next_start
        self._pending = buffer[start:]
        return frames

    def close(self) -> list[SSEFrame]:
        """Signal end of stream; return a last frame that had no closing blank line, if any."""
        frames: list[SSEFrame] = []
        if self._pending:
            # A trailing lone CR (held back in `feed`) is a line end; anything else is a last line.
            line = self._pending[:-1] if self._pending.endswith("\r") else self._pending
            self._pending = ""
            frame = self._line(line)
            if frame is not None:
                frames.append(frame)
        frame = self._line("")
        if frame is not None:
            frames.append(frame)
        return frames

    def _line(self, line: str) -> SSEFrame | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None  # a comment: keep-alives and the example files' notes
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" in value:
                return None  # the spec ignores such ids entirely
            self._id = value
            self.last_event_id = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                self._retry = int(value)
                self.retry = self._retry
            else:
                return None
        else:
            return None  # unknown field: ignored
        self._seen_field = True
        return None

    def _dispatch(self) -> SSEFrame | None:
        if not self._seen_field:
            return None
        frame = SSEFrame(
            event=self._event or "message",
            data="\n".join(self._data),
            id=self._id,
            retry=self._retry,
        )
        self._event, self._data, self._id, self._retry = None, [], None, None
        self._seen_field = False
        return frame


def parse_sse_text(text: str) -> list[SSEFrame]:
    """Decode a whole SSE document (a capture file) into frames, an unterminated last one too."""
    decoder = SSEDecoder()
    return decoder.feed(text) + decoder.close()


@dataclass(frozen=True, slots=True)
class FrameResult:
    """What one frame held: the events understood, and a sentence for each thing that was not."""

    events: list[RunEvent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    raw: str | None = None
    """The frame's complete ``data:`` text when there are problems, so nothing is lost."""


def _describe(event: str, frame_id: str | None) -> str:
    where = f"frame id {frame_id}" if frame_id is not None else "frame without id"
    return f'{where} (event "{event}")'


def _excerpt(data: str) -> str:
    cut = data[:EXCERPT_CHARS]
    more = f" ({len(data)} chars in all)" if len(data) > EXCERPT_CHARS else ""
    return f"first {EXCERPT_CHARS} chars: {cut!r}{more}"


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
    doc: Mapping[str, Any], *, frame_event: str | None = None, frame_id: str | None = None
) -> RunEvent:
    """A ``state.snapshot`` event from a ``values``-mode frame whose data is a bare RunSnapshot."""
    run_id = doc.get("runId")
    sequence = int(frame_id) if frame_id is not None and frame_id.isdigit() else None
    return RunEvent(
        type="state.snapshot",
        payload=doc,
        sequence=sequence,
        run_id=run_id if isinstance(run_id, str) and run_id else None,
        frame_event=frame_event,
        raw=doc,
    )


def events_from_frame(event: str, data: str, id: str | None = None) -> FrameResult:
    """Decode one frame's data into run events; report what cannot be decoded, never raise.

    * a JSON object: one RunEventDoc (any of the three host shapes), or a bare ``outputChunk``
      (``messages`` mode), or, for ``event: state.snapshot``, a bare RunSnapshot;
    * a JSON array (``event: batch``): each element is an event; the frame's ``id:`` is *not*
      used as the elements' sequence (it is the batch's highest, and SQLite hosts omit it);
    * empty data (a frame with only ``event:``, ``id:`` or ``retry:``): nothing, silently.
    """
    if not data.strip():
        return FrameResult()
    where = _describe(event, id)
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as error:
        problem = (
            f"{where}: data is not valid JSON: {error.msg} at char {error.pos}; {_excerpt(data)}"
        )
        return FrameResult(problems=[problem], raw=data)

    if isinstance(doc, list):
        events: list[RunEvent] = []
        problems: list[str] = []
        for index, element in enumerate(doc):
            try:
                events.append(normalize(element, frame_event=event))
            except EventShapeError as error:
                problems.append(
                    f"{where}: batch element {index + 1} of {len(doc)} is not a run event "
                    f"({error}); {_excerpt(json.dumps(element))}"
                )
        return FrameResult(events=events, problems=problems, raw=data if problems else None)

    if not isinstance(doc, Mapping):
        problem = f"{where}: data is {_json_kind(doc)}, not an event object; {_excerpt(data)}"
        return FrameResult(problems=[problem], raw=data)

    if event == "state.snapshot" and not isinstance(doc.get("type"), str):
        return FrameResult(events=[snapshot_event(doc, frame_event=event, frame_id=id)])

    try:
        return FrameResult(events=[normalize(doc, frame_event=event, frame_id=id)])
    except EventShapeError as error:
        return FrameResult(problems=[f"{where}: {error}; {_excerpt(data)}"], raw=data)
