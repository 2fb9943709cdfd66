"""Reopening a stored session from its kept folds: items read back, events folded only where
no fold of this version was kept.

Folding every stored event again on each open cost 15.6 s at 3,000 turns against 1.2 s for one.
So when a run ends, `FoldKeeper` keeps what the fold made of it (its items, the history it
added, the state it left) as one row beside the log (`openwop_tui.store.folds`), live and
while a session is reopened; `reopen` then reads the log with those runs given as rows
(`Store.outline`) and restores each, folding the events only of runs without one.

A row holds when, and only when, it was made by this fold (`fold_version`: a number bumped
with the fold's meaning, the package version, and the shape of every item class, so a changed
item cannot be read into the wrong fields) and onto the same state (`fingerprint`: ids,
status, usage, history length, limits, secrets, what the fold is waiting to see echoed). The
fold is pure, so the same state and the same events give the same result: a row that holds is
what folding would have given. Any other row is ignored and the run folded again (and kept).

A long session is shown newest first (`openwop_tui.ui.controllers.reopening`): its newest runs
are folded on their own (`openwop_tui.core.opening.newest_runs`, a `FoldKeeper` that
trusts its rows, from a ``run`` entry, so the ids and usage the first kept row carries are the
session's), drawn, and then the rest is read `reopening` a step at a time, between frames and
keys, up to where the newest runs begin, and their parts, kept in memory as they were read,
folded after it (``then``): each part of the log is read from the store once. `same_items`
tells whether the two agree (they do unless the newest runs have no kept row to start from);
the app keeps the first drawing only when they do.

Rows are pickles, read by `_Reader`, which builds only the classes of the transcript's own
item, envelope, event and interrupt modules: a database handed over by someone else can make
the open fall back to folding, never run code.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import hashlib
import importlib
import io
import itertools
import logging
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import openwop_tui
from openwop_tui.core import items as item_types
from openwop_tui.core.index_rows import rows_of, user_rows
from openwop_tui.store.database import StoreError
from openwop_tui.store.folds import FoldRow
from openwop_tui.store.histories import HistoryRow, Message
from openwop_tui.store.records import Entry
from openwop_tui.store.search import IndexRow
from openwop_tui.store.sessions import Store

if TYPE_CHECKING:
    from openwop_tui.core.conversation import Conversation

#: A part of a session's log as a reopen reads it: a kept run, or an entry (`Store.outline`).
Part = Entry | FoldRow

log = logging.getLogger(__name__)

#: Bumped whenever folding the same events gives different items (a new rule, a fixed bug),
#: or a kept row holds something else (2: the host each run came from; 3: a hint lifted beside a
#: streamed reply is kept on the reply, not folded to an envelope repeating it).
FOLD_VERSION = 3

#: The modules whose classes a kept fold may hold (and nothing else is ever built).
_ITEM_MODULES = (
    "openwop_tui.core.items",
    "openwop_tui.core.directives",
    "openwop_tui.openclaw.policy",
    "openwop_tui.protocol.envelopes",
    "openwop_tui.protocol.events",
    "openwop_tui.protocol.interrupts",
)


@functools.cache
def _shape() -> str:
    """Every item-module class with its fields: a new or renamed field changes the version.
    Each module is imported here (not looked up among those imported so far), so the version is
    what the fold is, whichever modules the process happened to import before. Worked out once
    a process (4 ms), not for every keeper: one is made for every chat shown, every session
    opened and every long session's reading."""
    parts: list[str] = []
    for name in _ITEM_MODULES:
        module = importlib.import_module(name)
        for attribute, value in sorted(vars(module).items()):
            if isinstance(value, type) and value.__module__ == name:
                if dataclasses.is_dataclass(value):
                    fields = [f.name for f in dataclasses.fields(value)]
                else:
                    fields = [
                        slot for klass in value.__mro__ for slot in getattr(klass, "__slots__", ())
                    ]
                parts.append(f"{name}.{attribute}({','.join(fields)})")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def fold_version() -> str:
    """What a kept fold must have been made by to be read back."""
    return f"{FOLD_VERSION}:{openwop_tui.__version__}:{_shape()}"


