"""A gate that holds a background thread at its seam (the `between_steps` a reading thread calls
between two steps) until the test lets it go, so "while it is read" is a state the test holds,
not a race it hopes to win."""

from __future__ import annotations

import threading


class Gate:
    """Holds the thread at its seam until `release` (and tells when it got there). Used as the
    seam itself (``monkeypatch.setattr(Owner, "between_steps", staticmethod(gate))``), and as a
    context manager inside the app's run, so the thread is let go before the app stops."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self._open = threading.Event()

    def __call__(self) -> None:
        self.reached.set()
        self._open.wait()

    def release(self) -> None:
        self._open.set()

    @property
    def held(self) -> bool:
        """Whether it still holds the thread (not released yet)."""
        return not self._open.is_set()

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        # Released before the app stops, also when the test failed: a thread held here would
        # keep the app (which waits for its workers) and the test's event loop from closing.
        self.release()
