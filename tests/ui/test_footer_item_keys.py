"""The footer shows the keys that apply to the focused item (issue 15, Build 8): before, every
item key (save, open, play, stop, copy, copy code, inspect, matrix…) was listed on any item.
Now a reply offers copy (and copy code when it has code), a file save / open / inspect, a clip
play / stop, the last message edit and regenerate; and a key that does not apply still says
why when pressed. Real demo host over loopback; read from the footer's own widgets.

Without `TranscriptView.check_action` every item key is in the footer on every item.
"""

from __future__ import annotations

from app_support import (
    connected,
    demo_app,
    envelope_views,
    record_notifications,
    select_item,
    settle,
    turn,
)
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from openwop_tui.core.fold import AssistantTurn, UserTurn
from openwop_tui.ui.app import ChatApp

ITEM_KEYS = {"Save", "Open", "Play", "Stop", "Copy", "Copy code", "Inspect", "Matrix"}
ITEM_KEYS |= {"Edit & resend", "Regenerate", "Events (e)"}


def _footer(app: ChatApp) -> set[str]:
    """The item keys the footer shows now."""
    footer = app.screen.query_one(Footer)
    shown = set()
    for key in footer.query(FooterKey).results():
        if not key.display:
            continue  # (a key widget kept for later: `SteadyFooter`)
        # The transcript's e and the app's F2 are both "Events".
        shown.add(f"{key.description} (e)" if key.key == "e" else key.description)
    return shown & ITEM_KEYS


async def _shown(pilot: object, app: ChatApp, wanted: set[str]) -> set[str]:
    await settle(pilot, app, lambda: _footer(app) == wanted, what=f"footer {wanted}")  # type: ignore[arg-type]
    return _footer(app)


async def test_the_footer_lists_only_the_selected_items_keys() -> None:
    app = demo_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello there")
        await turn(pilot, app, "a file please")
        assert _footer(app) == set()  # the input has focus: no item, no item keys
        blocks = app.view.blocks()
        users = [b for b in blocks if isinstance(b.item, UserTurn)]
        reply = next(b for b in blocks if isinstance(b.item, AssistantTurn))
        file_block = next(b for b in envelope_views(app) if "save" in b.actions())

        await select_item(pilot, app, file_block)
        shown = await _shown(pilot, app, {"Save", "Open", "Inspect", "Matrix", "Events (e)"})
        assert "Play" not in shown and "Edit & resend" not in shown
        await select_item(pilot, app, reply)
        await _shown(pilot, app, {"Copy", "Events (e)"})
        await select_item(pilot, app, users[-1])
        await _shown(pilot, app, {"Copy", "Edit & resend", "Regenerate"})
        await select_item(pilot, app, users[0])
        await _shown(pilot, app, {"Copy"})  # not the last message

        # A key not offered still says why when pressed.
        notes = record_notifications(app)
        await select_item(pilot, app, reply)
        await pilot.press("p")
        await settle(pilot, app, lambda: bool(notes), what="a warning")
        assert notes == [("warning", "nothing to play here")]