class _Reader(pickle.Unpickler):
    """Builds the classes of `_ITEM_MODULES` and plain data; refuses everything else."""

    def find_class(self, module: str, name: str) -> Any:
        value = _item_class(module, name)
        if value is None:
            raise pickle.UnpicklingError(f"a kept fold may not hold {module}.{name}")
        return value


@functools.lru_cache(maxsize=64)
def _item_class(module: str, name: str) -> type | None:
    """The class ``module.name`` if a kept fold may hold it (one of `_ITEM_MODULES`' own), else
    ``None``. Looked up once: a reopen of 3,000 turns reads 12,000 classes, and importing the
    module each time (it may not be loaded yet when the first fold is read) took a fifth of it."""
    found = importlib.import_module(module) if module in _ITEM_MODULES else None
    value = getattr(found, name, None) if found is not None else None
    return value if isinstance(value, type) and value.__module__ == module else None


def fingerprint(chat: Conversation) -> str:
    """The fold's state a run begins in, as far as it changes what the run folds to."""
    transcript = chat.transcript
    secrets = _secrets_digest(tuple(chat.secrets))
    state = (
        transcript.carried_key(),
        len(transcript.items),
        len(chat.chat.messages),
        chat.pending_user,
        _fold_limits(transcript.limits),
        chat.captured,
        secrets,
    )
    return hashlib.blake2b(repr(state).encode(), digest_size=16).hexdigest()


@functools.lru_cache(maxsize=8)
def _secrets_digest(secrets: tuple[str, ...]) -> str:
    # (Worked out once: a reopen takes the fingerprint of every run, 3,000 at 3,000 turns.)
    return hashlib.blake2b(
        "\0".join(sorted(secrets)).encode(), digest_size=8, person=b"openwop-fold"
    ).hexdigest()


def _fold_limits(limits: Any) -> tuple[Any, ...]:
    # What the fold cuts by (the history caps shape requests, not items).
    return (limits.reply_bytes, limits.reasoning_bytes, limits.tool_bytes, limits.markdown_images)


