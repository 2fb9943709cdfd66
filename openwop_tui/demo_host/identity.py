"""Where the demo host's ids, tokens and clock come from.

By default: random ids, unguessable capability tokens and the real clock, as a host must. With
``deterministic=True`` the same sequence of requests yields the same run ids, event ids, asset
tokens and timestamps every time, so screenshots and SVG snapshots of the app can be compared
byte for byte. Deterministic tokens are guessable: never use that mode for anything but tests.
"""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


class Identity:
    """Ids, tokens and timestamps for one host."""

    def __init__(self, *, deterministic: bool = False) -> None:
        self.deterministic = deterministic
        self._lock = threading.Lock()
        self._counters: dict[str, int] = {}

    def _next(self, kind: str) -> int:
        with self._lock:
            value = self._counters.get(kind, 0) + 1
            self._counters[kind] = value
            return value

    def run_id(self) -> str:
        """A new run id, ``run_<20 hex>``."""
        if self.deterministic:
            return f"run_{self._next('run'):020x}"
        return f"run_{secrets.token_hex(10)}"

    def event_id(self) -> str:
        """A new event id, ``evt_<20 hex>``."""
        if self.deterministic:
            return f"evt_{self._next('event'):020x}"
        return f"evt_{secrets.token_hex(10)}"

    def token(self) -> str:
        """A new asset capability token: 32 random bytes, base64url (43 characters)."""
        if self.deterministic:
            return f"t{self._next('token'):042d}"
        return secrets.token_urlsafe(32)

    def now(self) -> str:
        """The current UTC time (ISO-8601, milliseconds, ``Z``); a ticking fixed clock when
        deterministic."""
        if self.deterministic:
            moment = _EPOCH + timedelta(milliseconds=10 * self._next("clock"))
        else:
            moment = datetime.now(UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
