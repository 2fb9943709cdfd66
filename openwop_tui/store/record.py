"""Recordings: a conversation's raw stream written as it arrives, and played back.

`Recorder` is an event log (`openwop_tui.core.conversation.EventLog`) that writes a valid SSE file:
every frame's ``id:``, ``event:`` and ``data:`` lines as received, blank-line separated, so any
SSE reader (``render``, another client) can read it. What is not a frame goes into comment lines,
which SSE readers skip: ``: at S`` (seconds since the recording began, before each frame, for
pacing), and ``: user``, ``: run``, ``: end``, ``: notice``, ``: snapshot``, ``: document`` with a
JSON value, so a replay shows the user's messages and the stream's notices too. The API key is
masked in everything written, also where a host cut it across the chunks of several frames
(`openwop_tui.store.keys.SplitKeyRows`, as the session store masks it): a frame whose chunk
could start the key waits for its stream's next chunk (or its run's end, at most `MAX_HELD`
entries), since what is written is not rewritten. Every other entry is flushed as it comes: a
killed process loses nothing but what the operating system had not been given, and such a
waiting frame.

`read_recording` turns a file (a recording, or any SSE capture) back into `Entry`\\ s, and
`replay_frames` yields them paced by their recorded times (or the events' ``timestamp``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from openwop_tui.protocol.sse import SSEDecoder
from openwop_tui.store.keys import SplitKeyRows
from openwop_tui.store.records import Entry
from openwop_tui.text.redact import Redactor

#: The first line of a file `Recorder` wrote.
HEADER = ": openwop-tui recording 1"
_LINE_END = re.compile(r"\r\n?|\n")
#: Comment lines that carry an entry other than a frame.
_MARKERS = frozenset({"user", "run", "end", "notice", "snapshot", "document"})
#: The most entries held back while a chunk could start the key: past it, the oldest is
#: written as it stands (a stream that never goes on cannot keep the rest from the file).
MAX_HELD = 256


@dataclass(slots=True)
class _Held:
    """An entry waiting to be written: its number, the entry (its text masked as far as
    known) and, for a frame, its time in the recording (taken when it came)."""

    ref: int
    entry: Entry
    at: float


class Recorder:
    """Writes a conversation's log as an SSE file (``--record FILE.sse``)."""

    def __init__(
        self,
        path: Path,
        *,
        secrets: Iterable[str | None] = (),
        redactor: Redactor | None = None,
        keep_times: bool = False,
    ) -> None:
        """Create (or truncate) ``path``; raises `OSError` when it cannot be written.

        Args:
            path: The file the log is written to.
            secrets: Values (the API key) masked in everything written; None entries are ignored.
            redactor: Masks URL credentials, Bearer tokens and its own secrets in what is written;
                None for one with no secrets of its own.
            keep_times: True when the entries already have their times (an export of a stored log),
                so ``: at`` counts from the first entry's, not from now.
        """
        self.path = path
        self._redact = (redactor or Redactor()).with_secrets(*secrets)
        self._file: TextIO = path.open("w", encoding="utf-8", errors="replace", newline="\n")
        self._began = time.monotonic()
        self._keep_times = keep_times
        self._first: float | None = None
        self._split = SplitKeyRows(self._redact.secrets)
        self._held: list[_Held] = []
        self._count = 0
        self._write(f"{HEADER}\n\n")

    def add_secrets(self, *more: str | None) -> None:
        """Also mask ``more`` (the embedded demo host's key, known once it started)."""
        self._release(everything=True)
        self._redact = self._redact.with_secrets(*more)
        self._split = SplitKeyRows(self._redact.secrets)

    def _write(self, text: str) -> None:
        # The key and URL credentials never reach the file (the one change to the host's text).
        self._file.write(self._redact(text))
        self._file.flush()

    def _at(self, entry: Entry) -> float:
        if not self._keep_times:
            return time.monotonic() - self._began
        if self._first is None:
            self._first = entry.at
        return max(0.0, entry.at - self._first)

    def append(self, entry: Entry) -> None:
        """Write one entry (when no chunk before it waits): a frame as SSE lines, anything
        else as a comment."""
        if self._file.closed:
            return
        ref, self._count = self._count, self._count + 1
        at = self._at(entry) if entry.kind == "frame" else 0.0
        data, earlier = self._split.row("", ref, entry.kind, entry.run, entry.data)
        rewrites = dict(earlier)
        for held in self._held:
            if held.ref in rewrites:
                held.entry = dataclasses.replace(held.entry, data=str(rewrites[held.ref]))
        if data is not entry.data:
            entry = dataclasses.replace(entry, data=data)
        self._held.append(_Held(ref, entry, at))
        self._release(everything=len(self._held) > MAX_HELD)

    def _release(self, *, everything: bool = False) -> None:
        """Write the held entries no later chunk may change (``everything``: all of them)."""
        waiting = set() if everything else self._split.waiting()
        count = next((i for i, h in enumerate(self._held) if h.ref in waiting), len(self._held))
        ready, self._held = self._held[:count], self._held[count:]
        for held in ready:
            self._put(held.entry, held.at)

    def _put(self, entry: Entry, at: float) -> None:
        if entry.kind == "frame":
            self._write(self._frame(entry, at))
            return
        value: Any = entry.data
        if entry.kind == "notice":
            value = {"level": entry.label, "text": entry.data}
        elif entry.kind in ("run", "end"):
            value = {"run": entry.run, **entry.meta}
        elif entry.kind == "snapshot":
            value = {"run": entry.run, "snapshot": json.loads(entry.data or "null")}
        self._write(f": {entry.kind} {json.dumps(value, ensure_ascii=True)}\n\n")

    def _frame(self, entry: Entry, at: float) -> str:
        lines = [f": at {at:.3f}"]
        if entry.frame_id is not None:
            lines.append(f"id: {entry.frame_id}")
        if entry.label and entry.label != "message":
            lines.append(f"event: {entry.label}")
        retry = entry.meta.get("retry")
        if isinstance(retry, int):
            lines.append(f"retry: {retry}")
        problem = entry.meta.get("problem")
        if isinstance(problem, str):
            lines.append(f": skipped {json.dumps(problem)}")
        # The decoder joined the frame's data lines with "\n" and no line holds a line end:
        # one `data:` line per part gives the same data back (one space after the colon is
        # what a reader strips, so a part that begins with a space keeps it).
        lines.extend(f"data: {part}" for part in entry.data.split("\n"))
        return "\n".join(lines) + "\n\n"

    def close(self) -> None:
        """Write what waited, and close the file (everything written is already flushed)."""
        if not self._file.closed:
            self._release(everything=True)
        self._file.close()


