"""The event timeline never shows a piece of the API key (issue 23, item 3): the app against a
host that echoes the key cut across streamed chunks (`key_split.KeySplitHost`), the key
configured. Every view of the run's events is read: the rows of the F2 panel and of the
timeline screen (F9), the rows of the reply's events ('e' on it), and each chunk event's JSON
tree (Enter on its row) and what ``c`` copies of it. None may hold a `key_split.PIECE`-character
piece of the key, row by row or with the chunk rows' texts joined; the key is masked there, not
dropped.

Measured before the fix: the rows read ``'Two: sk-keysplit-7Qm2V'`` and ``'x9Lp4Rt8Wn3Zc6Yb1Hd. '``,
and so did the JSON of those events.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from app_support import (
    NO_AUDIO,
    SIZE,
    connected,
    envelope_views,
    on_screen,
    plain,
    select_item,
    settle,
)
from key_split import KEY, RECORDING, RUN, KeySplitHost, key_piece
from textual.pilot import Pilot
from textual.widgets import Static

from openwop_tui.config import Config
from openwop_tui.core.items import AssistantTurn
from openwop_tui.protocol.events import normalize
from openwop_tui.protocol.hostdata import MASK
from openwop_tui.store.record import read_recording
from openwop_tui.store.records import Entry as StoredEntry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.screens.event import EventScreen
from openwop_tui.ui.screens.inspect import InspectScreen
from openwop_tui.ui.screens.timeline import TimelineScreen
from openwop_tui.ui.widgets.json_pieces import plain as tree_row_text
from openwop_tui.ui.widgets.json_tree import JsonTree
from openwop_tui.ui.widgets.timeline_view import Entry, TimelineView

#: A screen wide enough for the docked timeline to show a row's summary.
WIDE = (300, 50)
#: The sequences of the recording's key cut in three ("Three: sk-ke" + "ysplit-7Qm2Vx9L" + …).
CUT = (5, 6, 7)
#: Event types whose rows show a piece of text (a reply's chunk, a reasoning delta).
PIECES = ("output.chunk", "node.message", "ai.message.chunk", "agent.reasoning.delta")


def pieces_shown(entries: list[Entry]) -> str:
    """The texts the chunk rows show, joined in order (each summary is the piece's ``repr``)."""
    out = []
    for entry in entries:
        if entry.row.type in PIECES:
            out.append(ast.literal_eval(entry.row.summary.removesuffix("…")))
    return "".join(out)


def check_rows(view: TimelineView) -> None:
    for line in [*view.plain_lines(), *on_screen(view).splitlines()]:  # (as drawn, too)
        assert key_piece(line) is None, line
    joined = pieces_shown(view.entries)
    assert key_piece(joined) is None, joined
    assert MASK in joined  # masked, not dropped


async def streamed(pilot: Pilot[Any], app: ChatApp, view: TimelineView) -> None:
    """The run sent and over, and every event of it in ``view``."""
    await app.workers.wait_for_complete()
    await settle(
        pilot,
        app,
        lambda: (
            app.transcript.status == "completed"
            and not app.runs.busy
            and len(view.entries) == len(app.timeline.kept.entries)
            and any(e.row.sequence == 65 for e in view.entries)
        ),
        what="every event in the timeline",
    )


async def test_no_view_of_the_timeline_shows_a_piece_of_a_key_cut_across_chunks() -> None:
    with KeySplitHost() as host:
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot, app)
            await pilot.press("f2")
            panel = app.chat.parts.events
            await settle(pilot, app, lambda: panel.display, what="the timeline shown")
            await pilot.press(*"go", "enter")
            await streamed(pilot, app, panel.view)
            check_rows(panel.view)

            # The first reply's events ('e' on it): the timeline screen, filtered to them.
            reply = next(b for b in app.view.blocks() if isinstance(b.item, AssistantTurn))
            app.view.focus()
            app.view.select(app.view.blocks().index(reply))
            await pilot.press("e")
            await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen))
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            view = screen.panel.view
            await settle(pilot, app, lambda: any(e.row.type in PIECES for e in view.entries))
            check_rows(view)

            # The whole timeline on its screen, and each piece's event opened as JSON.
            screen.panel.filter_input.value = ""
            await settle(pilot, app, lambda: len(view.entries) == len(panel.view.entries))
            check_rows(view)
            # What Enter shows and ``c`` copies of each piece's event (the screen's tree is
            # made of `Entry.event`), and the screen itself for the pieces of one cut key
            # (opening a screen per event would take the test a minute).
            chunks: list[str] = []
            for entry in [e for e in view.entries if e.row.type in PIECES]:
                document = entry.event.raw
                assert key_piece(json.dumps(document, ensure_ascii=False)) is None, document
                payload = document["payload"]
                chunks.append(payload.get("chunk", payload.get("delta", "")))
            joined = "".join(chunks)
            assert key_piece(joined) is None, joined
            assert MASK in joined
            for entry in [e for e in view.entries if e.row.sequence in CUT]:
                view.focus()
                view.select_entry(entry)
                await pilot.press("enter")
                await settle(pilot, app, lambda: isinstance(app.screen, EventScreen))
                tree = app.screen.query_one(JsonTree)
                shown = "\n".join(tree_row_text(tree.rows, i) for i in range(len(tree.rows)))
                assert key_piece(shown) is None, shown
                copied = tree.rows.copy_json(tree.rows.root)
                assert key_piece(copied) is None, copied
                await pilot.press("escape")
                await settle(pilot, app, lambda: app.screen is screen)


