"""Edit-and-resend and regenerate the last message (issue 15, Build 1), on the real demo host
over loopback: ``E`` on the last user item puts its text back in the prompt and Enter sends the
edited text in place of the last exchange; ``r`` sends it again. The view shows only the new
exchange; the host is sent the history without the replaced one (read from the frames the
store kept, as they came over the wire); the store keeps both exchanges and a line saying one
was replaced, and a reopened session sends the same history.

Without `Conversation.replace_last_exchange` the old exchange stays on screen and in the
history sent to the host; without the ``replaces`` count in the log, a reopened session would
send the replaced exchange again.
"""

from __future__ import annotations

import json

from app_support import (
    SIZE,
    as_if_running,
    connected,
    demo_app,
    items_of,
    record_notifications,
    run_over,
    select_item,
    settle,
    turn,
)

from openwop_tui.core.fold import AssistantTurn, Notice, UserTurn
from openwop_tui.core.opening import stored
from openwop_tui.core.updates import REPLACED_NOTICE
from openwop_tui.store.sessions import Store


def _users_on_screen(app: object) -> list[str]:
    return [b.item.text for b in app.view.blocks() if isinstance(b.item, UserTurn)]  # type: ignore[attr-defined]


def _sent_histories(session_id: str) -> list[list[str]]:
    """Each run's ``inputs.messages`` as the host echoed them in ``run.started`` (the frames
    the store kept as they arrived)."""
    sent = []
    for entry in Store().entries(session_id):
        if entry.kind == "frame" and '"run.started"' in entry.data:
            data = json.loads(entry.data)
            payload = data.get("data") or data.get("payload") or data
            messages = payload["inputs"]["messages"]
            sent.append([f"{m['role']}:{m['content'][:20]}" for m in messages])
    return sent


async def test_edit_and_resend_replaces_the_last_exchange() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello there")
        await turn(pilot, app, "code please")
        last = app.view.blocks()[-1]
        user_blocks = [b for b in app.view.blocks() if isinstance(b.item, UserTurn)]
        await select_item(pilot, app, user_blocks[-1])
        await pilot.press("E")
        await settle(pilot, app, lambda: app.chat.parts.prompt.value == "code please", what="in")
        assert app.chat.parts.prompt.has_focus and app.resend.editing
        app.chat.parts.prompt.value = "a card please"
        await pilot.press("enter")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == 3 and run_over(app),
            what="the edited message's run ended",
        )
        assert _users_on_screen(app) == ["hello there", "a card please"]
        assert app.view.block_for(last.item_id) is None  # the old reply is off the screen
        assert REPLACED_NOTICE in [
            b.item.text for b in app.view.blocks() if isinstance(b.item, Notice)
        ]
        history = [(m["role"], m["content"][:13]) for m in app.conversation.history]
        assert [role for role, _ in history] == ["user", "assistant", "user", "assistant"]
        assert [text for role, text in history if role == "user"] == [
            "hello there",
            "a card please",
        ]
        # The transcript keeps what was replaced (exports, the store).
        assert [i.text for i in items_of(app, UserTurn)] == [
            "hello there",
            "code please",
            "a card please",
        ]
        session_id = app.sessions.kept_session_id()
        assert session_id is not None
        app.conversation.logbook.flush()
    sent = _sent_histories(session_id)
    assert len(sent) == 3
    assert [m for m in sent[2] if m.startswith("user:")] == [
        "user:hello there",
        "user:a card please",
    ]
    assert not any("code please" in m for m in sent[2])
    # Reopened from the store: both exchanges are shown, with the line between, and the next
    # message carries the same history as live.
    reopened = stored(Store(), session_id)
    assert [i.text for i in reopened.transcript.items if isinstance(i, UserTurn)] == [
        "hello there",
        "code please",
        "a card please",
    ]
    assert [m["content"][:13] for m in reopened.history if m["role"] == "user"] == [
        "hello there",
        "a card please",
    ]


async def test_regenerate_sends_the_last_message_again_in_its_place() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "code please")
        first_reply = items_of(app, AssistantTurn)[-1]
        await app.run_action("regenerate")
        await settle(
            pilot,
            app,
            lambda: len(items_of(app, UserTurn)) == 2 and run_over(app),
            what="regenerated",
        )
        assert _users_on_screen(app) == ["code please"]
        assert app.view.block_for(first_reply.id) is None
        assert [m["role"] for m in app.conversation.history] == ["user", "assistant"]
        session_id = app.sessions.kept_session_id()
        assert session_id is not None
        app.conversation.logbook.flush()
    sent = _sent_histories(session_id)
    assert sent[1] == ["user:code please"]  # not the first exchange again


async def test_only_the_last_message_and_not_while_a_run_goes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        notes = record_notifications(app)
        await app.run_action("regenerate")
        assert ("warning", "Nothing sent yet: there is no message to edit or regenerate.") in notes
        await turn(pilot, app, "hello there")
        await turn(pilot, app, "code please")
        first = next(b for b in app.view.blocks() if isinstance(b.item, UserTurn))
        await select_item(pilot, app, first)
        await pilot.press("r")
        await pilot.pause()
        assert ("warning", "Only your last message can be edited or regenerated.") in notes
        with as_if_running():
            await app.run_action("edit_last")
        assert any("run is in progress" in text for _, text in notes)
        # Esc while editing keeps the exchange.
        await app.run_action("edit_last")
        await pilot.pause()
        assert app.resend.editing
        app.chat.parts.prompt.focus()
        await pilot.press("escape")
        await pilot.pause()
        assert not app.resend.editing and _users_on_screen(app) == ["hello there", "code please"]
