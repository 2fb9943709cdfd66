"""The chat history each run left, kept per run, so a long session can be continued before it
is read.

A message is sent with the whole history of its session (``inputs.messages``). That history is
what folding the log gives (`openwop_tui.core.chat_history`), so a session opened newest first
could only take a message once all of it was folded again: 10 s and more at 3,000 turns when
no kept fold holds (an upgrade changed the fold, or the file came from another machine). So
each run's effect on the history is kept beside the log, one row per run (``histories``):

- ``start``: the ``seq`` of the run's ``run`` entry;
- ``before``: how many messages the history held when the run began (an exchange replaced
  between two runs left fewer than the run before ended with: the history only ever loses
  its newest messages, so a length says all of it);
- ``messages``: what the run added (the user's message its creation took in, and the reply);
  a message with attachments keeps its content parts (`openwop_tui.protocol.content_parts`).

The history before any run is then those rows laid in order (each cuts the list to its
``before``, then adds its messages): `before`, which also says when it cannot be told (a run
in the log has no row: a session written before rows were kept, or a row that could not be
written). Unlike a kept fold, a row does not depend on the fold's code (its version is this
module's `HISTORY_VERSION`): it is what the history was, which an upgrade does not change.

A row is a cache: deleting it only makes the next long open wait for its reading again before
a message goes (the reading writes the missing rows). The table is created when missing,
without a schema version change, so an older openwop-tui still opens the file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from openwop_tui.store.sqlite_facts import has

#: Bumped when a row's meaning changes (never for a change of the fold's).
HISTORY_VERSION = 1

HISTORIES_TABLE = """
CREATE TABLE IF NOT EXISTS histories (
    session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    start INTEGER NOT NULL,
    version INTEGER NOT NULL,
    before INTEGER NOT NULL,
    messages TEXT NOT NULL,
    PRIMARY KEY (session, start)
)
"""

#: ``{"role", "content"}``: the content a string, or a list of content parts.
Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """What one run did to the chat history."""

    start: int
    """The ``seq`` of the run's ``run`` entry."""
    before: int
    """Messages the history held as the run began."""
    messages: tuple[tuple[str, Any], ...]
    """``(role, content)`` of each message the run added, in order."""

    @classmethod
    def of(cls, start: int, before: int, messages: Iterable[Message]) -> HistoryRow:
        """A row from the history's own messages (``{"role", "content"}``)."""
        return cls(start, before, tuple((m["role"], m["content"]) for m in messages))


def has_table(db: sqlite3.Connection) -> bool:
    """Whether the file has the ``histories`` table yet."""
    return has(db, "table", "histories")


def starts(db: sqlite3.Connection, session_id: str) -> set[int]:
    """The runs (their ``start``) of ``session_id`` that have a row of this version."""
    rows = db.execute(
        "SELECT start FROM histories WHERE session = ? AND version = ?",
        (session_id, HISTORY_VERSION),
    )
    return {int(start) for (start,) in rows}


def write(
    db: sqlite3.Connection, session_id: str, rows: Sequence[HistoryRow], *, replace: bool = False
) -> None:
    """Keep ``rows`` (inside the caller's transaction); a run that has one keeps it.

    Args:
        db: The sessions database.
        session_id: The session the rows belong to.
        rows: The runs' chat histories to keep.
        replace: True for a run made live, whose rows replace those kept (what it did is known best
            as it ends).
    """
    verb = "REPLACE" if replace else "IGNORE"
    db.executemany(
        f"INSERT OR {verb} INTO histories (session, start, version, before, messages) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (
                session_id,
                row.start,
                HISTORY_VERSION,
                row.before,
                json.dumps([list(m) for m in row.messages], ensure_ascii=False),
            )
            for row in rows
        ],
    )


def before(db: sqlite3.Connection, session_id: str, since: int) -> list[Message] | None:
    """The chat history as the run whose ``run`` entry is at ``since`` began, from the rows
    alone; ``None`` when they cannot tell (a run up to and including that one has no row, or
    the rows do not fit together)."""
    runs = [
        int(seq)
        for (seq,) in db.execute(
            "SELECT seq FROM entries WHERE session = ? AND kind = 'run' AND seq <= ? ORDER BY seq",
            (session_id, since),
        )
    ]
    if not runs or runs[-1] != since:
        return None
    found = db.execute(
        "SELECT start, before, messages FROM histories "
        "WHERE session = ? AND version = ? AND start <= ? ORDER BY start",
        (session_id, HISTORY_VERSION, since),
    )
    rows = {int(start): (int(count), text) for start, count, text in found}
    if any(seq not in rows for seq in runs):
        return None
    history: list[Message] = []
    for seq in runs:
        count, text = rows[seq]
        if count > len(history):
            return None  # (a row that does not follow the ones before it)
        del history[count:]
        if seq == since:
            return history  # as that run began: what it added is folded with it
        added = _messages(text)
        if added is None:
            return None
        history.extend(added)
    return history


def _messages(text: str) -> list[Message] | None:
    """A row's messages, or ``None`` when it holds something else."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    messages: list[Message] = []
    for pair in value:
        if not (
            isinstance(pair, list)
            and len(pair) == 2
            and pair[0] in ("user", "assistant")
            and _content(pair[1])
        ):
            return None
        messages.append({"role": pair[0], "content": pair[1]})
    return messages


def _content(value: Any) -> bool:
    """Whether ``value`` is a message's content: a string, or a list of parts (objects with a
    string ``type``)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list) and all(
        isinstance(part, dict) and isinstance(part.get("type"), str) for part in value
    )
