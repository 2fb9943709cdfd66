"""A host's ``Retry-After``, read in both its forms, and waits put in words.

RFC 9110 §10.2.3 allows ``Retry-After: 120`` (delta-seconds) and ``Retry-After: Fri, 31 Dec 1999
23:59:59 GMT`` (an HTTP-date). A date is measured against the answer's own ``Date`` header when
it has one, so a client whose clock is off still waits what the host meant; else against this
machine's clock. Anything else (``soon``, ``-5``, ``inf``, ``nan``) is no ``Retry-After`` at all,
and the caller's own backoff decides. The value is not clamped here:
`openwop_tui.protocol.reconnect` decides how much of a host's wish it honours, and says so.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC
from email.utils import parsedate_to_datetime

__all__ = ["parse_retry_after", "span"]

_DELTA = re.compile(r"\d{1,30}(?:\.\d{1,9})?")
"""Digits only (a fraction tolerated): ``float()`` would also take ``inf``, ``nan`` and ``1e9``."""


def parse_retry_after(
    value: str | None, date: str | None = None, now: Callable[[], float] = time.time
) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (never negative), or ``None`` when absent
    or unreadable. ``date``: the answer's ``Date`` header; ``now``: this machine's wall clock,
    used only for an HTTP-date when the answer has no readable ``Date``."""
    if value is None:
        return None
    value = value.strip()
    if _DELTA.fullmatch(value):
        return float(value)
    until = _http_date(value)
    if until is None:
        return None
    sent = _http_date(date) if date is not None else None
    return max(0.0, until - (sent if sent is not None else now()))


def _http_date(value: str) -> float | None:
    """An HTTP-date as a POSIX timestamp, or ``None``."""
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:  # ``-0000`` or no zone at all: HTTP dates are always GMT
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def span(seconds: float) -> str:
    """A wait or an elapsed time in words: ``0.5 s``, ``90 s`` → ``1 min 30 s``, ``2 h 5 min``,
    ``3 days``, ``31 years``."""
    if seconds < 10 and seconds != round(seconds):
        return f"{seconds:.1f} s"
    whole = round(seconds)
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{whole} s"
    if minutes < 60:
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    days = hours // 24
    if days < 730:
        return f"{days} days"
    return f"{days // 365:,} years"
