"""Sizes, durations and one-line JSON as people read them, one convention everywhere.

Decimal units (1 KB = 1,000 bytes, as HTTP and file managers count), one decimal, with the exact
byte count in parentheses where it matters: ``184.3 KB (184,320 bytes)``.
"""

from __future__ import annotations

import json
from typing import Any


def human_size(size: int) -> str:
    """``184.3 KB``; plain ``70 bytes`` below a kilobyte."""
    if size < 1000:
        return f"{size} byte" if size == 1 else f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 999.95:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} TB"


def exact_size(size: int) -> str:
    """``184.3 KB (184,320 bytes)``; just ``70 bytes`` when the short form is already exact."""
    short = human_size(size)
    return short if size < 1000 else f"{short} ({size:,} bytes)"


def duration(seconds: float) -> str:
    """``0:03.2``, ``1:02:03.0``: minutes and tenths of seconds, hours only when needed."""
    whole, tenth = divmod(round(max(seconds, 0.0) * 10), 10)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}.{tenth}"
    return f"{minutes}:{secs:02d}.{tenth}"


def compact_json(value: Any, limit: int = 200) -> str:
    """One line of JSON for a summary line, cut with an ellipsis past ``limit`` characters.

    Not cleaned for the terminal: callers that draw it pass it through `sanitize.clean`.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    except (TypeError, ValueError):  # a hand-built value may hold anything, even a cycle
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
