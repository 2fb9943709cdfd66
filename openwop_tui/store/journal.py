"""Entries the store could not take, kept in a file until the next start writes them in.

When the disk under the store is full, appends wait in the store's batch
(`openwop_tui.store.batch`). Quitting then would lose them, so the app writes them here instead
(asked, at Ctrl+Q; unasked, at SIGTERM, SIGHUP or SIGINT): a journal file, one JSON document,
in the ``journal`` folder beside the database, or in the state folder when the data folder
takes no file at all. The next `Store` opened on that database writes every journal naming it
into the store, in one transaction each, and removes it.

A journal holds the rows exactly as the database would: already masked (the store masks the
API key and URL credentials before anything waits in its batch), so no key is ever in one.
Each is written atomically (a temporary file, synced, then renamed): a journal that exists is
whole. A journal is taken by renaming it while the database's write lock is held, so two
programs starting at once never write the same one twice.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openwop_tui.store.batch import NewSession, Row, write_rows, write_sessions

#: The format of a journal file (``"journal"`` in it).
FORMAT = 1
#: What a journal file's name begins with.
PREFIX = "unstored-"
#: What a journal being written, or being taken, ends with (never read as a journal).
_TEMPORARY = ".tmp"
_TAKEN = ".taking"


@dataclass(frozen=True, slots=True)
class Held:
    """What a journal keeps: sessions to create and rows to append, for the store at ``store``."""

    store: str
    sessions: list[NewSession]
    rows: list[Row]

    def __len__(self) -> int:
        return len(self.rows)


def name() -> str:
    """A fresh journal file name: when, and which process (two programs never collide)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"{PREFIX}{stamp}-{os.getpid()}-{secrets.token_hex(3)}.json"


def room(folder: Path) -> int | None:
    """Bytes free on the filesystem ``folder`` is (or would be) on; ``None`` when unknown."""
    for place in (folder, *folder.parents):
        try:
            stats = os.statvfs(place)
        except (OSError, AttributeError):  # not there yet (its parent is asked), or Windows
            continue
        return stats.f_bavail * stats.f_frsize
    return None


def size_of(rows: list[Row]) -> int:
    """About the bytes a journal of ``rows`` takes (base64 and JSON around each row's data)."""
    return sum(len(row.data) * 4 // 3 + 256 for row in rows) + 4096


def write(target: Path, held: Held) -> None:
    """Write ``held`` to ``target`` atomically, readable by its owner only. Raises `OSError`
    (a full disk, an unwritable folder); nothing is left behind then."""
    document = {
        "journal": FORMAT,
        "store": held.store,
        "written": time.time(),
        "sessions": [
            {
                "id": s.id,
                "title": s.title,
                "host": s.host,
                "workflow": s.workflow,
                "created": s.created,
            }
            for s in held.sessions
        ],
        "rows": [_row_json(row) for row in held.rows],
    }
    data = json.dumps(document, ensure_ascii=True).encode("ascii")
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}{_TEMPORARY}")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (where the platform can sync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _row_json(row: Row) -> dict[str, Any]:
    return {
        "session": row.session,
        "at": row.at,
        "kind": row.kind,
        "run": row.run,
        "label": row.label,
        "frame_id": row.frame_id,
        # The bytes as the database keeps them (UTF-8, or deflated): exactly, in ASCII.
        "data": base64.b64encode(row.data).decode("ascii"),
        "meta": row.meta,
        "title": row.title,
    }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read(path: Path) -> Held:
    """The journal at ``path``. Raises `OSError`, or `ValueError` for a file that is not one."""
    document = json.loads(path.read_bytes())
    if not isinstance(document, dict) or document.get("journal") != FORMAT:
        raise ValueError(f"{path} is not an openwop-tui journal")
    sessions = [
        NewSession(
            str(s["id"]),
            str(s.get("title", "")),
            str(s.get("host", "")),
            str(s.get("workflow", "")),
            float(s["created"]),
        )
        for s in document.get("sessions", [])
    ]
    rows = [
        Row(
            str(r["session"]),
            float(r["at"]),
            str(r["kind"]),
            _text(r.get("run")),
            _text(r.get("label")),
            _text(r.get("frame_id")),
            base64.b64decode(str(r["data"]), validate=True),
            _text(r.get("meta")),
            str(r.get("title", "")),
        )
        for r in document.get("rows", [])
    ]
    return Held(str(document.get("store", "")), sessions, rows)


def found(folders: tuple[Path, ...]) -> Iterator[Path]:
    """The journal files in ``folders``, oldest first within each."""
    for folder in folders:
        try:
            names = sorted(
                p.name
                for p in folder.iterdir()
                if p.name.startswith(PREFIX) and p.name.endswith(".json")
            )
        except OSError:
            continue
        for each in names:
            yield folder / each


@dataclass(frozen=True, slots=True)
class Restored:
    """A journal written into the store: from where, how many entries, and those not kept."""

    path: Path
    claimed: Path
    """Where it was moved while it is written in: removed once the transaction commits, moved
    back (`give_back`) if it does not."""
    entries: int
    messages: int
    """Of the entries, the user's messages (what a user counts)."""
    skipped: int
    """Entries of sessions deleted since (not written)."""


def take(
    db: sqlite3.Connection, path: Path, store: str, prepare: Callable[[Held], None]
) -> Restored | None:
    """Write the journal at ``path`` into ``db`` when it names ``store``, then remove it.

    Returns None when it is not this store's, or another program took it first.

    Inside the caller's transaction, which holds the database's write lock: the journal is claimed
    by a rename first (only one program's rename succeeds), and put back if what follows fails, so
    it is neither written twice nor lost. Raises `OSError`, `ValueError` (a damaged journal) or
    `sqlite3.Error`.

    Args:
        db: The sessions database, inside a write transaction.
        path: The journal file.
        store: The name of the store this program keeps; a journal naming another is left alone.
        prepare: Readies the database for the journal's rows, called before they are written.
    """
    held = read(path)
    if held.store != store:
        return None
    claimed = path.with_name(f"{path.name}.{os.getpid()}{_TAKEN}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None  # another program took it while this one read it
    try:
        prepare(held)
        write_sessions(db, held.sessions)
        missing = write_rows(db, held.rows)
    except BaseException:
        os.rename(claimed, path)
        raise
    kept = [row for row in held.rows if row.session not in missing]
    messages = sum(1 for row in kept if row.kind == "user")
    return Restored(path, claimed, len(kept), messages, len(held.rows) - len(kept))


def give_back(restored: Restored) -> None:
    """The transaction that took ``restored`` failed: the journal is there again for the next
    start."""
    os.rename(restored.claimed, restored.path)
