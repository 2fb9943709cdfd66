"""Printed text without the spaces Rich pads each line with, where they show nothing.

Rich pads a rendered line to the console's width (a Markdown paragraph, a code block, a
panel), which on a terminal is invisible, but in a pipe or a file left a third of the lines of
``run demo.tour | less`` ending in spaces (trailing-whitespace checks, ``diff``, copying).
Where the output has no colour (nothing a space could paint) `TrimmedLines` drops the spaces
before each line's end as the text goes through; spaces inside a line, and the last line's
until it is ended or flushed (a prompt's "answer: "), are kept.
"""

from __future__ import annotations

from typing import TextIO

__all__ = ["TrimmedLines"]


class TrimmedLines:
    """A text stream that writes to ``file`` without spaces at the end of a line."""

    def __init__(self, file: TextIO) -> None:
        self._file = file
        self._held = ""
        """Spaces at the end of what was written, not yet known to end a line."""

    def write(self, text: str) -> int:
        lines = (self._held + text).split("\n")
        last = lines.pop()
        kept = last.rstrip(" ")
        self._held = last[len(kept) :]
        done = "".join(line.rstrip(" ") + "\n" for line in lines)
        self._file.write(done + kept)
        return len(text)

    def flush(self) -> None:
        """Write what is held too (a line left open is the reader's now: a prompt)."""
        if self._held:
            self._file.write(self._held)
            self._held = ""
        self._file.flush()

    def isatty(self) -> bool:
        return self._file.isatty()

    def fileno(self) -> int:
        return self._file.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._file, "encoding", "utf-8")
