"""Edit-and-resend and regenerate keep a message's attachments (issue 25, part 5), on the real
demo host over loopback: ``r`` sends the picture again with the words (the host's ``run.started``
echoes the same bytes, and its answer names the picture again); ``E`` puts the picture back in
the chips with the words, Esc takes both away, Enter sends them in place of the exchange.

Without `own_media.sent_with` (or the resend controller's use of it) the message goes again
without its picture: the echoed content is a plain string and the answer names no picture.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    SIZE,
    connected,
    demo_app,
    items_of,
    run_over,
    select_item,
    settle,
    turn,
)
from media_parts import two_colour_png

from openwop_tui.core.fold import AssistantTurn, UserTurn
from openwop_tui.core.own_media import is_own
from openwop_tui.store.sessions import Store


def _echoed_parts(session_id: str) -> list[list[dict[str, Any]]]:
    """The attachment parts of each run's last message, as the host echoed them."""
    found = []
    for entry in Store().entries(session_id):
        if entry.kind == "frame" and '"run.started"' in entry.data:
            data = json.loads(entry.data)
            payload = data.get("data") or data.get("payload") or data
            content = payload["inputs"]["messages"][-1]["content"]
            found.append([p for p in content if p.get("type") != "text"] if content else [])
    return found


def _chips(app: Any) -> list[str]:
    return [attachment.name for attachment in app.attaching.pending]


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "picture.png"
    path.write_bytes(two_colour_png((64, 32)))
    return path


async def _sent_with_a_picture(pilot: Any, app: Any, picture: Path) -> None:
    await connected(pilot, app)
    assert app.attaching.add_path(picture)
    await turn(pilot, app, "what is this?")
    assert "64\u00d732" in items_of(app, AssistantTurn)[-1].full_text


async def test_regenerate_sends_the_picture_again(picture: Path) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await _sent_with_a_picture(pilot, app, picture)
        (user,) = [b for b in app.view.blocks() if isinstance(b.item, UserTurn)]
        await select_item(pilot, app, user)
        await pilot.press("r")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == 2 and run_over(app),
            what="the regenerated run ended",
        )
        assert "64\u00d732" in items_of(app, AssistantTurn)[-1].full_text
        # On screen: the new message's picture only (the replaced one left with its exchange).
        assert len([b for b in app.view.blocks() if is_own(b.item)]) == 1
        session_id = app.sessions.kept_session_id()
    first, again = _echoed_parts(session_id)
    assert len(first) == len(again) == 1
    assert base64.b64decode(again[0]["dataBase64"]) == picture.read_bytes()


async def test_edit_puts_the_picture_back_in_the_chips(picture: Path) -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await _sent_with_a_picture(pilot, app, picture)
        (user,) = [b for b in app.view.blocks() if isinstance(b.item, UserTurn)]
        await select_item(pilot, app, user)
        await pilot.press("E")
        await settle(pilot, app, lambda: _chips(app) == ["picture.png"], what="chips back")
        assert app.chat.parts.prompt.value == "what is this?"
        await pilot.press("escape")
        await settle(pilot, app, lambda: not app.resend.editing, what="the edit cancelled")
        assert _chips(app) == [] and app.chat.parts.prompt.value == ""
        await select_item(pilot, app, user)
        await pilot.press("E")
        await settle(pilot, app, lambda: _chips(app) == ["picture.png"], what="chips back")
        app.chat.parts.prompt.value = "and now?"
        app.chat.parts.prompt.focus()
        await pilot.press("enter")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == 2 and run_over(app),
            what="the edited message's run ended",
        )
        assert _chips(app) == []
        assert "64\u00d732" in items_of(app, AssistantTurn)[-1].full_text
        session_id = app.sessions.kept_session_id()
    assert [len(parts) for parts in _echoed_parts(session_id)] == [1, 1]