@dataclass(frozen=True, slots=True)
class Recording:
    """A file read back: its entries, and whether `Recorder` wrote it (with markers)."""

    entries: list[Entry]
    marked: bool
    """True for a recording (its notices are comments); False for a bare capture, whose
    malformed frames must give their warnings when folded."""


def read_recording(text: str) -> Recording:
    """The entries of an SSE file, in order; frames carry their recorded time in ``at``."""
    reader = RecordingReader()
    entries = [*reader.feed(text), *reader.close()]
    return Recording(entries, reader.marked)


class RecordingReader:
    """`read_recording` a piece at a time, for a file still being written (``render -``
    reading a pipe): each `feed` gives the entries its complete lines finish."""

    def __init__(self) -> None:
        self._decoder = SSEDecoder()
        self._at: float | None = None
        self._run: str | None = None
        self._partial = ""
        self._after_cr = False
        self._started = False
        self.marked = False
        """Whether the input began with `HEADER` (known once the first line arrived)."""

    @property
    def begun(self) -> bool:
        """Whether the first line has been read (so `marked` is known)."""
        return self._started

    def feed(self, text: str) -> list[Entry]:
        """The entries completed by ``text`` (a line cut short waits for the rest)."""
        if self._after_cr and text.startswith("\n"):
            text = text[1:]  # the second half of a CRLF cut between two pieces
        self._after_cr = text.endswith("\r")
        lines = _LINE_END.split(self._partial + text)
        self._partial = lines.pop()
        found: list[Entry] = []
        for line in lines:
            found.extend(self._line(line))
        return found

    def close(self) -> list[Entry]:
        """The end of the input: the last line, and a frame it left open."""
        found = self._line(self._partial) if self._partial else []
        self._partial = ""
        return [*found, *self._frames(self._decoder.close())]

    def _line(self, line: str) -> list[Entry]:
        if not self._started:
            self._started = True
            self.marked = line.startswith(HEADER)
        if line.startswith(":"):
            kind, _, rest = line[1:].strip().partition(" ")
            if kind == "at":
                with contextlib.suppress(ValueError):
                    self._at = float(rest)
                return []
            if kind in _MARKERS:
                entry = _marker(kind, rest)
                if entry is None:
                    return []
                self._run = entry.run if entry.kind == "run" else self._run
                return [entry]
        return self._frames(self._decoder.feed(line + "\n"))

    def _frames(self, found: list[Any]) -> list[Entry]:
        entries = []
        for frame in found:
            meta: dict[str, Any] = {}
            if frame.problem is not None:
                meta["problem"] = frame.problem
            if frame.retry is not None:
                meta["retry"] = frame.retry
            stamp = self._at if self._at is not None else _timestamp(frame.data)
            entries.append(
                Entry(
                    "frame",
                    frame.data,
                    run=self._run,
                    label=frame.event,
                    frame_id=frame.id,
                    meta=meta,
                    at=stamp,
                )
            )
        return entries


