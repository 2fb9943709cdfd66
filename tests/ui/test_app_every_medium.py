"""Issue 25's first Done-when line, in the app on the embedded demo host over loopback: a PNG
attached through the picker, a Markdown file by pasting its path, 3 s recorded (through an
injected input stream: this machine has no microphone), sent in one message; the host's answer
names the picture's size and colours, the file's headings and the clip's length; the user's turn
names all three, and so does the session reopened. Fails without any of the parts: the picker,
the paste, the record key's clip, the parts on the wire, or their place in the log."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_support import SIZE, connected, demo_app, items_of, pick_file, send, settle
from media_parts import two_colour_png
from recorder_support import FakeInput, sine
from textual.events import Paste

from openwop_tui.core.items import AssistantTurn, UserTurn
from openwop_tui.devices.recorder import Recorder
from openwop_tui.ui.controllers import recording
from openwop_tui.ui.widgets.chips import AttachmentChips
from openwop_tui.ui.widgets.prompt import PromptInput


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
    app = demo_app()
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
        session_id = app.sessions.kept_session_id()
    # Reopened: the same turn, naming the same three.
    reopened = demo_app(session_id=session_id)
    async with reopened.run_test(size=SIZE) as pilot:
        await settle(pilot, reopened, lambda: bool(items_of(reopened, UserTurn)), what="reopened")
        (again,) = items_of(reopened, UserTurn)
        assert [(a.kind, str(a.name)) for a in again.attachments] == named
