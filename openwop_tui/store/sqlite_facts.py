"""What a sessions file says of itself: its schema mark and the tables and indexes it has.

Every part of the store that adds a table or index to an older file, or converts it, asks
these before it acts; one way of asking, instead of a query written out in each.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

__all__ = ["has", "user_version"]


def user_version(db: sqlite3.Connection) -> int:
    """The file's schema mark (``PRAGMA user_version``; 0 for a new file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def has(db: sqlite3.Connection, kind: Literal["table", "index"], name: str) -> bool:
    """Whether the file has the table or index ``name`` yet (a file from before it has not)."""
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name))
    return found.fetchone() is not None
