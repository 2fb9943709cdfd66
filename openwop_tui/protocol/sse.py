"""Server-Sent Events, decoded without I/O, and turned into run events.

Two layers, both pure (sans-IO, in the manner of httpx-sse's ``_decoders.py`` and h11):

* `SSEDecoder` implements the WHATWG "event stream interpretation" incrementally: feed it text
  as it arrives (split anywhere, even inside a ``\\r\\n``) and it returns the frames completed so
  far. Lines end in ``\\r\\n``, ``\\r`` or ``\\n``; ``:`` lines are comments (keep-alives);
  ``data:`` lines join with ``\\n``; an ``id:`` containing NUL is ignored; ``retry:`` takes
  digits only. A line longer than ``max_line_chars`` (default 16 MiB) is skipped without being
  buffered, and its frame comes out with ``problem`` set (`decode_frame` reports it); decoding
  resumes at the next line. `SSEDecoder.close` flushes a last frame the host did not end with a
  blank line (the spec would drop it; a client that loses a terminal event that way is worse
  off).
* `events_from_frame` turns one frame's ``data:`` into `RunEvent`\\ s: a single RunEventDoc, a
  ``batch`` array of them, or the bare ``outputChunk`` payload of ``messages`` mode
  (protocol.md §3.1, §3.4, §3.5). It never raises: what cannot be understood becomes a
  specific problem sentence, and the frame's text is kept in `FrameResult.raw` (cleaned, the
  API key masked, cut at `RAW_CHARS`). Events come out of `normalize`, so their host data is
  cleaned too; the frame's exact text is on each event's ``wire``, for storage only.

Unlike the WHATWG dispatch rule (and httpx-sse), `SSEFrame.id` is the ``id:`` line *of this
frame* and ``None`` when the frame had none. Carrying the previous id forward would give a
SQLite host's id-less batch frames, or id-less bare chunks, the sequence of an event already
seen, and sequence de-duplication would then drop them. The stream-level "last event id" is
still tracked, as `SSEDecoder.last_event_id`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openwop_tui.protocol.events import EventShapeError, RunEvent, normalize, parse_int
from openwop_tui.protocol.hostdata import host_text, host_value, mask

__all__ = [
    "MAX_LINE_CHARS",
    "FrameResult",
    "SSEDecoder",
    "SSEFrame",
    "decode_frame",
    "events_from_frame",
    "parse_sse_text",
    "snapshot_event",
]

#: How much of a bad frame's text a problem sentence quotes (the full text is in `FrameResult.raw`).
EXCERPT_CHARS = 80
#: How much of a bad frame's text `FrameResult.raw` keeps (it is shown in notices and panels).
RAW_CHARS = 4000
#: The longest SSE line `SSEDecoder` keeps by default, in characters (16 MiB of ASCII).
MAX_LINE_CHARS = 16 * 1024 * 1024

#: One line end: CRLF, a lone CR or a lone LF (WHATWG "end-of-line").
_LINE_END = re.compile(r"\r\n?|\n")
#: The fields the decoder acts on; an over-long line of any other kind is ignored, as it would be.
_FIELDS = frozenset({"event", "data", "id", "retry"})
_FIELD_NAME_CHARS = 8


@dataclass(frozen=True, slots=True)
class SSEFrame:
    """One dispatched SSE frame.

    ``event`` is ``"message"`` when the frame had no ``event:`` line (the WHATWG default).
    ``retry`` is set only on the frame whose block carried a valid ``retry:`` line.
    ``problem`` is set (and ``data`` empty) on a frame the decoder had to cut short.
    """

    event: str
    data: str
    id: str | None = None
    retry: int | None = None
    problem: str | None = None
    """Set when the frame could not be read whole (a line over the decoder's limit): a sentence
    naming the frame and what was dropped. Its ``data`` is then empty; `decode_frame` reports
    the problem instead of decoding."""


class SSEDecoder:
    """Incremental WHATWG event-stream decoder: `feed` text, get frames; `close` at EOF.

    `feed` is linear in the text fed: only the new text is scanned for line ends, and the
    unterminated tail is kept as a list of pieces, joined once when its line ends. A line longer
    than ``max_line_chars`` is not buffered: it is skipped up to its line end. If it was an
    ``event``, ``data``, ``id`` or ``retry`` line, the frame it belonged to comes out as an
    `SSEFrame` with ``problem`` set and no data (the rest of the frame means nothing without
    it); a long comment or unknown field is ignored, as it would be anyway. Decoding carries on
    at the next line.
    """

    def __init__(self, *, max_line_chars: int = MAX_LINE_CHARS) -> None:
        if max_line_chars < 1:
            raise ValueError("max_line_chars must be at least 1")
        self.max_line_chars = max_line_chars
        """The longest line kept, in characters; longer lines are dropped with a problem."""
        self._tail: list[str] = []
        """Pieces of the line not ended yet (joined only when it ends)."""
        self._tail_chars = 0
        self._skipping: int | None = None
        """Characters of an over-long line skipped so far (``None``: not skipping one)."""
        self._skipped_field = ""
        """The field name of the over-long line being skipped, for the problem sentence."""
        self._after_cr = False
        """The last text fed ended in CR: a LF starting the next text ends no further line."""
        self._started = False
        """Whether the first character has been seen (a leading BOM is dropped)."""
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None
        self._seen_field = False
        self._problem: str | None = None
        """Why the frame being read must be reported instead of dispatched."""
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
        start = 0
        if self._after_cr:
            # The CR that ended the last text already ended its line: this LF is its other half.
            self._after_cr = False
            if text.startswith("\n"):
                start = 1
        frames: list[SSEFrame] = []
        for match in _LINE_END.finditer(text, start):
            frame = self._end_line(text, start, match.start())
            if frame is not None:
                frames.append(frame)
            start = match.end()
        if start < len(text):
            self._extend(text, start, len(text))
        elif text.endswith("\r"):
            self._after_cr = True
        return frames

    def close(self) -> list[SSEFrame]:
        """Signal end of stream; return a last frame that had no closing blank line, if any."""
        frames: list[SSEFrame] = []
        if self._tail or self._skipping is not None:
            frame = self._end_line("", 0, 0)  # the unterminated last line
            if frame is not None:
                frames.append(frame)
        frame = self._line("")
        if frame is not None:
            frames.append(frame)
        self._after_cr = False
        return frames

    def _extend(self, text: str, start: int, end: int) -> None:
        """Keep ``text[start:end]`` (no line end in it) as part of the unterminated line."""
        if self._skipping is not None:
            self._skipping += end - start
            return
        if self._tail_chars + (end - start) > self.max_line_chars:
            self._begin_skipping(text, start, end)
            return
        self._tail.append(text[start:end])
        self._tail_chars += end - start

    def _begin_skipping(self, text: str, start: int, end: int) -> None:
        head = ""
        for piece in [*self._tail, text[start : start + _FIELD_NAME_CHARS + 1]]:
            head += piece[: _FIELD_NAME_CHARS + 1 - len(head)]
            if len(head) > _FIELD_NAME_CHARS:
                break
        name, colon, _ = head.partition(":")
        self._skipped_field = name if colon else head  # no colon: the whole line is the name
        self._skipping = self._tail_chars + (end - start)
        self._tail, self._tail_chars = [], 0

    def _end_line(self, text: str, start: int, end: int) -> SSEFrame | None:
        """The line made of the kept tail and ``text[start:end]`` has ended: interpret it."""
        if self._skipping is None and self._tail_chars + (end - start) > self.max_line_chars:
            self._begin_skipping(text, start, end)
        elif self._skipping is not None:
            self._skipping += end - start
        if self._skipping is not None:
            length, name = self._skipping, self._skipped_field
            self._skipping, self._skipped_field = None, ""
            self._too_long(name, length)
            return None
        if self._tail:
            self._tail.append(text[start:end])
            line = "".join(self._tail)
            self._tail, self._tail_chars = [], 0
        else:
            line = text[start:end]
        return self._line(line)

    def _too_long(self, name: str, length: int) -> None:
        if name not in _FIELDS:
            return  # a comment or an unknown field: ignored however long (the spec ignores them)
        if self._problem is None:
            self._problem = (
                f"its {name!r} line of {length} chars is longer than the "
                f"{self.max_line_chars}-char limit; the frame was skipped"
            )
        self._seen_field = True

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
            if self._problem is None:  # the frame is dropped anyway: do not hoard its data
                self._data.append(value)
        elif name == "id":
            if "\0" in value:
                return None  # the spec ignores such ids entirely
            self._id = value
            self.last_event_id = value
        elif name == "retry":
            milliseconds = parse_int(value, signed=False)
            if milliseconds is None:
                return None
            self._retry = milliseconds
            self.retry = milliseconds
        else:
            return None  # unknown field: ignored
        self._seen_field = True
        return None

    def _dispatch(self) -> SSEFrame | None:
        if not self._seen_field:
            return None
        event = self._event or "message"
        problem = self._problem
        frame = SSEFrame(
            event=event,
            data="\n".join(self._data) if problem is None else "",
            id=self._id,
            retry=self._retry,
            problem=None if problem is None else f"{_describe(event, self._id)}: {problem}",
        )
        self._event, self._data, self._id, self._retry = None, [], None, None
        self._seen_field = False
        self._problem = None
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
    """A ``state.snapshot`` event from a ``values``-mode frame whose data is a bare RunSnapshot
    (its host data cleaned, as `normalize` does)."""
    secrets = tuple(secrets)
    cleaned = host_value(doc, secrets)
    run_id = cleaned.get("runId")
    sequence = parse_int(frame_id) if frame_id is not None else None
    return RunEvent(
        type="state.snapshot",
        payload=cleaned,
        sequence=sequence,
        run_id=run_id if isinstance(run_id, str) and run_id else None,
        frame_event=None if frame_event is None else host_text(frame_event, secrets),
        raw=cleaned,
        wire=wire,
    )


def events_from_frame(
    event: str, data: str, id: str | None = None, *, secrets: Iterable[str] = ()
) -> FrameResult:
    """Decode one frame's data into run events; report what cannot be decoded, never raise.

    ``secrets`` (the API key) are masked in the events and in every problem sentence.

    * a JSON object: one RunEventDoc (any of the three host shapes), or a bare ``outputChunk``
      (``messages`` mode), or, for ``event: state.snapshot``, a bare RunSnapshot;
    * a JSON array (``event: batch``): each element is an event; the frame's ``id:`` is *not*
      used as the elements' sequence (it is the batch's highest, and SQLite hosts omit it);
    * empty data (a frame with only ``event:``, ``id:`` or ``retry:``): nothing, silently.
    """
    if not data.strip():
        return FrameResult()
    secrets = tuple(secrets)
    where = _describe(event, id, secrets)
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as error:
        problem = (
            f"{where}: data is not valid JSON: {error.msg} at char {error.pos}; "
            f"{_excerpt(data, secrets)}"
        )
        return FrameResult(problems=[problem], raw=safe_raw(data, secrets))
    except (ValueError, RecursionError) as error:
        # Valid JSON Python will not build: an integer over `sys.get_int_max_str_digits()`
        # digits (ValueError), or arrays/objects nested deeper than the recursion limit.
        reason = (
            "it is nested too deeply"
            if isinstance(error, RecursionError)
            else f"a number in it has too many digits: {error}"
        )
        problem = f"{where}: data cannot be decoded ({reason}); {_excerpt(data, secrets)}"
        return FrameResult(problems=[problem], raw=safe_raw(data, secrets))

    if isinstance(doc, list):
        events: list[RunEvent] = []
        problems: list[str] = []
        for index, element in enumerate(doc):
            try:
                events.append(normalize(element, frame_event=event, secrets=secrets, wire=data))
            except EventShapeError as error:
                shown = json.dumps(host_value(element, secrets))
                problems.append(
                    f"{where}: batch element {index + 1} of {len(doc)} is not a run event "
                    f"({error}); {_excerpt(shown, secrets)}"
                )
        raw = safe_raw(data, secrets) if problems else None
        return FrameResult(events=events, problems=problems, raw=raw)

    if not isinstance(doc, Mapping):
        problem = (
            f"{where}: data is {_json_kind(doc)}, not an event object; {_excerpt(data, secrets)}"
        )
        return FrameResult(problems=[problem], raw=safe_raw(data, secrets))

    if event == "state.snapshot" and not isinstance(doc.get("type"), str):
        snapshot = snapshot_event(doc, frame_event=event, frame_id=id, secrets=secrets, wire=data)
        return FrameResult(events=[snapshot])

    try:
        found = normalize(doc, frame_event=event, frame_id=id, secrets=secrets, wire=data)
        return FrameResult(events=[found])
    except EventShapeError as error:
        return FrameResult(
            problems=[f"{where}: {error}; {_excerpt(data, secrets)}"], raw=safe_raw(data, secrets)
        )


def decode_frame(frame: SSEFrame, *, secrets: Iterable[str] = ()) -> FrameResult:
    """`events_from_frame` for a decoded `SSEFrame`, reporting a frame the decoder cut short."""
    if frame.problem is not None:
        return FrameResult(problems=[frame.problem])
    return events_from_frame(frame.event, frame.data, frame.id, secrets=secrets)
