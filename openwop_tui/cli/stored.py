"""Opening the store from the command line: the session ``--session``/``--continue`` names.

Apart from `openwop_tui.cli.sessions` (the ``sessions``/``export`` commands, which print with
Rich and the renderers): the app's start imports this before its first frame, and importing
those with it cost 0.2 s of a reopened session's start (issue 26).
"""

from __future__ import annotations

import sys

from openwop_tui.store.database import StoreError
from openwop_tui.store.records import SessionInfo
from openwop_tui.store.sessions import Store

__all__ = ["chosen_session", "opened"]


def opened(store: Store) -> Store:
    """``store``, its conversion said on stderr if opening it converted it (where the copy of
    the file as it was is) or could not (`openwop_tui.store.database.Database.converted`)."""
    if store.converted:
        warning = "warning: " if store.conversion_failed else ""
        print(f"openwop-tui: {warning}{store.converted}", file=sys.stderr)
    if store.search_added:
        print(f"openwop-tui: {store.search_added}", file=sys.stderr)
    return store


def chosen_session(session_id: str | None, *, api_key: str | None) -> SessionInfo:
    """The session ``--session ID`` names, or with ``None`` the latest (``--continue``);
    `StoreError` with the sentence to show when there is none."""
    with opened(Store(secrets=[api_key])) as store:
        if session_id is not None:
            return store.info(session_id)
        found = store.latest()
        if found is None:
            raise StoreError("there is no stored session to continue yet")
        return found
