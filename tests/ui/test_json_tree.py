"""The lazy JSON view in a tiny app and in the envelope inspector, driven with Pilot: keys fold,
unfold and copy; the inspector opens on a 10 MB envelope having made a bounded number of rows
(counted, not timed), copies the whole document through the clipboard helper, and keeps what
is folded across a theme change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app_support import (
    SIZE,
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: importing it applies it here)
    connected,
    demo_app,
    envelope_views,
    select_item,
    settle,
    turn,
)
from json_support import big_document, envelope_of
from rich.style import Style
from textual.app import App, ComposeResult

from openwop_tui.devices.clipboard import COPY_FILE
from openwop_tui.themes import THEMES
from openwop_tui.ui import theme_palette
from openwop_tui.ui.screens.inspect import InspectScreen
from openwop_tui.ui.widgets.json_pieces import plain
from openwop_tui.ui.widgets.json_rows import MORE, OPEN_BUDGET, PAGE
from openwop_tui.ui.widgets.json_tree import JsonTree

DOCUMENT = {
    "type": "media.image",
    "meta": {"rendering": {"display": "image", "alt": "\x1b]52;c;ZXZpbA==\x07 a cat"}},
    "payload": {"items": list(range(1_000)), "odd key": {"x": 1}},
}


class TreeApp(App[None]):
    def __init__(self, value: Any, **options: Any) -> None:
        super().__init__()
        self.value = value
        self.options = options
        self.copies: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield JsonTree(self.value, **self.options)

    def on_mount(self) -> None:
        self.query_one(JsonTree).focus()

    def on_json_tree_copy_requested(self, message: JsonTree.CopyRequested) -> None:
        self.copies.append((message.what, message.build()))


def lines(tree: JsonTree) -> list[str]:
    return [plain(tree.rows, i) for i in range(len(tree.rows))]


def on_screen(tree: JsonTree) -> str:
    """The rows the tree draws right now, as text."""
    return "\n".join(tree.render_line(y).text for y in range(tree.size.height))


async def test_keys_move_fold_unfold_and_copy() -> None:
    app = TreeApp(DOCUMENT)
    async with app.run_test(size=(80, 24)) as pilot:
        tree = app.query_one(JsonTree)
        assert lines(tree)[:3] == ["▾ {", '    "type": "media.image"', '  ▾ "meta": {']
        await pilot.press("down", "down")
        assert tree.cursor == 2
        await pilot.press("left")  # fold "meta"
        assert lines(tree)[2] == '  ▸ "meta": {…} 1 key'
        await pilot.press("enter")  # unfold it again
        assert lines(tree)[2] == '  ▾ "meta": {'
        await pilot.press("space")  # Enter and Space flip an open node
        assert lines(tree)[2] == '  ▸ "meta": {…} 1 key'
        await pilot.press("right", "right")  # unfold, then step in
        assert tree.cursor == 3
        await pilot.press("down", "down")
        assert plain(tree.rows, tree.cursor).lstrip().startswith('"alt"')
        await pilot.press("p", "c")
        await pilot.press("left")  # on a scalar: to its parent
        assert plain(tree.rows, tree.cursor).lstrip() == '▾ "rendering": {'
        assert app.copies[0] == ("the path $.meta.rendering.alt", "$.meta.rendering.alt")
        what, text = app.copies[1]
        assert what == "the JSON at $.meta.rendering.alt"
        assert json.loads(text) == DOCUMENT["meta"]["rendering"]["alt"]  # type: ignore[index]
        assert "\x1b" not in text and "\x07" not in text

        await pilot.press("end")
        assert tree.cursor == len(tree.rows) - 1
        assert tree.scroll_offset.y == len(tree.rows) - tree.scrollable_content_region.height
        await pilot.press("home")
        assert (tree.cursor, tree.scroll_offset.y) == (0, 0)
        await pilot.press("pagedown")
        assert tree.cursor == tree.scrollable_content_region.height - 1

        await pilot.press("home", "minus")  # fold everything
        assert lines(tree) == ["▸ {…} 3 keys"]
        await pilot.press("asterisk")  # unfold everything (one page of items)
        shown = lines(tree)
        assert '        "display": "image"' in shown
        assert sum(row.part == MORE for row in tree.rows.rows) == 1
        assert any(
            line.endswith(f"{1_000 - PAGE:,} more items (Enter shows 200 more)") for line in shown
        )


async def test_rows_are_drawn_cleaned_and_only_for_the_visible_range() -> None:
    app = TreeApp(DOCUMENT)
    async with app.run_test(size=(60, 12)) as pilot:
        tree = app.query_one(JsonTree)
        await pilot.press("asterisk")
        await pilot.pause()
        drawn = on_screen(tree)
        assert "ZXZpbA" in drawn and "\x1b" not in drawn and "\x07" not in drawn
        assert '"items": [' in drawn
        assert len(tree._cache) <= tree.scrollable_content_region.height
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert len(tree._cache) <= 3 * tree.scrollable_content_region.height


async def test_unfold_all_says_when_it_stops_at_its_bound() -> None:
    app = TreeApp({"a": [[n, [n]] for n in range(2_000)]}, unfold_budget=300)
    async with app.run_test(size=(80, 24)) as pilot:
        tree = app.query_one(JsonTree)
        before = tree.rows.built
        await pilot.press("asterisk")
        assert tree.rows.built - before <= 300
        messages = [n.message for n in app._notifications]
        assert any("stopped there (at most 300 at a time)" in m for m in messages)


async def test_the_inspector_opens_a_10_mb_envelope_having_made_few_rows(tmp_path: Path) -> None:
    document = big_document()
    envelope = envelope_of(document)
    app = App[None]()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(InspectScreen(envelope, None, downloads=tmp_path))
        await pilot.pause()
        assert isinstance(app.screen, InspectScreen)
        trees = list(app.screen.query(JsonTree))
        assert [t.id for t in trees] == ["envelope-json", "event-json"]
        for tree in trees:
            assert tree.rows.built <= OPEN_BUDGET
            assert len(tree.rows) <= 2 * OPEN_BUDGET + 2
        envelope_tree, event_tree = trees
        assert envelope_tree.has_focus
        assert '"type": "vendor.acme.table"' in on_screen(envelope_tree)
        assert '"type": "node.completed"' in on_screen(event_tree)  # the source event, beside it
        titles = [str(t.parent.border_title) for t in trees]  # type: ignore[union-attr]
        assert titles == [
            "envelope · vendor.acme.table",
            "source event · node.completed · sequence 7",
        ]

        await pilot.press("c")  # the whole envelope, nothing cut, through the clipboard helper

        def said_so() -> bool:
            # The notice comes after the file is written, as a message of its own: waiting
            # for the worker alone raced it on a loaded machine.
            said = [n.message for n in app._notifications]
            return any(
                m.startswith("The JSON at $ was sent to the terminal's clipboard") for m in said
            )

        await settle(pilot, app, said_so, what="the copy said")
        saved = tmp_path / COPY_FILE
        assert json.loads(saved.read_text(encoding="utf-8")) == document

        await pilot.press("tab")
        assert event_tree.has_focus
        await pilot.press("down", "p")
        await app.screen.workers.wait_for_complete()
        assert saved.read_text(encoding="utf-8") == "$.type"

        # A theme change redraws in the new colours and keeps what is folded.
        await pilot.press("down", "down", "down", "down", "left")
        folded = lines(event_tree)
        app.register_theme(THEMES[0])
        app.theme = THEMES[0].name
        await pilot.pause()
        assert isinstance(app.screen, InspectScreen)
        assert lines(app.screen.query_one("#event-json", JsonTree)) == folded
        key = Style.parse(theme_palette.of(app.current_theme).primary).color
        drawn_keys = [
            segment.style.color
            for segment in event_tree.render_line(1)
            if segment.text.startswith('"') and segment.style is not None
        ]
        assert drawn_keys and drawn_keys[0] == key  # the new theme's colour, not a cached one


async def test_in_the_app_the_inspector_folds_and_copies_into_the_download_folder(
    tmp_path: Path,
) -> None:
    app = demo_app(download_dir=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "json please")
        hologram = next(
            view for view in envelope_views(app) if view.item.envelope.display == "hologram"
        )
        await select_item(pilot, app, hologram)
        await pilot.press("i")
        await settle(pilot, app, lambda: isinstance(app.screen, InspectScreen), what="inspector")
        tree = app.screen.query_one("#envelope-json", JsonTree)
        assert tree.has_focus
        await pilot.press("left")  # the app's own keys do not take the tree's
        assert lines(tree) == [lines(tree)[0]] and lines(tree)[0].startswith("▸ {…}")
        await pilot.press("enter", "down", "p")
        await settle(pilot, app, lambda: (tmp_path / COPY_FILE).exists(), what="the copy")
        assert (tmp_path / COPY_FILE).read_text(encoding="utf-8") == "$.type"
        await pilot.click(JsonTree, offset=(4, 0))  # a click puts the cursor on the row
        assert tree.cursor == tree.scroll_offset.y
