"""Record, replay and export from the command line, against a real loopback demo host.

``run demo.tour --record FILE`` then ``render FILE`` and ``replay FILE --speed 0`` show the same
tour; a stored session exports to Markdown with its assets, JSONL and SSE; the key is in none of
them; replay paces by the recorded times.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from openwop_tui import __main__ as cli
from openwop_tui.__main__ import main
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import AssistantTurn, EnvelopeItem
from openwop_tui.core.opening import stored
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.renderers import Registry
from openwop_tui.store.database import default_path
from openwop_tui.store.record import read_recording, replay_frames
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.ui.options import AppOptions

KEY = "sk-export-test-1a2b3c4d5e"


pytestmark = pytest.mark.usefixtures("cli_isolated_wide")


def test_run_record_then_render_and_replay_show_the_same_tour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "tour.sse"
    assert (
        main(["run", "demo.tour", "--demo-pace", "0", "--images", "none", "--record", str(record)])
        == 0
    )
    live = capsys.readouterr().out
    assert main(["render", str(record)]) == 0
    rendered = capsys.readouterr().out
    assert main(["replay", str(record), "--speed", "0"]) == 0  # not a terminal: printed
    replayed = capsys.readouterr().out
    assert replayed == rendered
    # The live print has two header lines (host, run) and fetched its media; the recording is
    # offline. Everything else, item by item, is the same text.
    assert _items(rendered) == _items(live.split("\n", 2)[2])
    assert "run completed" in rendered


def _items(out: str) -> list[str]:
    """The printed items, with media reduced to their kind and title: live, their bytes were
    fetched (so dimensions, durations and players show); offline, they were not."""
    blocks = [block.strip() for block in out.split("\n\n") if block.strip()]
    return [_without_media_details(block) for block in blocks]


def _without_media_details(block: str) -> str:
    kept: list[str] = []
    in_media = False
    for line in block.splitlines():
        if re.match(r"(image|audio|file) · ", line):
            kept.append(" · ".join(line.split(" · ")[:2]))
            in_media = True
        elif in_media and line.startswith("  "):
            continue
        else:
            in_media = False
            kept.append(line)
    return "\n".join(kept)


async def test_replay_paces_by_the_recorded_times(tmp_path: Path) -> None:
    path = tmp_path / "r.sse"
    path.write_text(
        ": openwop-tui recording 1\n\n"
        ': at 1.0\ndata: {"type": "run.started", "sequence": 0}\n\n'
        ': at 3.0\ndata: {"type": "log.appended", "sequence": 1}\n\n'
        ': at 7.0\ndata: {"type": "run.completed", "sequence": 2}\n\n',
        encoding="utf-8",
    )
    for speed, expected in ((1.0, [2.0, 4.0]), (2.0, [1.0, 2.0]), (0.0, [])):
        waits: list[float] = []

        async def sleep(seconds: float, waits: list[float] = waits) -> None:
            waits.append(seconds)

        entries = [entry async for entry in replay_frames(path, speed, sleep=sleep)]
        assert [e.kind for e in entries] == ["frame"] * 3
        assert waits == expected, speed


async def _stored_session(path: Path) -> tuple[str, list[bytes]]:
    """A session with a key-echoing user message, media envelopes drawn live; its id and
    the bytes of its media envelopes."""
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            live = stored(
                Store(path, secrets=[KEY, demo.api_key]),
                session=Session(client, workflow_id="demo.chat"),
                host=demo.url.replace("http://", f"http://user:{KEY}@"),
                workflow="demo.chat",
            )
            async for _ in live.send(f"show me everything, my key is {KEY}"):
                pass
            media: list[bytes] = []
            for item in live.transcript.items:
                if isinstance(item, EnvelopeItem):
                    asset = await live.asset_for(item.envelope, Registry().load().needs_bytes)
                    ref = item.envelope.media_ref
                    if asset is not None and asset.data is not None:
                        media.append(asset.data)
                    elif ref is not None and ref.base64:
                        media.append(base64.b64decode(ref.base64))
    [info] = Store(path).sessions()
    return info.id, media


def test_export_markdown_jsonl_and_sse(tmp_path: Path) -> None:
    db = default_path()
    session_id, media = asyncio.run(_stored_session(db))
    assert media
    out = tmp_path / "out"
    assert main(["export", "--format", "md", "-o", str(out / "chat.md")]) == 0  # the latest
    assert main(["export", session_id, "--format", "jsonl", "-o", str(out / "chat.jsonl")]) == 0
    assert main(["export", session_id, "--format", "sse", "-o", str(out / "chat.sse")]) == 0

    markdown = (out / "chat.md").read_text(encoding="utf-8")
    assets = sorted((out / "chat-assets").iterdir())
    written = {p.read_bytes() for p in assets}
    # Every asset file holds the bytes of an envelope, every envelope's bytes were written,
    # and each file is linked from the text, relatively.
    assert written == set(media)
    for asset in assets:
        assert f"](chat-assets/{quote(asset.name)})" in markdown
    assert "```python" in markdown or "```py" in markdown
    assert "**not included**" in markdown  # the demo's missing audio says what, why, where
    # ... and why as a stable code too, for a script reading the export.
    assert "(`fetch-failed`)" in markdown or "(`not-fetched`)" in markdown, markdown

    lines = (out / "chat.jsonl").read_text(encoding="utf-8").splitlines()
    parsed = [json.loads(line) for line in lines]
    assert parsed[0]["kind"] == "user"
    assert {"run.started", "run.completed"} <= {p.get("type") for p in parsed}

    # The SSE export renders like the session does.
    sse = (out / "chat.sse").read_text(encoding="utf-8")
    again = Conversation.from_log(read_recording(sse).entries)
    original = Conversation.from_log(Store(db).entries(session_id))
    assert [type(i) for i in again.transcript.items] == [type(i) for i in original.transcript.items]
    replies = [i.full_text for i in again.transcript.items if isinstance(i, AssistantTurn)]
    assert replies == [
        i.full_text for i in original.transcript.items if isinstance(i, AssistantTurn)
    ]

    for file in [db.parent / name for name in ("sessions.db", "sessions.db-wal")] + [
        *out.rglob("*")
    ]:
        if file.is_file():
            assert KEY.encode() not in file.read_bytes(), file


def test_export_masks_secrets_that_were_stored_unmasked(tmp_path: Path) -> None:
    # A database written without the key configured: the export still never carries it.
    with Store(default_path()) as db:
        session = db.create(host="h", workflow="w")
        db.append(session, Entry("user", f"the key {KEY} and https://u:pw@host/x"))
        db.append(
            session,
            Entry("frame", json.dumps({"type": "log.appended", "payload": {"message": KEY}})),
        )
    for fmt in ("md", "jsonl", "sse"):
        target = tmp_path / f"x.{fmt}"
        assert main(["--api-key", KEY, "export", "--format", fmt, "-o", str(target)]) == 0
        text = target.read_text(encoding="utf-8")
        assert KEY not in text and ":pw@" not in text, fmt


def test_sessions_list_rename_delete(capsys: pytest.CaptureFixture[str]) -> None:
    with Store(default_path()) as db:
        session = db.create(host="http://127.0.0.1:9", workflow="demo.chat")
        db.append(session, Entry("user", "what is the weather"))
    assert main(["sessions"]) == 0
    out = capsys.readouterr().out
    assert session in out and "what is the weather" in out and "127.0.0.1" in out
    assert main(["sessions", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["id"] == session and listed["messages"] == 1
    assert main(["sessions", "rename", session, "weather"]) == 0
    assert Store(default_path()).info(session).title == "weather"
    assert main(["sessions", "delete", session]) == 0
    assert Store(default_path()).sessions() == []
    capsys.readouterr()
    assert main(["sessions", "delete", session]) == 2
    assert "no stored session" in capsys.readouterr().err


def test_continue_and_session_choose_what_the_app_opens(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    launched: list[AppOptions] = []
    monkeypatch.setattr(cli, "_run_app", lambda config, options: launched.append(options) or 0)
    monkeypatch.setattr(cli, "_no_app", lambda: None)  # as on a terminal that shows the app
    assert main(["--continue"]) == 2
    assert "no stored session to continue" in capsys.readouterr().err
    assert main(["--session", "missing"]) == 2
    err = capsys.readouterr().err
    assert "no stored session 'missing'" in err and "Traceback" not in err
    with Store(default_path()) as db:
        old = db.create(host="h", workflow="w")
        db.append(old, Entry("user", "old"))
        new = db.create(host="h", workflow="w")
        db.append(new, Entry("user", "new"))
    assert main(["--continue"]) == 0
    assert main(["--session", old, "--record", "x.sse"]) == 0
    assert launched[0].session_id == new
    assert launched[1].session_id == old and str(launched[1].record) == "x.sse"


def test_continue_where_the_app_cannot_show_prints_the_session(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "_run_app", lambda config, options: pytest.fail("the app started"))
    with Store(default_path()) as db:
        session = db.create(host="h", workflow="w")
        db.append(session, Entry("user", "remember the milk"))
    assert main(["--continue"]) == 0  # stdout is not a terminal here
    out, err = capsys.readouterr()
    assert "remember the milk" in out
    assert "stdout is not a terminal; printing the stored session instead" in err


def test_a_damaged_store_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"garbage" * 1000)
    assert main(["sessions"]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and "Traceback" not in err and err.count("\n") == 1