class FoldKeeper:
    """Watches a conversation's runs begin and end, and keeps each completed run's fold.

    Live, the positions come from the stored session's log (``log``); while a session is
    reopened, from the entry being replayed (`entry`). ``keep`` writes a row made live;
    rows made while reopening gather in `fresh`, written by `reopen` in one go.
    """

    def __init__(
        self,
        log: Any,
        keep: Callable[[FoldRow], None],
        *,
        trusting: bool = False,
        histories: Callable[[HistoryRow], None] | None = None,
        index: Callable[[list[IndexRow], int | None], None] | None = None,
    ) -> None:
        """A keeper that has watched no run yet.

        Args:
            log: The stored session's log the conversation appends to live (a `SessionLog`):
                its ``last_seq`` gives a live run's positions, its ``session_id`` the session
                a run is logged in. ``None`` when nothing is logged live (`newest_runs`).
            keep: Writes a row made live (rows made while reopening gather in `fresh`).
            trusting: A kept run is restored whatever state it lands on
                (`openwop_tui.core.opening.newest_runs`, which folds the newest runs alone to
                show them first, and keeps nothing it folds).
            histories: Keeps what a run made live did to the chat history
                (`openwop_tui.store.histories`); ``None``: nothing is.
            index: Keeps the searchable text of what a run made live (the user's message
                as it begins, the replies as it ends: `openwop_tui.store.search`) and the
                log position the index is complete up to (``None``: not complete, a run
                left waiting); ``None``: nothing is.
        """
        self._log, self._keep = log, keep
        self._histories = histories
        self._index = index
        self.trusting = trusting
        self.version = fold_version()
        self.entry: Entry | None = None
        """The entry being replayed (``None`` live)."""
        self.fresh: list[FoldRow] = []
        self.fresh_histories: list[HistoryRow] = []
        """What the runs folded or restored while reopening did to the history (those
        without a kept row: `known_histories`), written by `reopen` with the folds."""
        self.known_histories: set[int] = set()
        """The runs whose history row is kept already (not made again while reopening)."""
        self.at_end = False
        """The log's end is being folded (what a run left open there added is not kept)."""
        self.reached = -1
        """The log position read up to so far while reopening (how far a reading is)."""
        self._begun: tuple[int, int, int, str, object, str | None] | None = None
        """The run being watched: its ``run`` entry's seq, items and history before, the
        state's fingerprint, the stored session it is logged in, and its id."""

    def _position(self, chat: Conversation) -> int:
        if chat.replaying:
            entry = self.entry
            return entry.seq if entry is not None else -1
        seq = getattr(self._log, "last_seq", -1)
        return seq if isinstance(seq, int) else -1

    def begin(self, chat: Conversation) -> None:
        """A run's ``run`` entry was just logged (or replayed); nothing of it is folded yet."""
        if chat.replaying and (self.entry is None or self.entry.kind != "run"):
            self._begun = None  # frames before any run marker: no place to keep it at
            return
        start = self._position(chat)
        items, messages = len(chat.transcript.items), len(chat.chat.messages)
        where = self._where(chat)
        begun = (start, items, messages, fingerprint(chat), where, chat.run_id)
        self._begun = begun if start >= 0 else None
        if self._index is not None and not chat.replaying and start >= 0:
            self._index(user_rows(chat.transcript.items), start + 1)

    def _where(self, chat: Conversation) -> object:
        # Live, the session the log writes to (a deleted one is replaced by a new one).
        return None if chat.replaying else getattr(self._log, "session_id", None)

    def end(self, chat: Conversation) -> None:
        """The run's ``end`` entry was just logged (or replayed) and its end folded; or,
        replayed, the run was settled without one (a killed process: by the next ``run``
        entry, or by the end of the log)."""
        begun, self._begun = self._begun, None
        if begun is None:
            return
        start, items_before, messages_before, before, where, run_id = begun
        if where != self._where(chat):
            return
        if not self.at_end:
            # (A run the log's end leaves open may yet be caught up: what it adds is not
            # known. One settled by a later run, or by its ``end``, is.)
            added = chat.chat.messages[messages_before:]
            self._history(chat, start, messages_before, added)
        if chat.replaying and (self.entry is None or self.entry.kind != "end"):
            return
        stop = self._position(chat)
        if self._index is not None and not chat.replaying:
            rows = rows_of(chat.transcript.items[items_before:], items_before)
            self._index(rows, stop + 1 if chat.transcript.at_rest and stop > start else None)
        if stop <= start or not chat.transcript.at_rest:
            return  # a run that left a question open is folded again on the next open
        host = chat.hosts.get(run_id) if run_id is not None else None
        kept = (
            chat.transcript.items[items_before:],
            chat.chat.messages[messages_before:],
            chat.transcript.carried(),
            # The host its media URLs resolve against (`openwop_tui.core.origins`): restoring
            # a run reads no ``run`` entry to learn it from.
            {run_id: host} if run_id is not None and host is not None else {},
        )
        try:
            data = pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as error:
            log.info("a run's fold cannot be kept (%s): it is folded again on reopen", error)
            return
        row = FoldRow(start, stop, self.version, before, data)
        if chat.replaying:
            self.fresh.append(row)
        else:
            self._keep(row)

    def _history(
        self,
        chat: Conversation,
        start: int,
        before: int,
        messages: list[Message],
        *,
        restored: bool = False,
    ) -> None:
        """Keep the history row of a run: live at once, replayed or restored from a kept fold
        with the folds, unless it is kept already. The row is made only then: a reopen of
        3,000 kept runs would make 3,000 for nothing.

        Args:
            chat: The conversation the run was folded into.
            start: The ``seq`` of the run's ``run`` entry.
            before: How many messages the history held as the run began.
            messages: The messages the run added.
            restored: The run was read back from a kept fold (not folded live).
        """
        if self.trusting:
            return  # (folded on a state that is not the session's)
        if not (chat.replaying or restored):
            if self._histories is not None:
                self._histories(HistoryRow.of(start, before, messages))
        elif start not in self.known_histories:
            self.fresh_histories.append(HistoryRow.of(start, before, messages))

    def restore(self, chat: Conversation, row: FoldRow) -> bool:
        """Put a kept run back in place of folding its events; ``False`` (nothing changed)
        when the row does not hold here."""
        if row.version != self.version:
            return False
        if not self.trusting and row.before != fingerprint(chat):
            return False
        try:
            kept = _Reader(io.BytesIO(row.data)).load()
            run_items, messages, carried, hosts = kept
            valid = (
                isinstance(run_items, list)
                and all(issubclass(kind, _ITEMS) for kind in set(map(type, run_items)))
                and isinstance(messages, list)
                and all(isinstance(m, dict) for m in messages)
                and isinstance(carried, dict)
                and isinstance(carried.get("counter"), int)
                and isinstance(carried.get("usage_turn"), item_types.Usage)
                and isinstance(carried.get("usage_session"), item_types.Usage)
                and isinstance(hosts, dict)
                and all(isinstance(k, str) and isinstance(v, str) for k, v in hosts.items())
            )
        except Exception as error:  # anything a damaged or foreign row raises
            log.info("a kept fold cannot be read (%s): its run is folded again", error)
            return False
        if not valid:
            return False
        chat.transcript.resume(run_items, carried)
        chat.hosts.update(hosts)
        # (A run read back from the store: its history row is written with the folds if it
        # lacks one, not once a run as if live: 3,000 transactions reopening 3,000 turns.)
        self._history(chat, row.start, len(chat.chat.messages), messages, restored=True)
        chat.chat.messages.extend(messages)
        chat.pending_user = None
        return True


