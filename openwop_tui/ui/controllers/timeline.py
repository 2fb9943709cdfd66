"""The event timeline's state, and the links between a run's events and the transcript's items.

`Feed` (the one way a run's updates reach the screen) hands each arriving event to `arrived`,
which only queues it: the chat's `Inspector` (lint, timeline row, statistics) and the key cut
across pieces (`_mask`) are worked through the queue in order, off the ingest's path, at most
`INSPECT_SECONDS` a frame while events keep coming (`IDLE_INSPECT_SECONDS` once they stop),
and each row reaches the timeline panels with the batch after it was inspected, at most
`FRAMES_PER_SECOND` times a second. At 10,000 events a second the inspection was a quarter of
the event loop's time, and the run's ingest waited for it event by event even with no timeline
on screen; now a fast host is read at its pace, and the inspection catches up when the run
pauses or ends. Whatever needs an event's findings now (its inspector, the statistics, an
item's findings, a panel refilled) inspects what is queued first, so nothing shows a row, a
mark or a count the queue has not reached; an envelope's badge is put on when its event is
inspected.

`made` is told of the item changes the fold reported for the last event (the conversation
yields `EventArrived` before that event's changes, `openwop_tui.core.conversation`): that order
is the link from an event to the items it made, and back, without the items having to carry
their source. It also puts the event's lint marks in an envelope item's badge.

What is kept per chat (`Kept`: the inspector, the rows, the links, the filter line as typed)
is a few tens of bytes an event: the rows as columns, each event as its place in the session
store, read back when it is opened (`openwop_tui.ui.controllers.timeline_rows`), the links as
ranges of rows (`Spans`). It lives for the conversation's life, in a weak map keyed by the
`Conversation`: the session store has no place for a view's state, so a reopened session
starts with an empty filter. A reopened
session's stored events are read the first time its timeline is shown (a panel, the timeline
screen, the statistics: `_stored_in`), not when it opens: the transcript reads the session once
on its own (mostly its kept folds, not its events), and most reopened sessions are continued
without their timeline being looked at. They are folded into a new inspector (rows and lint, no
item links: the transcript of a reopened session is drawn from the fold, without its events),
in a thread of its own through a store connection of its own (`_read_stored`) when there are
many: a long session holds hundreds of thousands of events (18 s of folding at 3,000 turns),
which the next message, its run's events and the keys must not wait for. The events that
arrive before they are in get their rows at once, from an inspector of their own; once the
stored ones are in, they go before them, and the live ones are folded again after them into
the stored ones' inspector (lint that spans runs sees the whole session).
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from bisect import bisect_left
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Added, Change, Updated
from openwop_tui.core.items import EnvelopeItem
from openwop_tui.inspect.findings import Finding, Severity
from openwop_tui.inspect.log import Observed
from openwop_tui.inspect.timeline import Row, timeline_row, with_piece_text
from openwop_tui.protocol.events import RunEvent, keep
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.timeline_kept import (
    ITEM_TOKEN,
    UNREAD,
    Chosen,
    Kept,
    Spans,
    new_inspector,
)
from openwop_tui.ui.controllers.timeline_rows import NotKept, Reader, Rows
from openwop_tui.ui.controllers.timeline_stored import read_waiting, store_reader, stored_events
from openwop_tui.ui.controllers.timeline_waiting import in_store
from openwop_tui.ui.heap import settled_heap
from openwop_tui.ui.key_watch import reading_beside
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel
from openwop_tui.ui.widgets.timeline_view import Entry, TimelineView, marks_text

if TYPE_CHECKING:
    # The inspector (lint, its schema validators, statistics) is imported when the first
    # event is folded, not with the app: its first frame does not wait for it
    # (tests/ui/test_first_frame.py).
    from openwop_tui.inspect.inspector import Inspector

log = logging.getLogger(__name__)

#: The most redraws a second the timeline asks for while events arrive.
FRAMES_PER_SECOND = 30
#: The longest a frame's batch inspects queued events while events keep arriving (a sixteenth
#: of the event loop at `FRAMES_PER_SECOND`: 50 events of a frame, more than a model's
#: stream brings; at 4 ms it took an eighth of the loop a fast host's ingest needed).
INSPECT_SECONDS = 0.002
#: The same once no event has arrived for `IDLE_AFTER_SECONDS` (the run paused or ended, and
#: its end is drawn), and how soon the next batch follows while events still wait: what is
#: queued is caught up in the idle loop.
IDLE_AFTER_SECONDS = 0.5
IDLE_INSPECT_SECONDS = 0.010
IDLE_BATCH_SECONDS = 0.005
#: Queued events a panel being shown inspects at once (a longer queue: batch by batch).
REFILL_AT_ONCE = 1_000
#: Stored events the reading thread folds between two chances it gives the event loop's thread
#: to take the interpreter (as `openwop_tui.ui.controllers.reopening.THREAD_STEP`).
THREAD_STEP = 16
#: Stored entries folded at once, on the event loop (more: in a thread, `_read_stored`).
AT_ONCE = 1_000
#: The last stored events read that may still arrive live (logged, not yet shown: a feed's
#: batch, a few hundred), known by (run, sequence) not to be shown twice (`Kept.stored`).
STORED_TAIL = 16_384


class TimelineController:
    """Feeds the inspector, the timeline panels and the envelope badges; follows the links."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self._kept: weakref.WeakKeyDictionary[Conversation, Kept] = weakref.WeakKeyDictionary()
        self._panels: list[TimelinePanel] = []
        self._shown_for: dict[int, Kept] = {}
        """Which chat's rows each panel shows (by the panel's id())."""
        self._drawn: dict[int, frozenset[int]] = {}
        """The queued rows a panel was refilled with, by panel: the next batch skips them."""
        self._scheduled = False

    # ------------------------------------------------------------------ state

    @property
    def kept(self) -> Kept:
        """The timeline of the chat on screen (made on first use; a stored session's events
        are read into it the first time it is shown: `_stored_in`)."""
        conversation = self.chat.conversation
        kept = self._kept.get(conversation)
        if kept is None:
            kept = Kept(self._new_inspector(), Rows(self._reader(conversation)))
            self._kept[conversation] = kept
            self._tell_host(kept)
            keep = conversation.logbook.session_log
            if self.chat.store is not None and keep is not None and not keep.new:
                # (A new session holds only what arrives here: nothing to read.)
                kept.unread = keep.session_id
        return kept

    def _stored_in(self, kept: Kept) -> None:
        """Read the stored events of the chat on screen into its timeline ``kept``, unless they
        are read (or being read) already: at once when they are few, else in a thread
        (`_read_stored`), up to the log's end now (what comes after arrives live). Either way
        they go before the events that arrived meanwhile (`_put_before`)."""
        conversation, store, session_id = self.chat.conversation, self.chat.store, kept.unread
        if session_id is None or store is None or self._kept.get(conversation) is not kept:
            return
        kept.unread = None
        try:
            until = store.info(session_id).entries  # (what was appended is committed)
        except StoreError as error:
            self.chat.app.notify(f"the timeline could not read this session: {error}")
            kept.live = []
            return
        if until > AT_ONCE:
            kept.reading = True
            work = self._readstored_events(conversation, kept, store.path, session_id, until)
            self.chat.work(work, group="timeline")
            return
        older = Kept(self._new_inspector(), Rows(kept.entries.reader))
        self._tell_host(older)
        secrets = conversation.secrets
        try:
            for seen, where, part in stored_events(store.entries(session_id, 0, until), secrets):
                self._fold_one(older, seen, (where, part, until), secrets)
        except StoreError as error:
            self.chat.app.notify(f"the timeline could not read this session: {error}")
            older = Kept(kept.inspector, Rows(kept.entries.reader))  # (the live rows alone)
        self._put_before(kept, older)

    def _fold_one(
        self, kept: Kept, seen: Observed, place: tuple[int, int, int], secrets: tuple[str, ...]
    ) -> None:
        """One stored event into ``kept``: its row, kept by (run, sequence) when it is one
        of the last `STORED_TAIL` of the log.

        Args:
            kept: The timeline the stored events are read into.
            seen: The event, as the log's entry gave it.
            place: Its entry's log position, which event of that entry it is, and the log's
                end when it was read.
            secrets: The values masked (a key cut across pieces followed).
        """
        event = seen.event
        if event is None:
            return
        where, part, until = place
        row = kept.inspector.feed(event, seen.at)
        entry = Entry(row, event, where=where, part=part)
        kept.mask(event, entry, secrets)
        kept.entries.append(entry)
        if where >= until - STORED_TAIL:
            kept.stored[(event.run_id, event.sequence)] = entry.index

    def _reader(self, conversation: Conversation) -> Reader | None:
        """What reads an event of ``conversation``'s timeline back from the store (``None``
        without a store: the timeline keeps its newest events in memory instead)."""
        if self.chat.store is None:
            return None
        return store_reader(lambda: self.chat.store, conversation)

    def _new_inspector(self) -> Inspector:
        from openwop_tui.inspect.lint import LintConfig  # (see TYPE_CHECKING)

        return new_inspector(LintConfig(max_asset_bytes=self.chat.config.max_asset_bytes))

    async def _readstored_events(
        self, conversation: Conversation, kept: Kept, path: Path, session_id: str, until: int
    ) -> None:
        """Fold the session's stored events into a timeline of their own in a thread, then put it
        before ``kept``'s rows (what arrived meanwhile).

        Args:
            conversation: The chat the timeline belongs to; if it is replaced meanwhile, the reading
                stops.
            kept: The chat's timeline.
            path: The store's database file, opened through a connection of the thread's own.
            session_id: The stored session.
            until: The log position to read up to (the log's length when reading began).
        """
        older = Kept(self._new_inspector(), Rows(kept.entries.reader))
        self._tell_host(older)
        secrets = conversation.secrets
        store = self.chat.store
        masked = store.secrets if store is not None else secrets
        try:

            def fold() -> None:
                with settled_heap(), Store(path, secrets=masked) as mine:
                    read = stored_events(mine.entries(session_id, 0, until), secrets)
                    for count, (seen, where, part) in enumerate(read, 1):
                        self._fold_one(older, seen, (where, part, until), secrets)
                        if count % THREAD_STEP == 0:
                            if self._kept.get(conversation) is not kept:
                                return  # (the chat was replaced: read for nobody)
                            self.between_steps()

            with reading_beside():
                await asyncio.to_thread(fold)
        except StoreError as error:
            self.chat.app.notify(f"the timeline could not read this session: {error}")
            older = Kept(kept.inspector, Rows(kept.entries.reader))  # (the live rows alone)
        if self._kept.get(conversation) is not kept:
            return
        self._put_before(kept, older)

    @staticmethod
    def between_steps() -> None:
        """Between two steps, the reading thread hands the event loop the interpreter (tests
        pace the reading here)."""
        time.sleep(0)

    def _put_before(self, kept: Kept, older: Kept) -> None:
        """The stored events are in: their rows go before the live ones, which are folded
        again after them into their inspector (lint that spans runs sees the session whole)."""
        self._inspect(kept)  # (the live events' rows and pieces, before they are folded again)
        live = {entry.row.key for entry, _ in kept.live}
        if older.inspector is not kept.inspector:
            for entry, at in kept.live:
                if entry.row.key in older.stored:
                    continue  # (sent again after it was stored: its inspector saw it once)
                row = older.inspector.feed(entry.event, at)
                entry.row = with_piece_text(row, entry.piece.text) if entry.piece else row
                kept.entries.changed(entry)
            kept.inspector = older.inspector
        # (An event the host sent again, live, after it was stored is its live row only: that
        # is the one linked to the items it made.)
        rows = older.entries
        chosen = [i for i in range(len(rows)) if rows.key(i) not in live] if live else None
        count = kept.entries.put_before(rows, chosen)
        for spans in kept.events_of.values():
            spans.shift(count)
        kept.stored = {
            k: v if chosen is None else bisect_left(chosen, v)
            for k, v in older.stored.items()
            if k not in live
        }
        kept.reading, kept.live = False, []
        for panel in list(self._panels):
            if panel.is_attached and self._shown_for.get(id(panel)) is kept:
                self._refill(panel, kept)

    @property
    def inspector(self) -> Inspector:
        """The chat's inspector, every event that arrived inspected (the statistics read it:
        the stored events join it)."""
        kept = self.kept
        self._inspect(kept)
        self._stored_in(kept)
        return kept.inspector

    def findings_for(self, event: RunEvent) -> list[Finding]:
        """The lint findings about ``event`` (as folded into this chat's inspector, once what
        is queued before it is inspected)."""
        kept = self.kept
        self._inspect(kept)
        return kept.inspector.linter.for_event(event.run_id, event.sequence)

    # ------------------------------------------------------------------ feeding

    def arrived(self, event: RunEvent, logged: int = -1) -> None:
        """A run event arrived (``logged``: the position in the session's log of the entry
        it arrived in; -1: in none): queued (its entry made, for the items it makes to link
        to), inspected and drawn with a later batch (`flush`)."""
        kept = self.kept
        known = kept.stored.pop((event.run_id, event.sequence), None)
        if known is not None:  # read from the store already: it is the event the live items link to
            kept.last = kept.entries[known]
            return
        at, conversation = time.time(), self.chat.conversation
        if conversation.logbook.error is not None:
            logged = -1  # (the store is not taking entries now: kept in memory)
        where, part = kept.last_where
        part = part + 1 if logged >= 0 and logged == where else 0
        kept.last_where = (logged, part)
        rows = kept.entries
        entry = Entry(UNREAD, keep(event, conversation.secrets), where=logged, part=part)
        entry.ordinal, entry.place = len(rows) + len(kept.queued) - rows.base, rows.place
        kept.queued.append(entry, at)
        kept.last = entry
        kept.arrived_at = time.monotonic()
        if kept.reading or kept.unread is not None:
            kept.live.append((entry, at))  # (folded again after the stored ones: kept whole)
        elif rows.reader is not None:
            kept.queued.spill(in_store)
        self._schedule(1 / FRAMES_PER_SECOND)

    def _schedule(self, delay: float) -> None:
        if not self._scheduled:
            self._scheduled = True
            self.chat.app.set_timer(delay, self.flush)

    def _inspect(self, kept: Kept, budget: float | None = None) -> None:
        """Inspect ``kept``'s queued events in order (all of them, or for about ``budget``
        seconds): lint, row and statistics, a key cut across pieces masked; each entry joins
        the rows and the next batch, and the badges waiting for it are put on."""
        queued = kept.queued
        if not queued:
            return
        self._tell_host(kept)
        secrets = self.chat.conversation.secrets
        clock = time.perf_counter
        until = None if budget is None else clock() + budget
        while queued:
            first = queued.first()
            if first is not None and not self._read_waiting(kept, first, at_once=until is None):
                break  # (not written yet: the next batch reads it)
            taken = queued.take()
            if taken is None:
                break
            entry, event, at = taken
            if event is not None:  # (read back: what its entry opens now)
                entry.kept = keep(event, secrets)
            event = event or entry.event
            try:
                entry.row = kept.inspector.feed(event, at)
            except Exception:
                # A lint rule that trips on hostile input must not stop the run being drawn:
                # the event still gets its row (without marks), and the fault goes to the log.
                log.exception("the inspector failed on event %s", event.sequence)
                entry.row = timeline_row(event)
            kept.mask(event, entry, secrets)
            kept.entries.append(entry)
            kept.pending.append(entry)
            if until is not None and clock() >= until:
                break
        if kept.badges:
            self._badge(kept)

    def _read_waiting(self, kept: Kept, first: tuple[int, int], *, at_once: bool) -> bool:
        """Read back the events waiting as their places from ``first`` (`read_waiting`), from
        the session of the chat ``kept`` is the timeline of (the one on screen, mostly)."""
        mine = next((c for c, k in self._kept.items() if k is kept), None)
        kept_log, store = mine.logbook.session_log if mine else None, self.chat.store
        if mine is None or store is None or kept_log is None or kept_log.session_id is None:
            return False
        where = (store, kept_log.session_id, first)
        return read_waiting(kept.queued, where, mine.secrets, at_once=at_once)

    def _badge(self, kept: Kept) -> None:
        """Put on the badges of envelope items whose events are inspected now."""
        waiting: list[tuple[Entry, str]] = []
        view = self.chat.parts.view
        for entry, item_id in kept.badges:
            if entry.row is UNREAD:
                waiting.append((entry, item_id))
            elif marks := _badge_marks(entry.row):
                view.set_lint(item_id, marks)
        kept.badges = waiting

    def _tell_host(self, kept: Kept) -> None:
        """The lint checks media URLs as the app fetches them: against the connected host (its
        own loopback or relative URLs are not a stranger's) and its discovery's inline cap."""
        client, session = self.chat.client, self.chat.session
        discovery = session.discovery if session is not None else None
        if client is None or (client is kept.told[0] and discovery is kept.told[1]):
            return
        kept.told = (client, discovery)
        kept.inspector.linter.use_host(
            client.base_url,
            max_inline_bytes=discovery.max_inline_media_bytes if discovery else None,
            supported_envelopes=frozenset(discovery.supported_envelopes) if discovery else None,
        )

    def made(self, changes: Sequence[Change]) -> None:
        """The items the last event made or changed (drawn already): linked to it, and its lint
        marks put in an envelope's badge."""
        kept = self.kept
        entry = kept.last
        if entry is None:
            return
        view = self.chat.parts.view
        unread = entry.row is UNREAD
        marks = "" if unread else _badge_marks(entry.row)
        for change in changes:
            if not isinstance(change, Added | Updated):
                continue
            item_id = change.item.id
            events = kept.events_of.get(item_id)
            if events is None:
                events = kept.events_of[item_id] = Spans()
            if item_id not in entry.items:
                # (A reply's chunks each changed the one reply: the rows keep one tuple.)
                entry.items = (*entry.items, item_id)
                kept.entries.changed(entry)  # (when it is inspected already)
            events.add(entry.index)
            if isinstance(change.item, EnvelopeItem):
                if unread:
                    kept.badges.append((entry, item_id))  # (put on once it is inspected)
                    kept.queued.hold(entry)
                elif marks:
                    view.set_lint(item_id, marks)

    def flush(self) -> None:
        """Inspect queued events for a frame's share of the event loop (`INSPECT_SECONDS`; more
        once events stop coming: only then are events waiting as their places read back, which
        kept a flood's keys waiting), hand the rows inspected to every panel (the batch), and
        say the counts; while events still wait, the next batch is due."""
        self._scheduled = False
        kept = self.kept
        idle = time.monotonic() - kept.arrived_at >= IDLE_AFTER_SECONDS
        if idle or kept.queued.first() is None:
            self._inspect(kept, IDLE_INSPECT_SECONDS if idle else INSPECT_SECONDS)
        if kept.queued:
            self._schedule(IDLE_BATCH_SECONDS if idle else 1 / FRAMES_PER_SECOND)
        batch, kept.pending = kept.pending, []
        redraw, kept.redraw = kept.redraw, False
        for panel in list(self._panels):
            if not panel.is_attached:
                self._panels.remove(panel)
                continue
            if self._shown_for.get(id(panel)) is not kept:
                self._refill(panel, kept)
                continue
            if redraw:
                panel.view.redraw()
            drawn = self._drawn.pop(id(panel), frozenset())
            if batch:
                only = kept.only()
                panel.view.extend(e for e in batch if e.index not in drawn and kept.passes(e, only))
                self._title(panel, kept)

    # ------------------------------------------------------------------ panels

    def attach(self, panel: TimelinePanel) -> None:
        """Show this chat's timeline in ``panel`` (the docked one, or a screen's)."""
        if panel not in self._panels:
            self._panels.append(panel)
        self._refill(panel, self.kept)

    def _refill(self, panel: TimelinePanel, kept: Kept) -> None:
        if len(kept.queued) <= REFILL_AT_ONCE:
            self._inspect(kept)  # (a long queue reaches the panel batch by batch)
        elif kept.queued:
            self._schedule(1 / FRAMES_PER_SECOND)
        self._stored_in(kept)  # (shown: its stored events are read now, if they are not yet)
        self._shown_for[id(panel)] = kept
        # The rows still waiting for the next batch are drawn now, with the rest: the batch
        # must not draw them in this panel again.
        self._drawn[id(panel)] = frozenset(entry.index for entry in kept.pending)
        panel.show_filter(kept.filter_text)
        panel.view.set_entries(kept.shown())
        self._title(panel, kept)

    def _title(self, panel: TimelinePanel, kept: Kept) -> None:
        shown, total = len(panel.view.entries), len(kept.entries)
        count = f"{total:,} events" if kept.chosen.empty else f"{shown:,} of {total:,} events"
        state = "following" if panel.view.following else "paused (f follows)"
        reading = " · reading the session's stored events…" if kept.reading else ""
        if kept.queued:
            reading += f" · inspecting {len(kept.queued):,} more…"
        panel.say(f"timeline · {count} · {state}{reading}")

    def filter_changed(self, panel: TimelinePanel, text: str) -> None:
        """The filter line was edited: kept for this chat, applied to every panel."""
        kept = self.kept
        if text == kept.filter_text:
            return
        kept.filter_text = text
        kept.chosen = Chosen.parse(text)
        for shown in self._panels:
            if shown.is_attached:
                self._refill(shown, kept)

    def follow_changed(self, view: TimelineView) -> None:
        for panel in self._panels:
            if panel.is_attached and panel.view is view:
                self._title(panel, self.kept)

    def toggle_panel(self) -> None:
        """Show or hide the timeline docked beside the transcript (F2)."""
        panel = self.chat.parts.get(TimelinePanel)
        panel.toggle_class("-visible")
        if panel.has_class("-visible"):
            self.attach(panel)

    def open_screen(self, filter_text: str | None = None) -> None:
        """The timeline as a screen of its own, optionally with a new filter line."""
        from openwop_tui.ui.screens.timeline import TimelineScreen

        if filter_text is not None:
            kept = self.kept
            kept.filter_text = filter_text
            kept.chosen = Chosen.parse(filter_text)
        app = self.chat.app
        found = [s for s in app.screen_stack if isinstance(s, TimelineScreen)]
        if not found:
            app.push_screen(TimelineScreen())
            return
        while app.screen is not found[0]:
            app.pop_screen()
        self.attach(found[0].panel)

    # ------------------------------------------------------------------ links

    def show_item(self, item_id: str) -> None:
        """The timeline screen, filtered to the events of transcript item ``item_id``."""
        if item_id not in self.kept.events_of:
            self.chat.app.notify(
                "no run event made this item (typed, a notice, or a reopened session)",
                severity="warning",
            )
            return
        self.open_screen(f"{ITEM_TOKEN}{item_id}")

    def open_event(self, entry: Entry) -> None:
        """Enter on a row: the event as a JSON tree, with its findings."""
        from openwop_tui.ui.screens.event import EventScreen

        try:
            event = entry.event
        except NotKept as why:
            self.chat.app.notify(str(why), severity="warning")
            return
        findings = self.findings_for(event)
        items = entry.items
        self.chat.app.push_screen(
            EventScreen(entry, findings, items, downloads=self.chat.download_folder())
        )

    def go_to_item(self, entry: Entry) -> None:
        """Select, in the transcript, the item ``entry``'s event made."""
        app = self.chat.app
        view = self.chat.parts.view
        blocks = [view.block_for(i) for i in entry.items]
        shown = [b for b in blocks if b is not None]
        if not shown:
            what = entry.row.type
            app.notify(f"this {what} event made no transcript item", severity="warning")
            return
        while len(app.screen_stack) > 1:  # the chat screen is the first
            app.pop_screen()
        view.focus()
        view.select(view.blocks().index(shown[0]))


def _badge_marks(row: Row) -> str:
    """What an envelope's badge says of its event's ``row``: its marks when one is a warning
    or an error (an info, a sequence gap, is the timeline's to show, not the item's)."""
    return marks_text(row) if row.worst in (Severity.ERROR, Severity.WARNING) else ""
