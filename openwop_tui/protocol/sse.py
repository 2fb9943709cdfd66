"""Server-Sent Events, decoded without I/O: text in, frames out (the WHATWG decoder only).

Pure (sans-IO, in the manner of httpx-sse's ``_decoders.py`` and h11), and it knows nothing of
run events or of trust: a frame holds the host's text exactly as received. Turning a frame into
run events, and cleaning what the host sent, is `openwop_tui.protocol.frames` (the boundary).

`SSEDecoder` implements the WHATWG "event stream interpretation" incrementally: feed it text as
it arrives (split anywhere, even inside a ``\\r\\n``) and it returns the frames completed so far.
Lines end in ``\\r\\n``, ``\\r`` or ``\\n``; ``:`` lines are comments (keep-alives); ``data:``
lines join with ``\\n``; an ``id:`` containing NUL is ignored; ``retry:`` takes digits only. A line
longer than ``max_line_chars`` (default 16 MiB) is skipped without being buffered, and its frame
comes out with ``problem`` set (raw host text: `openwop_tui.protocol.frames.decode_frame` cleans
and reports it); decoding resumes at the next line. `SSEDecoder.close` flushes a last frame the
host did not end with a blank line (the spec would drop it; a client that loses a terminal event
that way is worse off).

Unlike the WHATWG dispatch rule (and httpx-sse), `SSEFrame.id` is the ``id:`` line *of this
frame* and ``None`` when the frame had none. Carrying the previous id forward would give a
SQLite host's id-less batch frames, or id-less bare chunks, the sequence of an event already
seen, and sequence de-duplication would then drop them. The stream-level "last event id" is
still tracked, as `SSEDecoder.last_event_id`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from openwop_tui.base.records import quick_init

__all__ = [
    "MAX_LINE_CHARS",
    "SSEDecoder",
    "SSEFrame",
    "parse_sse_text",
]

#: The longest SSE line `SSEDecoder` keeps by default, in characters (16 MiB of ASCII).
MAX_LINE_CHARS = 16 * 1024 * 1024

#: One line end: CRLF, a lone CR or a lone LF (WHATWG "end-of-line").
_LINE_END = re.compile(r"\r\n?|\n")
#: The fields the decoder acts on; an over-long line of any other kind is ignored, as it would be.
_FIELDS = frozenset({"event", "data", "id", "retry"})
_FIELD_NAME_CHARS = 8


@quick_init
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
        if "\r" not in text:
            return self._feed_lf(text, start, frames)
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

    def _feed_lf(self, text: str, start: int, frames: list[SSEFrame]) -> list[SSEFrame]:
        """`feed` for a text whose lines all end in LF (every host's): split at once, and each
        short line read straight away (a long one, or one continuing a kept tail, the
        careful way of `_end_line`)."""
        lines = (text[start:] if start else text).split("\n")
        rest = lines.pop()  # after the last LF: the start of a line not ended yet
        limit = self.max_line_chars
        for line in lines:
            if self._tail or self._skipping is not None or len(line) > limit:
                frame = self._end_line(line, 0, len(line))
            else:
                frame = self._line(line)
            if frame is not None:
                frames.append(frame)
        if rest:
            self._extend(rest, 0, len(rest))
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
            milliseconds = _digits(value)
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


def _describe(event: str, frame_id: str | None) -> str:
    # Raw host text, like the rest of the frame: `frames.decode_frame` cleans it for display.
    where = f"frame id {frame_id[:200]}" if frame_id is not None else "frame without id"
    return f'{where} (event "{event[:200]}")'


_DIGITS = re.compile(r"[0-9]+")


def _digits(text: str) -> int | None:
    # ASCII digits only (`str.isdigit` would take "²"), as `events.parse_int(signed=False)`
    # reads them; kept here so the decoder imports nothing of the event layer.
    digits = text.strip()
    if _DIGITS.fullmatch(digits) is None:
        return None
    try:
        return int(digits)
    except ValueError:  # more digits than Python converts
        return None
