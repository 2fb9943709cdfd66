"""Opening a session kept in a store: the one way into a stored conversation.

`stored` folds a session back from its log (or makes a new one) and gives the `Conversation`
that continues it; `opening` gives the same a step at a time, so a front end can read it off
the event loop; `newest_runs` folds only a long session's last runs, to show them while the
rest is read (`openwop_tui.ui.controllers.reopening`). Kept folds are restored rather than
folded again, and each run's effect on the chat history is read from its kept row
(`openwop_tui.core.reopen`, `openwop_tui.store.histories`). No host is contacted here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Limits
from openwop_tui.core.origins import host_url
from openwop_tui.core.own_media import read_logged
from openwop_tui.core.reopen import FoldKeeper, Part, reopening
from openwop_tui.core.session import Session
from openwop_tui.core.updates import EventLog
from openwop_tui.store.sessions import SessionLog, Store

__all__ = ["NewestRuns", "Opening", "newest_runs", "opening", "stored"]


class Opening(TypedDict, total=False):
    """How `stored` and `opening` open a conversation kept in a store (every key optional)."""

    session: Session | None
    """The host connection the next `Conversation.send` goes through."""
    host: str
    """The host a new session records (without credentials)."""
    workflow: str
    limits: Limits | None
    secrets: Iterable[str]
    logs: Sequence[EventLog]
    """More logs to append to (a recording)."""
    resume: bool
    """A run the log leaves open stays open (`Conversation.catch_up` continues it) instead of
    being settled as cut."""


def stored(store: Store, session_id: str | None = None, **how: Unpack[Opening]) -> Conversation:
    """A conversation kept in ``store``: session ``session_id`` folded back from its log
    (without contacting the host; the next `send` through ``how["session"]`` continues it),
    or a new one (``None``, created at its first entry). Raises `StoreError` for an unknown
    id, or a log that cannot be read."""
    chat, steps = opening(store, session_id, **how)
    for _ in steps:
        pass
    return chat


def opening(
    store: Store, session_id: str | None = None, **how: Unpack[Opening]
) -> tuple[Conversation, Iterator[None]]:
    """`stored`, read a step at a time: the conversation, and the steps that fold session
    ``session_id`` into it (`openwop_tui.core.reopen.reopening`; none for a new one). Until
    the last step the conversation is incomplete: show it, or send through it, only after.
    Raises `StoreError` for an unknown id; a step, for a log that cannot be read."""
    host, workflow = how.get("host", ""), how.get("workflow", "")
    session, limits = how.get("session"), how.get("limits")
    secrets, logs = how.get("secrets", ()), how.get("logs", ())
    resume = how.get("resume", False)
    keep = SessionLog(store, session_id, host=host, workflow=workflow)
    chat = Conversation(session, logs=[keep, *logs], limits=limits, store=store, secrets=secrets)

    keeper = chat.keep_runs(keep)
    if session_id is None:
        return chat, iter(())
    # Runs logged before their entries named their host ran on the session's.
    chat.old_runs_host = host_url(store.info(session_id).host)
    # Kept runs are read back as items; only runs without a kept fold are folded.
    return chat, reopening(chat, store, session_id, keeper, resume=resume)


def newest_runs(
    store: Store,
    session_id: str,
    runs: int,
    *,
    limits: Limits | None = None,
    secrets: Iterable[str] = (),
    resume: bool = False,
) -> NewestRuns | None:
    """The last runs of a session (and what the log holds after them), folded on their own:
    what a long session shows while the rest is read (`opening`). ``None`` when the session has
    no more runs than ``runs`` (read it all at once).

    Folded alone, from the newest ``run`` entry's place on: its kept runs are restored
    whatever state they land on, nothing is kept, and no log is written. What it shows is the
    session's newest items when the state before them carries no further than the kept runs
    do (their ids and usage); the caller checks (`openwop_tui.core.reopen.same_items`). Its
    chat history is the whole session's when the history the runs before left is kept
    (`Store.history_before`): then it can take the session's next message at once. The parts
    of the log it read are kept (`NewestRuns.parts`): reading the rest of the session folds
    them from memory, so no part of the log is read twice.

    Args:
        store: The store the session is kept in.
        session_id: The stored session's id.
        runs: How many of the newest runs to fold (1: the last one only).
        limits: How much of each item is drawn; ``None`` for the defaults.
        secrets: Strings masked in decoded host data.
        resume: A run the log leaves open stays open (as for `opening`).
    """
    run = store.run_start(session_id, runs)
    if run is None:
        return None
    chat = Conversation(None, limits=limits, secrets=secrets)
    info = store.info(session_id)
    chat.old_runs_host = host_url(info.host)
    history = store.history_before(session_id, run)
    if history is not None:
        chat.chat.messages.extend(history)
        # The message that started the first run (logged before its ``run`` entry) joins the
        # history as the run begins, as it would have folded whole; it is not drawn (the
        # items' numbering begins with the first kept run's).
        message = store.message_before(session_id, run)
        if message is not None:
            chat.pending_user, chat.pending_parts = message.data, read_logged(message.meta).parts
    keeper = FoldKeeper(None, lambda _row: None, trusting=True)
    parts = tuple(store.outline(session_id, keeper.version, since=run, until=info.entries))
    steps = reopening(
        chat, store, session_id, keeper, resume=resume, since=run, until=run, then=parts
    )
    for _ in steps:
        pass
    return NewestRuns(chat, history is not None, run, info.entries, parts)


@dataclass(frozen=True, slots=True)
class NewestRuns:
    """A session's newest runs folded on their own (`newest_runs`)."""

    conversation: Conversation
    whole_history: bool
    """Its chat history is the whole session's (else only its own runs')."""
    since: int
    """The log position they begin at (their first ``run`` entry): the rest is read up to it."""
    until: int
    """The log position they were read up to, not including it (the log's end as it opened)."""
    parts: tuple[Part, ...]
    """The parts of the log from `since` to `until`, as read: the rest's reading folds them
    from here (`openwop_tui.core.reopen.reopening`'s ``then``)."""
