"""Attaching files in the app (issue 25, parts 1, 3 and 8), on the embedded demo host over
loopback: ``/attach PATH`` and a pasted path add chips above the prompt, the picker (F6) attaches
what is typed or chosen, a chip goes with Delete, Enter sends the message with its attachments
(words optional) and the log keeps them; a refusal is said and changes nothing, and a message
the host cannot take comes back whole. Each fails without its part."""

from __future__ import annotations

import base64
import io
import random
from dataclasses import replace
from pathlib import Path

from app_support import (
    SIZE,
    connected,
    demo_app,
    items_of,
    pick_file,
    record_notifications,
    send,
    settle,
)
from PIL import Image
from textual.events import Paste

from openwop_tui.core.items import AssistantTurn, Notice, UserTurn
from openwop_tui.store.sessions import Store
from openwop_tui.ui.screens.attach_picker import AttachPicker
from openwop_tui.ui.screens.send_anyway import SendAnywayScreen
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import PromptInput


def _png(path: Path, size: tuple[int, int] = (16, 8), noise: bool = False) -> Path:
    image = Image.new("RGB", size, (30, 90, 200))
    if noise:
        # (Seeded noise: a PNG of it does not compress, so it is as big as its pixels.)
        image = Image.frombytes("RGB", size, random.Random(7).randbytes(size[0] * size[1] * 3))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())
    return path


def _chips(app: object) -> list[str]:
    chips = app.query_one(AttachmentChips)  # type: ignore[attr-defined]
    return [a.name for a in chips.attachments]


async def test_attach_by_command_and_paste_then_send_with_the_words(tmp_path: Path) -> None:
    picture = _png(tmp_path / "chart.png")
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\n## Part\n", encoding="utf-8")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, f"/attach {picture}")
        prompt = app.query_one(PromptInput)
        prompt.post_message(Paste(str(notes)))  # a dropped file, as a terminal pastes it
        await settle(pilot, app, lambda: len(_chips(app)) == 2, what="two chips")
        assert _chips(app) == ["chart.png", "notes.md"] and prompt.text == ""
        assert "Enter sends 2 attachments" in str(prompt.placeholder)
        await send(pilot, app, "what are these?")
        await settle(
            pilot,
            app,
            lambda: bool(items_of(app, UserTurn)) and not app.runs.busy,
            what="the message answered",
        )
        (turn,) = items_of(app, UserTurn)
        assert turn.text == "what are these?"
        assert [a.name for a in turn.attachments] == ["chart.png", "notes.md"]
        assert not _chips(app)
        # The history sends them again with their turn; the log keeps them byte for byte.
        content = app.conversation.history[0]["content"]
        assert [part["type"] for part in content] == ["text", "image", "file"]
        session_id = app.sessions.kept_session_id()
    assert session_id is not None
    with Store() as store:
        (user,) = [e for e in store.entries(session_id) if e.kind == "user"]
    assert [p.get("alt") or p.get("name") for p in user.meta["parts"]] == ["chart.png", "notes.md"]


async def test_a_refused_file_is_said_and_changes_nothing(tmp_path: Path) -> None:
    picture = _png(tmp_path / "chart.png")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        notes = record_notifications(app)
        await connected(pilot, app)
        await send(pilot, app, f"/attach {picture}")
        await send(pilot, app, f"/attach {tmp_path / 'missing.png'}")
        await send(pilot, app, f"/attach {tmp_path}")
        await settle(pilot, app, lambda: len(notes) >= 3, what="three notifications")
        said = [text for _, text in notes]
        assert any("missing.png: there is no such file" in text for text in said)
        assert any("it is a folder" in text for text in said)
        assert _chips(app) == ["chart.png"] and not items_of(app, UserTurn)


async def test_a_chip_is_removed_by_keyboard(tmp_path: Path) -> None:
    first, second = _png(tmp_path / "one.png"), _png(tmp_path / "two.png", (8, 8))
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, f"/attach {first}")
        await send(pilot, app, f"/attach {second}")
        await settle(pilot, app, lambda: len(_chips(app)) == 2, what="two chips")
        app.query_one(PromptInput).focus()
        await pilot.press("alt+up")  # the attachments key
        await settle(pilot, app, lambda: app.focused is app.query_one(AttachmentChips))
        await pilot.press("right", "delete")
        await settle(pilot, app, lambda: _chips(app) == ["one.png"], what="two removed")
        await pilot.press("delete")
        await settle(pilot, app, lambda: not _chips(app), what="none left")
        assert app.focused is app.query_one(PromptInput)  # (nothing left to choose)


