"""``--json`` of ``run``, ``attach``, ``render`` and ``replay``: the normalised events as NDJSON.

One JSON object a line on stdout, in the shape of ``export --format jsonl``
(`openwop_tui.present.export.jsonl_lines` names the fields: ``kind`` ``run``, ``event``,
``notice``, ``end``, ``user``), and nothing else there: the host's header, the run's id,
questions and how to answer them go to stderr. Each line is written and flushed as it happens
(but one whose chunk could start the key: see below), so
``… --json | jq -c 'select(.kind == "event")'`` follows a live run.

`JsonLines` stands where the `openwop_tui.cli.printer.TranscriptPrinter` stands: it takes the
conversation's updates (`feed`, the events) and is one of its logs (`append`, the run, end,
notice and user lines), so a live run gives the lines its export would.

The API key is masked as the export masks it (`openwop_tui.present.export.JsonlMask`): a key a
host cut across two chunk events is in two lines, where no redaction of one line can see it,
so a line whose chunk could start the key waits for the stream's next chunk (a stream's last
waits for its end, and `flush` writes what is held).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from rich.console import Console

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.updates import EventArrived, StreamNoticed, Update
from openwop_tui.present.export import JsonlMask, notice_line
from openwop_tui.store.records import Entry
from openwop_tui.text.redact import Redactor


class JsonLines:
    """Writes NDJSON lines to ``out`` (a text file, stdout); ``console`` (stderr) is where the
    command's words for a person go."""

    def __init__(self, out: TextIO, console: Console, redact: Redactor) -> None:
        self.out = out
        self.console = console
        self.redact = redact
        self.lines = 0
        self.mask = JsonlMask(redact.secrets)

    def write(self, lines: Iterable[dict[str, Any]]) -> None:
        """Write ``lines`` (ready: `JsonlMask` let them go), each flushed as it is written."""
        for line in lines:
            text = self.redact(json.dumps(line, ensure_ascii=False, default=str))
            self.out.write(text + "\n")
            self.out.flush()
            self.lines += 1

    # The conversation's log: every entry but the raw frames (their events come by `feed`).
    def append(self, entry: Entry) -> None:
        if entry.kind != "frame":
            self.write(self.mask.entry(entry, ()))

    async def feed(self, changes: Iterable[Update]) -> None:
        for change in changes:
            if isinstance(change, EventArrived):
                self.write(self.mask.event(change))

    async def flush(self) -> None:
        """The output ends: what waited for a next chunk is written as it stands."""
        self.finish()

    def finish(self) -> None:
        """Write the lines still held (the recording or the run ended)."""
        self.write(self.mask.finish())


def replay_lines(
    entries: Iterable[Entry], conversation: Conversation, sink: JsonLines, *, finish: bool = True
) -> None:
    """Fold a recording's ``entries`` offline and write their lines (``render`` and
    ``replay --json``).

    A bare capture's malformed frames give ``notice`` lines, as they would have live.

    Args:
        entries: The recording's entries, in order.
        conversation: The conversation they are folded into.
        sink: Where the JSON lines go, masked.
        finish: True when the recording ends here; False when more is fed later (``render -`` feeds
            it in pieces).
    """
    for entry in entries:
        updates = conversation.replay(entry)
        sink.write(sink.mask.entry(entry, updates))
        if entry.kind == "frame":
            for update in updates:
                if isinstance(update, StreamNoticed):
                    notice = notice_line(update.notice.level, update.notice.message)
                    sink.write(sink.mask.line(notice))
    if finish:
        conversation.finish_replay()
        sink.finish()