_ITEMS = (
    item_types.UserTurn,
    item_types.AssistantTurn,
    item_types.Reasoning,
    item_types.ToolCall,
    item_types.EnvelopeItem,
    item_types.Notice,
)


#: Parts of the log (a kept run, or an entry) a step of `reopening` reads: a few milliseconds
#: of work, so that the app, which takes a step between frames and keys, never waits longer.
STEP_PARTS = 64


def reopen(
    chat: Conversation, store: Store, session_id: str, keeper: FoldKeeper, *, resume: bool = False
) -> None:
    """Fold a stored session into a conversation: kept runs restored, the rest of the log
    folded, and the runs folded here kept for the next open. Raises `StoreError` when the log
    cannot be read; a fold that cannot be kept only goes to `Conversation.log_error`.

    Args:
        chat: The conversation to fold into (new, replaying nothing yet).
        store: The store the session is kept in.
        session_id: The stored session's id.
        keeper: Restores the kept runs and keeps the ones folded here (its ``trusting``
            keeps none).
        resume: A run the log leaves open stays open (`Conversation.catch_up` continues it);
            else it is settled, and remembered as `Conversation.cut`.
    """
    for _ in reopening(chat, store, session_id, keeper, resume=resume):
        pass


def reopening(
    chat: Conversation,
    store: Store,
    session_id: str,
    keeper: FoldKeeper,
    *,
    resume: bool = False,
    since: int = 0,
    until: int | None = None,
    then: Sequence[Part] = (),
    step: int = STEP_PARTS,
) -> Iterator[None]:
    """`reopen`, a step at a time (the caller does other work between them: the app draws and
    reads keys). `StoreError` is raised by the step that meets it.

    Args:
        chat: The conversation to fold into (new, replaying nothing yet).
        store: The store the session is kept in.
        session_id: The stored session's id.
        keeper: Restores the kept runs and keeps the ones folded here (its ``trusting``
            keeps none).
        resume: A run the log leaves open stays open (`Conversation.catch_up` continues it);
            else it is settled, and remembered as `Conversation.cut`.
        since: The log position to read from (`newest_runs`: the first of the newest runs'
            ``run`` entries); 0: the log's start.
        until: The log position to read up to, not including it (a session opened newest
            first: up to where its newest runs begin); ``None``: the log's end.
        then: The parts of the log from ``until`` on, read before (`NewestRuns.parts`): folded
            after the store's, so no part of the log is read from the store twice. A kept run
            among them that does not hold here has its entries read (the one exception).
        step: How many parts of the log (a kept run, or an entry) each step reads.
    """
    # Reading thousands of kept runs makes objects by the hundred thousand and keeps every one:
    # the collector's passes over them would cost more than the reading (0.58 s against
    # 1.5 s at 3,000 turns), so it waits until they are all in place.
    collecting = gc.isenabled()
    gc.disable()
    try:
        parts = itertools.chain(
            store.outline(session_id, keeper.version, since=since, until=until), then
        )
        yield from _reopen(chat, store, session_id, keeper, resume, parts, step)
    finally:
        if collecting:
            gc.enable()


