"""The command-line side of stored sessions: ``sessions``, ``export``, ``replay``, ``--continue``.

Every failure is one line on stderr and exit code 2 (a missing session, a damaged or locked
store, an unwritable export path), never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.table import Table
from rich.text import Text

from openwop_tui.cli.exits import EXIT_OK, EXIT_USAGE
from openwop_tui.cli.output import Output, renderer_registry
from openwop_tui.cli.render import print_entries, print_recording
from openwop_tui.cli.stored import opened
from openwop_tui.core import indexing, searching
from openwop_tui.core.conversation import Conversation
from openwop_tui.devices import desktop as actions
from openwop_tui.present.envelope import export_drawer
from openwop_tui.present.export import ExportError, Format, export_session
from openwop_tui.renderers.base import AudioSupport
from openwop_tui.store.database import StoreError
from openwop_tui.store.keys import masked_entries
from openwop_tui.store.sessions import Store
from openwop_tui.text.redact import Redactor
from openwop_tui.text.sanitize import clean_own, one_line


def _fail(message: str) -> int:
    print(f"openwop-tui: {message}", file=sys.stderr)
    return EXIT_USAGE


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def list_sessions(output: Output, *, as_json: bool, archived: bool = False) -> int:
    """``openwop-tui sessions``: a table (or JSON) of the stored sessions, newest first (the
    archived ones only with ``archived``, marked)."""
    try:
        with opened(Store(secrets=[output.config.api_key])) as store:
            sessions = [info for info in store.sessions() if archived or not info.archived]
    except StoreError as error:
        return _fail(str(error))
    if as_json:
        print(json.dumps([info.as_json() for info in sessions], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not sessions:
        output.console.print("no stored sessions yet: chat in the app and they are kept")
        return EXIT_OK
    table = Table(box=None, pad_edge=False)
    for column in ("id", "updated", "title", "messages", "host"):
        table.add_column(column, no_wrap=column != "title", overflow="fold")
    for info in sessions:
        # A session is one row: its title (the first message, or a host's title) and host on
        # one line, a newline shown as ␊.
        title, host = (one_line(clean_own(text)) for text in (info.title, info.host))
        shown = f"{title} (archived)" if info.archived else title
        table.add_row(clean_own(info.id), _when(info.updated), shown, str(info.messages), host)
    output.console.print(table)
    return EXIT_OK


def _change(output: Output, change: Callable[[Store], None], said: str) -> int:
    """Make ``change`` to the store, then print ``said``; a store that refuses it is exit 1
    with its reason (`_fail`)."""
    try:
        with opened(Store(secrets=[output.config.api_key])) as store:
            change(store)
    except StoreError as error:
        return _fail(str(error))
    print(said)
    return EXIT_OK


def rename_session(output: Output, session_id: str, title: str) -> int:
    """``openwop-tui sessions rename ID TITLE``."""
    return _change(
        output, lambda store: store.rename(session_id, title), f"renamed session {session_id}"
    )


def archive_session(output: Output, session_id: str, *, archived: bool) -> int:
    """``openwop-tui sessions archive ID`` (or ``unarchive ID``)."""
    said = f"{'archived' if archived else 'unarchived'} session {session_id}"
    return _change(output, lambda store: store.archive(session_id, archived), said)


def search_sessions(output: Output, query: str, *, as_json: bool) -> int:
    """``openwop-tui sessions search WORDS``: every message or reply holding ``query``, with
    its session, date and a line of context (or JSON); the sessions not indexed yet are
    indexed first (said on stderr)."""
    try:
        with opened(Store(secrets=[output.config.api_key])) as store:
            waiting = len(store.unindexed())
            if waiting:
                print(
                    f"openwop-tui: indexing {waiting:,} stored session"
                    f"{'s' if waiting != 1 else ''} for search (once)…",
                    file=sys.stderr,
                )
                for _ in indexing.pending(store):
                    pass
            found = searching.search(store.path, query)
    except StoreError as error:
        return _fail(str(error))
    if as_json:
        print(json.dumps(_found_json(found), ensure_ascii=False, indent=2))
        return EXIT_OK
    console = output.console
    if found.note:
        print(f"openwop-tui: note: {found.note}", file=sys.stderr)
    if not found.results:
        console.print(Text(f"no match for “{one_line(clean_own(query))}” in any session"))
        return EXIT_OK
    more = "+" if found.capped else ""
    console.print(
        Text(
            f"{found.occurrences:,}{more} occurrences in {len(found.results):,} messages of "
            f"{found.sessions:,} session{'s' if found.sessions != 1 else ''}",
            style="bold",
        )
    )
    for result in found.results:
        console.print(_result_lines(result))
    return EXIT_OK


def _result_lines(result: searching.Result) -> Text:
    """A result as the command prints it: its session line, then the context, marked."""
    who = "you" if result.role == "user" else result.role
    head = Text(clean_own(result.session), style="bold")
    head.append(f"  {_when(result.updated)}  ")
    head.append(one_line(clean_own(result.title)) or "(untitled)")
    times = f", {result.occurrences} times" if result.occurrences > 1 else ""
    archived = ", archived" if result.archived else ""
    head.append(f"  ({who}{times}{archived})", style="dim")
    context = result.context
    line = Text("  …" if context.cut_before else "  ")
    offset = len(line)
    line.append(context.text)
    for start, end in context.spans:
        line.stylize("bold reverse", offset + start, offset + end)
    if context.cut_after:
        line.append("…")
    return Text("\n").join([head, line])


def _found_json(found: searching.Found) -> dict[str, object]:
    return {
        "query": found.query,
        "occurrences": found.occurrences,
        "sessions": found.sessions,
        "capped": found.capped,
        "results": [
            {
                "session": result.session,
                "title": result.title,
                "updated": result.updated,
                "archived": result.archived,
                "role": result.role,
                "occurrences": result.occurrences,
                "context": result.context.text,
            }
            for result in found.results
        ],
    }


def delete_session(output: Output, session_id: str) -> int:
    """``openwop-tui sessions delete ID``."""
    return _change(output, lambda store: store.delete(session_id), f"deleted session {session_id}")


def export_command(output: Output, session_id: str | None, fmt: Format, path: Path | None) -> int:
    """``openwop-tui export [SESSION] --format md|jsonl|sse -o PATH``; the exit code.

    Args:
        output: The command's configuration and console.
        session_id: The stored session to export; None for the latest.
        fmt: ``md``, ``jsonl`` or ``sse``.
        path: The file to write; None writes ``openwop-<id>.<fmt>`` in the download folder.
    """
    key = output.config.api_key
    try:
        with opened(Store(secrets=[key])) as store:
            info = store.info(session_id) if session_id else store.latest()
            if info is None:
                return _fail("there is no stored session to export yet")
            # Without -o, where every other file the client writes goes (never the cwd).
            folder = actions.download_dir(output.config.download_dir)
            target = path or folder / f"openwop-{info.id}.{fmt}"
            drawer = export_drawer(renderer_registry(output.config))
            done = export_session(
                store, info.id, fmt, target, redactor=Redactor([key]), drawer=drawer
            )
    except (StoreError, ExportError) as error:
        return _fail(str(error))
    extra = f" and {len(done.assets)} assets in {done.assets[0].parent}" if done.assets else ""
    print(f"exported session {info.id} to {done.path}{extra}")
    # The export is written, with a line in each one's place: said, not failed (exporting
    # again would not bring them back).
    for why in done.unread:
        print(f"openwop-tui: warning: session {info.id}: {why}", file=sys.stderr)
    return EXIT_OK


def replay_print(path: str, output: Output) -> int:
    """``replay`` without a terminal, or with ``--json``: the recording as ``render`` prints
    it (or writes it as NDJSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return _fail(f"cannot read {path}: {error.strerror or error}")
    return print_recording(path, text, output)


def print_session(session_id: str, output: Output) -> int:
    """A stored session's transcript, printed (the app's ``--continue`` where the terminal
    cannot show the app)."""
    key = output.config.api_key
    try:
        with opened(Store(secrets=[key])) as store:
            entries = masked_entries(store.entries(session_id), store.secrets)
            conversation = Conversation(
                limits=output.config.limits, store=store, secrets=store.secrets
            )
            printer = output.printer(audio=_PRINTED, conversation=conversation)
            return asyncio.run(print_entries(entries, conversation, printer))
    except StoreError as error:
        return _fail(str(error))


_PRINTED = AudioSupport(False, "this is a printed transcript; play it in the app")
