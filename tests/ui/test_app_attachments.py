"""Attaching files in the app (issue 25, parts 1, 3 and 8), on the embedded demo host over
loopback: ``/attach PATH`` and a pasted path add chips above the prompt, the picker (F6) attaches
what is typed or chosen, a chip goes with Delete, Enter sends the message with its attachments
(words optional) and the log keeps them; a refusal is said and changes nothing, and a message
the host cannot take comes back whole. Each fails without its part."""

from __future__ import annotations

import io
from pathlib import Path

from app_support import SIZE, connected, demo_app, items_of, record_notifications, send, settle
from PIL import Image
from textual.events import Paste

from openwop_tui.core.items import UserTurn
from openwop_tui.store.sessions import Store
from openwop_tui.ui.screens.attach_picker import AttachPicker
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import PromptInput


def _png(path: Path, size: tuple[int, int] = (16, 8), noise: bool = False) -> Path:
    image = Image.new("RGB", size, (30, 90, 200))
    if noise:
        image = Image.frombytes("RGB", size, bytes(range(256)) * (size[0] * size[1] * 3 // 256))
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
        app.query_one(AttachmentChips).focus()
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
        app.push_screen(AttachPicker(tmp_path))
        await settle(pilot, app, lambda: isinstance(app.screen, AttachPicker), what="picker")
        await pilot.press(*"readme.md", "enter")
        await settle(pilot, app, lambda: _chips(app) == ["readme.md"], what="attached")
        assert not isinstance(app.screen, AttachPicker)


async def test_a_file_the_host_cannot_take_gives_the_message_back(tmp_path: Path) -> None:
    """Over the host's inline cap, and no upload route on this host: nothing is sent, the
    words and the attachment come back."""
    big = _png(tmp_path / "photo.png", (400, 400), noise=True)
    assert big.stat().st_size > 262_144
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
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