async def test_the_picker_attaches_what_is_typed_or_chosen(tmp_path: Path) -> None:
    _png(tmp_path / "chart.png")
    (tmp_path / "readme.md").write_text("# hi\n", encoding="utf-8")
    (tmp_path / "program.exe").write_bytes(b"MZ")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pick_file(pilot, app, tmp_path, "readme.md")
        await settle(
            pilot, app, lambda: _chips(app) == ["readme.md"], what="attached", workers=False
        )
        assert not isinstance(app.screen, AttachPicker)


async def test_a_big_picture_goes_by_upload_and_the_host_describes_it(tmp_path: Path) -> None:
    big = _png(tmp_path / "photo.png", (400, 400), noise=True)
    assert big.stat().st_size > 262_144  # over the demo host's inline cap
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, app, f"/attach {big}")
        await settle(pilot, app, lambda: _chips(app) == ["photo.png"], what="attached")
        await send(pilot, app, "what is this?")
        await settle(pilot, app, lambda: _answered(app), what="the answer")
        (part,) = app.conversation.history[0]["content"][1:]
        assert part["type"] == "image" and "url" in part and "dataBase64" not in part
        reply = items_of(app, AssistantTurn)[0].full_text
        assert "photo.png" in reply and "400" in reply, reply[:400]
        session_id = app.sessions.kept_session_id()
    # The store keeps its bytes too (the message carried a url only): byte for byte.
    assert session_id is not None
    with Store() as store:
        (user,) = [e for e in store.entries(session_id) if e.kind == "user"]
    assert "dataBase64" not in user.meta["parts"][0]
    assert base64.b64decode(user.meta["uploaded"][0]) == big.read_bytes()


async def test_a_file_the_host_cannot_take_gives_the_message_back(tmp_path: Path) -> None:
    """Over the host's inline cap, and (here) no upload route: nothing is sent, the words and
    the attachment come back."""
    big = _png(tmp_path / "photo.png", (400, 400), noise=True)
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        session = app.session
        assert session is not None and session.discovery is not None
        session.discovery = replace(session.discovery, media_upload=None)
        await send(pilot, app, f"/attach {big}")
        await settle(pilot, app, lambda: _chips(app) == ["photo.png"], what="attached")
        await send(pilot, app, "look at this")
        await settle(
            pilot,
            app,
            lambda: _chips(app) == ["photo.png"] and not app.runs.busy,
            what="given back",
        )
        assert app.query_one(PromptInput).text == "look at this"
        assert not items_of(app, UserTurn) and not app.conversation.history
        said = [str(n.text) for n in items_of(app, Notice)]
        assert any("names no upload route" in text for text in said), said


async def test_a_picture_for_a_text_only_workflow_is_asked_about_once(tmp_path: Path) -> None:
    picture = _png(tmp_path / "chart.png")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.runs.use_workflow("demo.text", "a test")
        await send(pilot, app, f"/attach {picture}")
        await settle(pilot, app, lambda: _chips(app) == ["chart.png"], what="attached")
        await send(pilot, app, "can you see it?")
        await settle(pilot, app, lambda: isinstance(app.screen, SendAnywayScreen), what="asked")
        assert any("vision-input" in reason for reason in app.screen.reasons)
        await pilot.press("escape")  # go back: the message returns whole
        await settle(pilot, app, lambda: _chips(app) == ["chart.png"], what="given back")
        assert app.query_one(PromptInput).text == "can you see it?"
        await send(pilot, app, "can you see it?")
        await settle(pilot, app, lambda: isinstance(app.screen, SendAnywayScreen), what="asked")
        await pilot.click("#send")
        await settle(pilot, app, lambda: _answered(app), what="sent anyway")
        (turn,) = items_of(app, UserTurn)
        assert [a.name for a in turn.attachments] == ["chart.png"]


def _answered(app: object) -> bool:
    return bool(items_of(app, AssistantTurn)) and not app.runs.busy  # type: ignore[attr-defined]
