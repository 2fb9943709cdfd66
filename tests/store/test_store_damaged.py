"""A stored row that is not valid UTF-8: read with replacement and a notice, the rest intact.

The measured case (issue 14): one such row made the session impossible to open or export
(exit 70). Rows are written here behind the store's back, as a damaged file or another program
would leave them, in the BLOB ``data`` column and in a TEXT column.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from openwop_tui.__main__ import main
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import AssistantTurn, Notice, UserTurn
from openwop_tui.store.database import default_path
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


def _damaged_session() -> str:
    path = default_path()
    with Store(path) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", "first question"))
        chunk = {"type": "output.chunk", "nodeId": "n", "payload": {"chunk": "an answer"}}
        store.append(session, Entry("frame", json.dumps(chunk), run="r1", label="message"))
        store.append(session, Entry("user", "second question"))
        store.append(session, Entry("user", "third question"))
    db = sqlite3.connect(path)
    with db:
        db.execute(
            "UPDATE entries SET data = ? WHERE session = ? AND seq = 2",
            (b"second \xff\xfe question", session),
        )
        db.execute(
            "UPDATE entries SET label = CAST(X'6D6573FF' AS TEXT) WHERE session = ? AND seq = 1",
            (session,),
        )
        db.execute("UPDATE sessions SET title = CAST(X'74FF' AS TEXT) WHERE id = ?", (session,))
    db.close()
    return session


def test_the_session_opens_with_a_notice_for_each_damaged_row() -> None:
    session = _damaged_session()
    with Store(default_path()) as store:
        entries = list(store.entries(session))
        assert [s.id for s in store.sessions()] == [session]
        assert "\ufffd" in store.info(session).title
    notices = [e for e in entries if e.kind == "notice"]
    assert len(notices) == 2 and all("not valid UTF-8" in n.data for n in notices)
    conversation = Conversation.from_log(entries)
    items = conversation.transcript.items
    users = [i.text for i in items if isinstance(i, UserTurn)]
    assert users == ["first question", "second \ufffd\ufffd question", "third question"]
    assert any(isinstance(i, AssistantTurn) and i.full_text == "an answer" for i in items)
    assert sum(isinstance(i, Notice) and "not valid UTF-8" in i.text for i in items) == 2


@pytest.mark.parametrize("fmt", ["md", "jsonl", "sse"])
def test_the_session_exports(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = _damaged_session()
    target = tmp_path / f"out.{fmt}"
    assert main(["export", session, "--format", fmt, "-o", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert "third question" in text and "\ufffd" in text
    assert main(["sessions"]) == 0
    assert session in capsys.readouterr().out
