"""Snapshots of the tab bar (issue 27) in every theme, at 80x24 and 120x40: three chats open,
the first's run ended while another tab was shown (its ✓ mark), the second's run waiting for an
answer in the background (its ? mark), the third shown, lit. Reuses the app and the fixtures of
`tests/ui/test_app_snapshots.py` (the fixed `SNAPSHOT_PORT`, the one xdist group) by import.

The runs are held by their questions (`demo.clarify`), and the first is answered while its tab
is not shown: nothing on screen depends on timing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from app_support import connected, send, settle
from test_app_snapshots import (  # noqa: F401  (fixed_durations, free_port: autouse fixtures)
    OTHER_THEMES,
    Snap,
    app_of,
    fixed_durations,
    free_port,
    snapshot_app,
)
from textual.pilot import Pilot

from openwop_tui.core.items import Interrupt
from openwop_tui.protocol.interrupt_answers import build_answer
from openwop_tui.ui.app import ChatApp

pytestmark = pytest.mark.xdist_group("snapshots")


async def _asking(pilot: Pilot[Any], app: ChatApp, text: str) -> None:
    await send(pilot, app, text)
    tab = app.tabs.current
    await settle(
        pilot, app, lambda: tab.interrupts.has_open_form(), what="the question", workers=False
    )


async def _new_tab(pilot: Pilot[Any], app: ChatApp) -> None:
    count = len(app.tabs.tabs)
    await pilot.press("ctrl+n")
    await settle(pilot, app, lambda: len(app.tabs.tabs) == count + 1, workers=False)
    await settle(
        pilot,
        app,
        lambda: app.session is not None and app.session.discovery is not None,
        what="the new tab connected",
        workers=False,
    )


async def _three_tabs(pilot: Pilot[Any]) -> None:
    app = app_of(pilot)
    await connected(pilot, app)
    first = app.tabs.current
    await _asking(pilot, app, "Summary card for the launch review")
    await _new_tab(pilot, app)
    # The first tab's question answered while it is not shown: its run ends in the background.
    (question,) = [i for i in first.chat.transcript.items if isinstance(i, Interrupt)]
    assert question.request is not None
    answers = {"colour": "green", "name": "Ada"}
    value = build_answer(question.request, now=datetime.now(UTC), answers=answers)
    await first.interrupts.answer(question.id, value)
    await settle(pilot, app, lambda: app.tabs.bar.labels[0].mark == "done", what="✓", workers=False)
    await _asking(pilot, app, "Release notes")
    await _new_tab(pilot, app)
    app.chat.parts.prompt.cursor_blink = False
    await settle(pilot, app, lambda: bool(app.transcript.items), what="the hint", workers=False)
    assert [label.mark for label in app.tabs.bar.labels] == ["done", "asking", ""]
    app.clear_notifications()  # (the first tab's "answer sent": gone after a while)
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("theme", [None, *OTHER_THEMES])
def test_the_tab_bar(snap_compare: Snap, theme: str | None, size: tuple[int, int]) -> None:
    app = snapshot_app(theme, workflow="demo.clarify")
    assert snap_compare(app, terminal_size=size, run_before=_three_tabs)
