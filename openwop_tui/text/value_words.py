"""JSON values as a person reads them on one line: ``query: cats, limit: 3``.

A tool's inputs, its returned outcome and the fields of an event the client has a sentence
for are all drawn with `words`, so they look alike: an object's fields as ``key: value``
separated by commas, a nested object in parentheses, a list as its items separated by commas
(long lists say how many more), strings bare unless they would read ambiguously (empty, holding
a separator, or spelling a number or a boolean), booleans as ``yes`` / ``no``. No braces or
brackets: a line that shows ``{"`` is raw JSON, which this module never writes.

`words` is bounded: it stops walking once ``limit`` characters are written (a huge outcome
costs its first few hundred characters, never a full serialisation), and nesting past
`MAX_DEPTH` shows as ``…``. The text is not cleaned for the terminal (callers that draw it pass
host text through `openwop_tui.text.sanitize.clean`, or it is cleaned already at the boundary).
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

#: Nesting shown before ``…`` stands for the rest.
MAX_DEPTH = 4

#: Items of a list shown before ``… N more``.
LIST_ITEMS = 8

_AMBIGUOUS = re.compile(r"^(?:-?[0-9][0-9.eE+-]*|true|false|null|yes|no|none)$", re.IGNORECASE)
_SEPARATORS = (", ", ": ", "(", ")", "\n")


class _Out:
    """Text written so far, and whether the budget ran out."""

    __slots__ = ("full", "limit", "parts", "size")

    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.full = False

    def add(self, text: str) -> None:
        if self.full:
            return
        room = self.limit - self.size
        if len(text) > room:
            self.parts.append(text[: max(room - 1, 0)] + "…")
            self.size = self.limit
            self.full = True
            return
        self.parts.append(text)
        self.size += len(text)


def number_words(value: float | int) -> str:
    """``3``, ``0.25``, ``1e+21``: integers without a fraction, others in short form."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def _scalar(value: Any) -> str | None:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return number_words(value)
    if isinstance(value, str):
        if not value or _AMBIGUOUS.match(value) or any(s in value for s in _SEPARATORS):
            # Quoted so "" or "3" or "a, b" cannot read as something else; a quote inside is
            # doubled, not escaped JSON-style.
            return '"' + value.replace('"', '""') + '"'
        return value
    return None


def _walk(value: Any, out: _Out, depth: int) -> None:
    if out.full:
        return
    scalar = _scalar(value)
    if scalar is not None:
        out.add(scalar)
        return
    if depth >= MAX_DEPTH:
        out.add("…")
        return
    if isinstance(value, Mapping):
        if not value:
            out.add("nothing")
            return
        for index, (key, item) in enumerate(value.items()):
            if out.full:
                return
            if index:
                out.add(", ")
            out.add(f"{key}: ")
            _nested(item, out, depth + 1)
        return
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        if not value:
            out.add("none")
            return
        for index, item in enumerate(value[:LIST_ITEMS]):
            if out.full:
                return
            if index:
                out.add(", ")
            _nested(item, out, depth + 1)
        if len(value) > LIST_ITEMS:
            out.add(f", … {len(value) - LIST_ITEMS} more")
        return
    out.add(str(value))


def _nested(value: Any, out: _Out, depth: int) -> None:
    """A value inside an object or a list: a non-empty object or list in parentheses."""
    if isinstance(value, Mapping | list | tuple) and value and depth < MAX_DEPTH:
        out.add("(")
        _walk(value, out, depth)
        out.add(")")
    else:
        _walk(value, out, depth)


def words(value: Any, limit: int = 200) -> str:
    """``value`` on one line of at most ``limit`` characters (see the module docstring)."""
    out = _Out(max(limit, 1))
    _walk(value, out, 0)
    return "".join(out.parts)


def listed(values: Any, limit: int = 10) -> str | None:
    """The strings of a list joined with commas (``a, b, … 3 more``); ``None`` for no list."""
    if not isinstance(values, list) or not values:
        return None
    shown = [str(v) for v in values[:limit]]
    more = f", … {len(values) - limit} more" if len(values) > limit else ""
    return ", ".join(shown) + more


def milliseconds(value: Any) -> str | None:
    """A host's ``durationMs`` as people read it: ``830 ms``, ``2.4 s``, ``3 min 5 s``;
    ``None`` for anything that is not a finite, non-negative number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    ms = float(value)
    if ms != ms or ms < 0 or ms == float("inf"):
        return None
    if ms < 1000:
        return f"{ms:.0f} ms" if ms >= 1 or ms == 0 else f"{ms:.2g} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
