"""After a regenerate the keys act on items, and one line says the exchange was replaced
(issue 27: "after a regenerate Home lands on the notice; each edit or regenerate stacks
another two-line notice; lifecycle lines are focus stops that say nothing to inspect here").

On the real demo host over loopback. Without `Block.stop` Home lands on the welcome line and
End on "run completed"; without the resend controller dropping its earlier line, two
regenerates show two lines; without the cursor following, a regenerate from the transcript
leaves nothing selected (and E, r do nothing there).
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, run_over, select_item, settle, turn

from openwop_tui.core.fold import Notice, UserTurn
from openwop_tui.core.updates import REPLACED_NOTICE
from openwop_tui.ui.app import ChatApp


def _replaced_lines(app: ChatApp) -> int:
    return sum(
        1
        for block in app.view.blocks()
        if isinstance(block.item, Notice) and block.item.text == REPLACED_NOTICE
    )


def _sent(app: ChatApp) -> int:
    return sum(1 for item in app.transcript.items if isinstance(item, UserTurn))


async def test_regenerate_twice_keeps_one_line_and_the_keys_on_items() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello")
        view = app.view
        for n in (1, 2):
            (user,) = [b for b in view.blocks() if isinstance(b.item, UserTurn)]
            await select_item(pilot, app, user)
            await pilot.press("r")
            await settle(
                pilot,
                app,
                lambda n=n: _sent(app) == n + 1 and run_over(app),  # type: ignore[misc]
                what=f"regenerate {n} over",
            )
            assert _replaced_lines(app) == 1  # the earlier one went with its exchange
            # The transcript kept the focus, and the cursor is on what is there now.
            assert view.has_focus and view.cursor is not None
            assert view.blocks()[view.cursor].stop
        await pilot.press("home")
        await pilot.pause()
        first = view.blocks()[view.cursor or 0].item
        assert isinstance(first, UserTurn) and first.text == "hello"
        await pilot.press("end")
        await pilot.pause()
        last = view.blocks()[view.cursor or 0]
        assert last.stop and not isinstance(last.item, Notice)  # not "run completed"
        # The transcript keeps every line: the session tells what happened.
        kept = [i for i in app.transcript.items if isinstance(i, Notice)]
        assert sum(1 for i in kept if i.text == REPLACED_NOTICE) == 2
