"""A user's own attachments are drawn as a host's media are (issue 25, part 5): folding a
message gives its turn and then one ``media.*`` envelope item per attachment, carrying its
bytes inline (an upload's from the copy the log keeps), live and read back alike; a forged or
hostile log gives clean names and no invented bytes; the Markdown export writes each beside the
file, byte for byte; the bytes can be sent again (edit, regenerate), or are said missing.

Each test fails without its part: no envelope items after the turn, an upload drawn from its
URL (offline: nothing), an inline part decoded twice on the way in, a name's escape sequence
reaching the title, the export without the picture, or a url-only part sent again empty."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from media_parts import two_colour_png
from render_helpers import builtins

from openwop_tui.core.attachments import Attachment
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.items import EnvelopeItem, UserTurn
from openwop_tui.core.own_media import OWN_EVENT, is_own, read_logged, sent_with
from openwop_tui.core.sending import Sent, logged
from openwop_tui.present.envelope import export_drawer
from openwop_tui.present.export import export_session
from openwop_tui.protocol import content_parts
from openwop_tui.protocol.content_parts import media_part
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

PICTURE = two_colour_png((16, 8))
NOTES = b"# Plan\n\n## Next\n"
CLIP = b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 24


def _logged() -> dict[str, Any]:
    """A message's meta as `sending.logged` writes it: the picture inline, the notes uploaded
    (by ``url``, its bytes kept beside), the clip inline with its length."""
    parts = [
        media_part("image", "image/png", "picture.png", data=PICTURE),
        media_part("file", "text/markdown", "notes.md", url="http://host/v1/media/u1"),
        media_part("audio", "audio/wav", "voice.wav", data=CLIP, duration=3.0),
    ]
    uploaded = [None, base64.b64encode(NOTES).decode("ascii"), None]
    return {"parts": parts, "uploaded": uploaded}


def _entries(meta: dict[str, Any]) -> list[Entry]:
    return [
        Entry("user", "what is this?", meta=meta),
        Entry("run", run="r1", meta={"workflow": "demo.chat"}),
        Entry("end", run="r1", meta={"status": "completed"}),
    ]


def _own(chat: Conversation) -> list[EnvelopeItem]:
    return [item for item in chat.transcript.items if is_own(item)]  # type: ignore[misc]


def test_a_message_folds_into_its_turn_then_its_attachments_drawn_from_their_bytes() -> None:
    chat = Conversation.from_log(_entries(_logged()))
    items = chat.transcript.items
    assert isinstance(items[0], UserTurn) and all(is_own(item) for item in items[1:4])
    own = _own(chat)
    assert [item.envelope.kind for item in own] == ["media.image", "media.file", "media.audio"]
    assert [item.envelope.display for item in own] == ["image", "file", "audio"]
    # The bytes, inline: the picture's own, the upload's kept copy (not its URL).
    data = [base64.b64decode(item.envelope.media.base64 or "") for item in own]  # type: ignore[union-attr]
    assert data == [PICTURE, NOTES, CLIP]
    assert own[1].envelope.media.url is None  # type: ignore[union-attr]
    assert own[2].envelope.media.duration_seconds == 3.0  # type: ignore[union-attr]
    # The source is the user's message, not a run event: the inspector shows it as sent.
    source = own[0].envelope.source
    assert source.type == OWN_EVENT and source.run_id is None and source.sequence is None
    assert source.raw["content"][0] == {"type": "text", "text": "what is this?"}
    assert own[1].envelope.document["url"] == "http://host/v1/media/u1"
    assert len({item.envelope.key for item in own}) == 3
    # The turn names them, sizes included (the upload's from its kept copy).
    (turn,) = [item for item in items if isinstance(item, UserTurn)]
    assert [a.size for a in turn.attachments] == [len(PICTURE), len(NOTES), len(CLIP)]


def test_the_live_fold_and_the_log_read_back_give_the_same_items() -> None:
    picture = Attachment("picture.png", "image/png", PICTURE)
    notes = Attachment("notes.md", "text/markdown", NOTES)
    sent = [
        Sent(picture, media_part("image", "image/png", "picture.png", data=PICTURE), "inline"),
        Sent(notes, media_part("file", "text/markdown", "notes.md", url="http://h/u1"), "uploaded"),
    ]
    live = Conversation()
    live.add_user("what is this?", sent)
    _, meta = logged(sent)
    replayed = Conversation.from_log(_entries(meta))

    def shape(chat: Conversation) -> list[tuple[str, str, Any]]:
        return [
            (type(i).__name__, i.id, i.envelope.payload if isinstance(i, EnvelopeItem) else None)
            for i in chat.transcript.items[:3]
        ]

    assert shape(live) == shape(replayed)
    assert [i.envelope.display for i in _own(live)] == ["image", "file"]


def test_each_inline_part_is_decoded_once_on_the_way_in(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    decode = content_parts.base64.b64decode

    def counted(data: Any, *args: Any, **kwargs: Any) -> bytes:
        calls.append(len(data))
        return decode(data, *args, **kwargs)

    monkeypatch.setattr(content_parts.base64, "b64decode", counted)
    Conversation.from_log(_entries(_logged()))
    # The picture and the clip (inline) once each; the upload's copy is not decoded at all.
    assert len(calls) == 2


def test_a_hostile_log_gives_clean_names_and_no_invented_bytes() -> None:
    meta = {
        "parts": [
            media_part("image", "image/png", "pic\x1b]52;c;aGk=\x07.png", data=PICTURE),
            media_part("file", "text/plain", "gone.txt", url="http://host/v1/media/u2"),
            {"type": "image", "mimeType": "image/png", "dataBase64": "%%%"},
        ],
        # A kept copy that is no base64: not drawn from (the URL stays the only source).
        "uploaded": [None, "not base64 at all!", None],
    }
    own = _own(Conversation.from_log(_entries(meta)))
    assert len(own) == 2
    name = own[0].envelope.media.name or ""  # type: ignore[union-attr]
    assert "\x1b" not in name and "\x07" not in name
    assert "\x1b" not in str(own[0].envelope.rendering.title)
    assert "\x1b" not in str(own[0].envelope.source.raw)
    assert own[1].envelope.media.base64 is None  # type: ignore[union-attr]
    assert own[1].envelope.media.url == "http://host/v1/media/u2"  # type: ignore[union-attr]


def test_what_can_go_again_and_what_cannot() -> None:
    chat = Conversation.from_log(_entries(_logged()))
    (turn,) = [item for item in chat.transcript.items if isinstance(item, UserTurn)]
    attachments, missing = sent_with(chat.transcript.items, turn)
    assert missing == []
    assert [(a.name, a.mime, a.data) for a in attachments] == [
        ("picture.png", "image/png", PICTURE),
        ("notes.md", "text/markdown", NOTES),
        ("voice.wav", "audio/wav", CLIP),
    ]
    assert attachments[2].duration == 3.0
    meta = {"parts": [media_part("file", "text/plain", "gone.txt", url="http://h/u")]}
    chat = Conversation.from_log(_entries(meta))
    (turn,) = [item for item in chat.transcript.items if isinstance(item, UserTurn)]
    assert sent_with(chat.transcript.items, turn) == ((), ["gone.txt"])


def test_a_message_without_attachments_is_one_turn() -> None:
    assert read_logged({}).own == () and read_logged("junk").own == ()
    chat = Conversation.from_log(_entries({}))
    assert [type(item) for item in chat.transcript.items][:1] == [UserTurn]
    assert _own(chat) == []


def test_the_markdown_export_writes_each_attachment_beside_it(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        session = store.create(host="http://host", workflow="demo.chat")
        for entry in _entries(_logged()):
            store.append(session, entry)
        target = tmp_path / "chat.md"
        done = export_session(store, session, "md", target, drawer=export_drawer(builtins()))
    markdown = target.read_text(encoding="utf-8")
    assert "### You sent · image · picture\\.png" in markdown
    assert sorted(path.read_bytes() for path in done.assets) == sorted([PICTURE, NOTES, CLIP])
    assert "](chat-assets/" in markdown