def _reopen(
    chat: Conversation,
    store: Store,
    session_id: str,
    keeper: FoldKeeper,
    resume: bool,
    parts: Iterable[Part],
    step: int,
) -> Iterator[None]:
    """`reopening`'s steps, with the garbage collector already paused.

    Args:
        chat: The conversation to fold into (new, replaying nothing yet).
        store: The store the session is kept in.
        session_id: The stored session's id.
        keeper: Restores the kept runs and keeps the ones folded here (its ``trusting``
            keeps none).
        resume: A run the log leaves open stays open; else it is settled, and remembered as
            `Conversation.cut`.
        parts: The log's parts to fold, in order (`Store.outline`'s).
        step: How many parts of the log (a kept run, or an entry) each step reads.
    """
    if not keeper.trusting:
        keeper.known_histories = store.history_starts(session_id)
    for done, _ in enumerate(_fold_parts(chat, store, session_id, keeper, parts), 1):
        if done % step == 0:
            yield
    keeper.entry = None
    chat.cut = chat.open_run
    if not (resume and chat.cut is not None):
        chat.finish_replay(at_end=True)
    fresh, keeper.fresh = keeper.fresh, []
    histories, keeper.fresh_histories = keeper.fresh_histories, []
    if keeper.trusting:
        return  # made on a state that is not the session's: not kept
    try:
        store.keep_folds(session_id, fresh)
        store.keep_histories(session_id, histories)
    except StoreError as error:
        chat.log_error = str(error)


def _fold_parts(
    chat: Conversation,
    store: Store,
    session_id: str,
    keeper: FoldKeeper,
    parts: Iterable[Part],
) -> Iterator[None]:
    """Fold part of a session's log into a conversation, kept runs restored: one yield after
    each kept run restored and each entry folded (the units `reopening` counts its steps in).

    Args:
        chat: The conversation to fold into.
        store: The store the session is kept in (a kept run that does not hold here has its
            entries read from it).
        session_id: The stored session's id.
        keeper: Restores the kept runs; told each entry replayed and how far the reading is.
        parts: The log's parts to fold, in order (`Store.outline`'s).
    """
    for part in parts:
        if isinstance(part, FoldRow):
            keeper.entry = None
            keeper.reached = part.stop
            chat.finish_replay()  # what a run entry does first: settle a run never ended
            if keeper.restore(chat, part):
                yield
                continue
            for entry in store.entries(session_id, part.start, part.stop + 1):
                keeper.entry = entry
                chat.replay(entry)
                yield
        else:
            keeper.entry = part
            keeper.reached = part.seq
            chat.replay(part)
            yield


def same_items(shown: list[Any], folded: list[Any]) -> bool:
    """Whether items folded apart (``shown``: `openwop_tui.core.opening.newest_runs`)
    are the same as ``folded`` (the whole session's last as many): same kinds, ids and
    contents. Items compare by identity, so each pair is compared as its pickle; an item that
    cannot be pickled compares unequal (the caller then draws the whole session again)."""
    if len(shown) != len(folded):
        return False
    try:
        return all(
            pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)
            == pickle.dumps(b, protocol=pickle.HIGHEST_PROTOCOL)
            for a, b in zip(shown, folded, strict=True)
        )
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return False
