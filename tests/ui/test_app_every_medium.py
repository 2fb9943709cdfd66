"""Issue 25's first Done-when line, in the app on the embedded demo host over loopback: a PNG
attached through the picker, a Markdown file by pasting its path, 3 s recorded (through an
injected input stream: this machine has no microphone), sent in one message; the host's answer
names the picture's size and colours, the file's headings and the clip's length; the user's turn
names all three, and after it each is drawn as a host's media are (the picture in pixels, the
document's file card, the clip's player), and so does the session reopened. Fails without any
of the parts: the picker, the paste, the record key's clip, the parts on the wire, their place
in the log, or their drawing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from app_support import SIZE, connected, items_of, pick_file, select_item, send, settle
from audio_support import StubPlayer
from media_parts import two_colour_png
from recorder_support import FakeInput, sine
from textual.events import Paste

from openwop_tui.config import Config
from openwop_tui.core.items import AssistantTurn, EnvelopeItem, UserTurn
from openwop_tui.core.own_media import is_own
from openwop_tui.demo_host import DemoHost
from openwop_tui.devices.recorder import Recorder
from openwop_tui.renderers import AudioSupport
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.controllers import recording
from openwop_tui.ui.options import AppOptions
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import PromptInput


def _drawn_own(app: Any) -> list[tuple[str, str, bool, tuple[str, ...]]]:
    """The user's own attachments as drawn: (renderer, title, in pixels, actions)."""
    return [
        (
            block.rendered.renderer,
            block.rendered.title,
            block.rendered.cells is not None,
            tuple(action.name for action in block.rendered.actions),
        )
        for block in app.view.blocks()
        if is_own(block.item) and block.rendered is not None
    ]


async def _all_drawn(pilot: Any, app: Any) -> list[tuple[str, str, bool, tuple[str, ...]]]:
    """Wait for the three attachments after the turn to be drawn; how they were."""
    own = [item for item in app.transcript.items if is_own(item)]
    assert len(own) == 3 and all(isinstance(item, EnvelopeItem) for item in own)
    await settle(pilot, app, lambda: len(_drawn_own(app)) == 3, what="the attachments drawn")
    return _drawn_own(app)


def _app(session_id: str | None = None) -> tuple[ChatApp, StubPlayer]:
    """The app on the embedded demo host, playing sound through a stand-in player."""
    app = ChatApp(
        Config(),
        AppOptions(session_id=session_id),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=AudioSupport(True),
    )
    player = StubPlayer()
    app.playback.player = player  # type: ignore[assignment]  # the app reuses a player it has
    return app, player


def _own_blocks(app: Any) -> list[Any]:
    return [block for block in app.view.blocks() if is_own(block.item)]


def _chips(app: object) -> list[str]:
    return [a.kind for a in app.query_one(AttachmentChips).attachments]  # type: ignore[attr-defined]


async def test_a_picture_a_pasted_document_and_a_recorded_clip_in_one_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "picture.png").write_bytes(two_colour_png((64, 32)))
    notes = tmp_path / "notes.md"
    notes.write_text("# Plan\n\nsome words\n\n## Next steps\n", encoding="utf-8")
    microphone = FakeInput()
    monkeypatch.setattr(recording, "Recorder", lambda **kw: Recorder(microphone, **kw))
    app, player = _app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        # The picture, through the picker: its name typed, Enter.
        await pick_file(pilot, app, tmp_path, "picture.png")
        await settle(pilot, app, lambda: _chips(app) == ["image"], what="picture", workers=False)
        # The document, as a terminal pastes a dropped file.
        app.query_one(PromptInput).post_message(Paste(str(notes)))
        await settle(pilot, app, lambda: len(_chips(app)) == 2, what="document", workers=False)
        # Three seconds recorded: the record key starts, the stream is fed, the key stops.
        app.query_one(PromptInput).focus()
        await pilot.press("f11")
        await settle(pilot, app, lambda: bool(microphone.streams), what="recording")
        microphone.stream.pump(sine(3.0))
        await pilot.press("f11")
        await settle(pilot, app, lambda: len(_chips(app)) == 3, what="the clip attached")
        assert _chips(app) == ["image", "file", "audio"]
        recorded = app.query_one(AttachmentChips).attachments[2].data
        await send(pilot, app, "what did I send?")
        await settle(
            pilot,
            app,
            lambda: bool(items_of(app, AssistantTurn)) and not app.runs.busy,
            what="the answer",
        )
        answer = items_of(app, AssistantTurn)[0].full_text
        assert "64\u00d732" in answer or "64x32" in answer, answer[:500]
        assert "red" in answer.lower() and "blue" in answer.lower()
        assert "Next steps" in answer
        assert "3.0" in answer
        (turn,) = items_of(app, UserTurn)
        named = [(a.kind, str(a.name)) for a in turn.attachments]
        assert named[:2] == [("image", "picture.png"), ("file", "notes.md")]
        assert named[2][0] == "audio" and named[2][1].startswith("voice ")
        assert turn.attachments[2].duration is not None
        assert abs(turn.attachments[2].duration - 3.0) < 0.1
        # After the turn, each drawn as a host's: pixels, the file card, the player.
        items = app.transcript.items
        assert [is_own(item) for item in items[items.index(turn) + 1 :][:3]] == [True] * 3
        drawn = await _all_drawn(pilot, app)
        (picture, document, clip) = drawn
        assert picture[0] == "image" and picture[2] and "picture.png" in picture[1]
        assert document[0] == "file" and "notes.md" in document[1]
        assert clip[0] == "audio" and "play" in clip[3]
        # Its player plays the clip as recorded, byte for byte.
        await select_item(pilot, app, _own_blocks(app)[2])
        await pilot.press("p")
        await settle(pilot, app, lambda: bool(player.played), what="the clip played")
        assert player.played == [recorded]
        session_id = app.sessions.kept_session_id()
    # Reopened: the same turn, naming the same three.
    reopened, _ = _app(session_id)
    async with reopened.run_test(size=SIZE) as pilot:
        await settle(pilot, reopened, lambda: bool(items_of(reopened, UserTurn)), what="reopened")
        (again,) = items_of(reopened, UserTurn)
        assert [(a.kind, str(a.name)) for a in again.attachments] == named
        assert await _all_drawn(pilot, reopened) == drawn
