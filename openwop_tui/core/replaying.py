"""Reading a log back: each entry folded as it was folded live, without contacting anything.

`Conversation.replay` hands every logged entry here (a stored session's, a recording's, a bare
SSE capture's). What the client wrote itself (the user's messages, its notices) is read back as
host text, since a log is a file anyone may have written; a ``run`` entry begins a run as its
creation did (on the host it names), an ``end`` ends it, and a frame goes through the same
redelivery rules and the same fold as it did live, so the transcript and the chat history come
out the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from openwop_tui.core import own_media
from openwop_tui.core.fold import Level
from openwop_tui.core.origins import HOST_KEY, host_url
from openwop_tui.core.updates import EventArrived, StreamNoticed, Update
from openwop_tui.protocol.events import RunEvent
from openwop_tui.protocol.stream_items import StreamNotice
from openwop_tui.store.records import Entry
from openwop_tui.text.sanitize import clean

if TYPE_CHECKING:
    from openwop_tui.core.conversation import Conversation

__all__ = ["from_log", "replayed"]


def from_log(chat: Conversation, entries: Iterable[Entry]) -> Conversation:
    """``chat`` (new) rebuilt from a log, without contacting anything: the transcript and the
    history as they were, ready for the next `send` (`Conversation.from_log`)."""
    for entry in entries:
        chat.replay(entry)
    chat.finish_replay()
    return chat


def replayed(chat: Conversation, entry: Entry) -> list[Update]:
    """Fold ``entry`` into ``chat``, as it was folded live; what it changed."""
    if entry.kind == "user":
        # Not the end of a run: a message may be queued while one streams.
        logged = own_media.read_logged(entry.meta)  # (each inline part decoded once)
        chat.pending_user, chat.pending_parts = entry.data, logged.parts
        # A boundary: a message read back from the store (a file anyone may have written).
        return [*own_media.add_message(chat.transcript, clean(entry.data), logged)]
    if entry.kind == "notice":
        return _notice(chat, entry)
    if entry.kind == "run":
        ended = chat.end_run()  # a run the log never saw end (a killed process)
        workflow = entry.meta.get("workflow")
        host = host_url(entry.meta.get(HOST_KEY)) or chat.old_runs_host
        started = chat.begin_run(entry.run or "?", str(workflow or ""), None, host)
        return [*ended, started]
    if entry.kind == "end":
        return chat.end_run()
    arrival = entry.arrival
    if arrival is None:
        return []
    updates: list[Update] = []
    for item in chat.accepted(arrival, entry.run):
        if isinstance(item, RunEvent):
            updates.append(EventArrived(item))
            updates.extend(chat.fold(item))
        elif chat.captured:
            updates.append(StreamNoticed(item))
            updates.append(chat.transcript.add_notice(item.level, item.shown))
    return updates


def _notice(chat: Conversation, entry: Entry) -> list[Update]:
    """A line the client logged: a notice of its own, or the stream's (``meta.stream``); one
    that records a replaced exchange takes its messages out of the history again."""
    level: Level = "info"
    if entry.label == "warning":
        level = "warning"
    elif entry.label == "error":
        level = "error"
    stream = [StreamNoticed(StreamNotice(level, entry.data))] if entry.meta.get("stream") else []
    replaces = entry.meta.get("replaces")
    if isinstance(replaces, int) and not isinstance(replaces, bool):
        # An exchange was replaced: its messages leave the history as they did live; its
        # items stay on screen above this line (the log keeps everything).
        chat.chat.drop(replaces)
    # A boundary: a notice read back from the store, like the message above.
    return [*stream, chat.transcript.add_notice(level, clean(entry.data))]