async def test_a_reopened_session_stored_without_the_key_shows_no_piece_in_its_timeline() -> None:
    """A session a store that did not know the key kept (an older version, a key set later):
    its rows hold every piece; the timeline read from them masks the key all the same."""
    with Store() as store:
        session = store.create(host="http://127.0.0.1:1", workflow="echo", title="split")
        store.append(session, StoredEntry("user", "say my key"))
        store.append(session, StoredEntry("run", "", run=RUN, meta={"workflow": "echo"}))
        for entry in read_recording(RECORDING.read_text(encoding="utf-8")).entries:
            store.append(session, StoredEntry(entry.kind, entry.data, run=RUN, label=entry.label))
        store.append(session, StoredEntry("end", "", run=RUN, meta={"status": "completed"}))
    with KeySplitHost() as host:
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, AppOptions(session_id=session), audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, app, lambda: bool(app.transcript.items), what="the session")
            await pilot.press("f9")
            await settle(pilot, app, lambda: isinstance(app.screen, TimelineScreen))
            screen = app.screen
            assert isinstance(screen, TimelineScreen)
            view = screen.panel.view
            await settle(pilot, app, lambda: any(e.row.sequence == 65 for e in view.entries))
            check_rows(view)
            for entry in [e for e in view.entries if e.row.type in PIECES]:
                document = json.dumps(entry.event.raw, ensure_ascii=False)
                assert key_piece(document) is None, document


def _with_envelope() -> str:
    """The recording, then node ``f``'s completion carrying a code envelope that holds the
    key whole (in its source and its title)."""
    envelope = {
        "type": "vendor.acme.snippet",
        "schemaVersion": 1,
        "envelopeId": "env_k",
        "nodeId": "f",
        "payload": {"source": f"KEY = {KEY!r}\n"},
        "meta": {"rendering": {"display": "code", "lang": "python", "title": f"{KEY}.py"}},
    }
    doc = {
        "type": "node.completed",
        "runId": RUN,
        "sequence": 66,
        "nodeId": "f",
        "payload": {"nodeId": "f", "outputs": {"envelope": envelope}},
    }
    frame = f"id: 66\nevent: node.completed\ndata: {json.dumps(doc)}\n\n"
    return RECORDING.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + frame


async def test_the_envelope_inspector_shows_no_piece_of_the_key() -> None:
    with KeySplitHost(_with_envelope()) as host:
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await connected(pilot, app)
            await pilot.press(*"go", "enter")
            await app.workers.wait_for_complete()
            await settle(pilot, app, lambda: bool(envelope_views(app)), what="the envelope")
            (block,) = envelope_views(app)
            await select_item(pilot, app, block)
            await pilot.press("i")
            await settle(pilot, app, lambda: isinstance(app.screen, InspectScreen))
            screen = app.screen
            assert isinstance(screen, InspectScreen)
            summary = plain(screen.query_one("#summary-text", Static).content)
            assert "display" in summary and key_piece(summary) is None, summary
            for tree in app.screen.query(JsonTree):
                tree.rows.unfold_all(0)
                shown = "\n".join(tree_row_text(tree.rows, i) for i in range(len(tree.rows)))
                assert key_piece(shown) is None, shown
                assert MASK in shown
                copied = tree.rows.copy_json(tree.rows.root)
                assert key_piece(copied) is None, copied


async def test_a_row_drawn_while_its_end_waited_is_drawn_again_once_decided() -> None:
    """The F2 panel draws a chunk whose end could start the key as ``…``; the next chunk
    completes the key, and the row on screen then reads the mask."""
    with KeySplitHost() as host:
        config = Config(host=host.url, api_key=KEY, audio=False, images="none")
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=WIDE) as pilot:
            await connected(pilot, app)
            await pilot.press("f2")
            view = app.chat.parts.events.view
            await settle(pilot, app, lambda: view.display, what="the timeline shown")

            def arrive(sequence: int, text: str) -> None:
                payload = {"nodeId": "a", "chunk": text}
                doc = {
                    "type": "output.chunk",
                    "runId": RUN,
                    "sequence": sequence,
                    "payload": payload,
                }
                wire = json.dumps(doc)
                app.timeline.arrived(normalize(json.loads(wire), secrets=(KEY,), wire=wire))

            arrive(3, "Two: sk-keysplit-7Qm2V")
            await settle(pilot, app, lambda: "Two: …" in on_screen(view), what="the row drawn")
            arrive(4, "x9Lp4Rt8Wn3Zc6Yb1Hd. ")
            await settle(pilot, app, lambda: f"Two: {MASK}" in on_screen(view), what="redrawn")
            check_rows(view)
