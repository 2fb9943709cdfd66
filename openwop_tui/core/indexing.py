"""What the search index holds of a conversation, and indexing the sessions stored before it.

The index (`openwop_tui.store.search`) holds each user message and reply as the transcript
shows it (`openwop_tui.core.index_rows`). Live, `openwop_tui.core.reopen.FoldKeeper` hands the
rows to the stored session as the log is written: the user's message as its run begins, the
replies as it ends. A session written
before the index existed (or by an older version, or with a run the app was killed in) is
folded back from its log and indexed whole (`build`), a session at a time (`pending`), so a
long store is indexed in the background while the app is used.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

from openwop_tui.core.index_rows import rows_of
from openwop_tui.core.opening import opening
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store

__all__ = ["build", "pending"]

log = logging.getLogger(__name__)


def build(store: Store, session_id: str, *, between: Callable[[], None] = lambda: None) -> int:
    """Index stored session ``session_id`` whole, from its fold (its kept runs restored, the
    rest folded); how many rows. ``between`` is called between two steps of the fold (a few
    milliseconds each: the app's thread waits there while keys are typed; it may raise to stop
    the build). Raises `StoreError`."""
    through = store.info(session_id).entries  # (what is appended meanwhile: the next build)
    chat, steps = opening(store, session_id)
    for _ in steps:
        between()
    rows = rows_of(chat.transcript.items)
    store.reindex(session_id, rows, through=through)
    return len(rows)


def pending(store: Store, *, skip: Callable[[], set[str]] = set) -> Iterator[str]:
    """Index every session whose index is behind its log, the most recently updated first,
    one `build` per step; each step gives the session it indexed. A session that cannot be
    read is left (logged), to be tried again at the next start.

    Args:
        store: The store (its own connection: the steps may run in a thread).
        skip: The sessions not to index now (open in the app: written live).
    """
    for session_id in store.unindexed():
        if session_id in skip():
            continue
        try:
            build(store, session_id)
        except StoreError as error:
            log.warning("session %s could not be indexed for search: %s", session_id, error)
            continue
        yield session_id
