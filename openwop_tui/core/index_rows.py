"""The search index's rows of a transcript: each user message and reply with its text.

The index (`openwop_tui.store.search`) holds the words a person would look for: their messages
and the replies as the transcript shows them (the fold's text: what a streamed reply added up
to, directives read, never the raw frames, JSON or base64 it came in). The store cannot fold,
so the rows are made here, from items: live by `openwop_tui.core.reopen.FoldKeeper`, for a
stored session by `openwop_tui.core.indexing.build`.
"""

from __future__ import annotations

from collections.abc import Sequence

from openwop_tui.core.items import AssistantTurn, UserTurn
from openwop_tui.store.search import IndexRow

__all__ = ["row_of", "rows_of", "user_rows"]


def row_of(item: object, place: int) -> IndexRow | None:
    """The index row of ``item`` (at ``place`` in its transcript): a user message or a reply
    with text, else ``None``."""
    if isinstance(item, UserTurn) and item.text.strip():
        return IndexRow(item.id, place, "user", str(item.text))
    if isinstance(item, AssistantTurn) and item.text.strip():
        return IndexRow(item.id, place, "assistant", str(item.text))
    return None


def rows_of(items: Sequence[object], start: int = 0) -> list[IndexRow]:
    """The rows of ``items``, the first at place ``start``."""
    rows = (row_of(item, start + offset) for offset, item in enumerate(items))
    return [row for row in rows if row is not None]


def user_rows(items: Sequence[object]) -> list[IndexRow]:
    """The rows of the user's messages since the last reply: what a run that just began
    answers (and any message sent before it that no run answered: a host that was down)."""
    rows: list[IndexRow] = []
    for place in range(len(items) - 1, -1, -1):
        item = items[place]
        if isinstance(item, AssistantTurn):
            break
        row = row_of(item, place) if isinstance(item, UserTurn) else None
        if row is not None:
            rows.append(row)
    return rows[::-1]