def _marker(kind: str, text: str) -> Entry | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if kind == "user" and isinstance(value, str):
        return Entry("user", value)
    if not isinstance(value, dict):
        return None
    run = value.get("run") if isinstance(value.get("run"), str) else None
    if kind == "notice":
        return Entry("notice", str(value.get("text", "")), label=str(value.get("level", "info")))
    if kind == "run":
        meta = {"workflow": value.get("workflow") or ""}
        if isinstance(value.get("host"), str):
            meta["host"] = value["host"]  # the host that ran it, as `Recorder` wrote it
        return Entry("run", run=run, meta=meta)
    if kind == "end":
        meta = {"status": value["status"]} if isinstance(value.get("status"), str) else {}
        return Entry("end", run=run, meta=meta)
    if kind == "snapshot":
        return Entry("snapshot", json.dumps(value.get("snapshot")), run=run)
    return None


def _timestamp(data: str) -> float:
    """The event's own ``timestamp`` (ISO 8601) as epoch seconds, or 0 when it has none."""
    if '"timestamp"' not in data:
        return 0.0
    try:
        doc = json.loads(data)
        stamp = doc.get("timestamp") if isinstance(doc, dict) else None
        if not isinstance(stamp, str):
            return 0.0
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (ValueError, TypeError, OverflowError, RecursionError):
        return 0.0


Sleep = Callable[[float], Awaitable[Any]]


async def replay_frames(
    path: Path, speed: float = 1.0, *, sleep: Sleep = asyncio.sleep
) -> AsyncIterator[Entry]:
    """The entries of the recording at ``path``, each when it is due: the recorded gap between
    two frames divided by ``speed`` (``0``: all at once; ``2``: twice as fast). Raises
    `OSError` when the file cannot be read."""
    text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
    previous: float | None = None
    for entry in read_recording(text).entries:
        if entry.kind == "frame" and (entry.at or previous is None):
            if previous is not None and speed > 0 and entry.at > previous:
                await sleep((entry.at - previous) / speed)
            previous = entry.at
        yield entry
