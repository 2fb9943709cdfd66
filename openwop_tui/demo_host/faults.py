"""Fault injection for the demo host's event streams, so a client's recovery can be tried out.

``openwop-tui demo-host --drop-every N --garbage-every M --stall-ms S --status CODE
--status-times T`` and the `DemoHost` keywords of the same names (0 / ``None``: off):

* ``drop_every``: each event-stream connection sends N events whole, then half of the next
  frame, then closes: a disconnect in the middle of a frame, with the run still going.
* ``garbage_every``: after every M events a connection sends a frame that is not JSON.
* ``stall_ms``: a pause of S ms before each event frame (with keep-alives off, the stream is
  then silent for that long: a client's idle timeout can be seen at work).
* ``status``: the first events request of each run is answered with this status (503 and 429
  with ``Retry-After: 1``), later ones normally; ``status_times`` (default 1): the first T
  requests are, so a client's reconnect budget can be tried out (eight 503s in a row).

Thread-safe: one `Faults` serves every connection of a host.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

#: What a ``garbage_every`` frame looks like: an event whose data is not JSON.
GARBAGE_FRAME = 'event: garbage\ndata: {"injected": garbage, not JSON\n\n'

#: The error code and message of an injected status (protocol.md §2.6 shape).
_CODES = {429: "rate_limited", 500: "internal_error", 502: "bad_gateway", 503: "runner_unavailable"}


@dataclass(slots=True)
class Faults:
    """Which faults to inject; see the module docstring. Raises `ValueError` on nonsense."""

    drop_every: int = 0
    garbage_every: int = 0
    stall_ms: int = 0
    status: int | None = None
    status_times: int = 1
    _answered: dict[str, int] = field(default_factory=dict, repr=False)
    """How many events requests of each run got the injected status."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        for name in ("drop_every", "garbage_every", "stall_ms", "status_times"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError("the injected status must be an error status, 400 to 599")

    @property
    def active(self) -> bool:
        """Whether any fault is configured."""
        return bool(self.drop_every or self.garbage_every or self.stall_ms or self.status)

    def describe(self) -> str:
        """One line for the demo host's banner: the faults it injects."""
        parts = []
        if self.drop_every:
            parts.append(f"drops each event stream after {self.drop_every} events")
        if self.garbage_every:
            parts.append(f"a malformed frame every {self.garbage_every} events")
        if self.stall_ms:
            parts.append(f"{self.stall_ms} ms before each event")
        if self.status:
            first = (
                "first events request"
                if self.status_times == 1
                else f"first {self.status_times} events requests"
            )
            parts.append(f"answers each run's {first} with {self.status}")
        return "; ".join(parts) or "none"

    def take_status(self, run_id: str) -> tuple[int, str, dict[str, str]] | None:
        """The injected answer for this run's events request (the first ``status_times`` per
        run), else ``None``: the status, the error code and the headers to send."""
        if self.status is None:
            return None
        with self._lock:
            count = self._answered.get(run_id, 0)
            if count >= self.status_times:
                return None
            self._answered[run_id] = count + 1
        headers = {"Retry-After": "1"} if self.status in (429, 503) else {}
        return self.status, _CODES.get(self.status, "fault_injected"), headers
