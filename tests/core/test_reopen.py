"""Reopening a stored session from its kept folds: the same transcript and history as folding
its log, without folding the events of kept runs; a new fold version, another state or a
damaged or foreign row only make the run fold again; the app pages from the newest items."""

from __future__ import annotations

import asyncio
import os
import pickle
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openwop_tui.core import opening, reopen
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import Transcript
from openwop_tui.core.items import (
    AssistantTurn,
    EnvelopeItem,
    Interrupt,
    Item,
    Limits,
    Notice,
    ToolCall,
    UserTurn,
)
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient
from openwop_tui.store.sessions import Store

RUNS = [("demo.chat", "hello there"), ("demo.chat", "a card please"), ("demo.openclaw", "")]


def shape(items: list[Item]) -> list[tuple[Any, ...]]:
    """What a view draws of each item."""
    out: list[tuple[Any, ...]] = []
    for item in items:
        if isinstance(item, AssistantTurn):
            out.append(("reply", item.id, item.full_text, item.final, item.model))
        elif isinstance(item, UserTurn):
            out.append(("user", item.id, item.text))
        elif isinstance(item, EnvelopeItem):
            e = item.envelope
            out.append(("envelope", item.id, e.kind, e.display, repr(e.payload), e.key))
        elif isinstance(item, ToolCall):
            out.append(("tool", item.id, item.tool_name, item.outcome_json))
        elif isinstance(item, Interrupt):
            out.append(("interrupt", item.id, item.text, item.state))
        elif isinstance(item, Notice):
            out.append(("notice", item.id, item.level, item.text, item.verbose))
        else:
            out.append((type(item).__name__, item.id))
    return out


async def _chat(store: Store, session_id: str | None, url: str, key: str) -> str:
    async with HostClient(url, key) as client:
        for workflow, text in RUNS:
            chat = opening.stored(store, session_id, session=Session(client, workflow_id=workflow))
            await chat.connect()
            updates = chat.send(text) if text else chat.start({})
            async for _ in updates:
                pass
            session_id = chat.logs[0].session_id  # type: ignore[attr-defined]
    assert session_id is not None
    return session_id


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A stored session of chat and OpenClaw runs against the demo host, each reopened
    before the next (live runs and reopened ones both keep their folds)."""
    path = tmp_path_factory.mktemp("reopen") / "sessions.db"
    with DemoHost(pace=0) as demo, Store(path) as store:
        session_id = asyncio.run(_chat(store, None, demo.url, demo.api_key))
    yield path, session_id


def _folded(store: Store, session_id: str) -> Conversation:
    return Conversation.from_log(list(store.entries(session_id)))


def test_a_reopened_session_is_its_log_folded(kept: tuple[Path, str]) -> None:
    path, session_id = kept
    with Store(path) as store:
        folded = _folded(store, session_id)
        reopened = opening.stored(store, session_id)
        assert len(folded.transcript.items) > 20
        assert shape(reopened.transcript.items) == shape(folded.transcript.items)
        assert reopened.history == folded.history
        assert reopened.transcript.status == folded.transcript.status
        assert reopened.transcript.usage_session == folded.transcript.usage_session
        rows = sqlite3.connect(path).execute("SELECT count(*) FROM folds").fetchone()[0]
        assert rows == len(RUNS)


def test_kept_runs_are_read_back_not_folded(
    kept: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, session_id = kept
    with Store(path) as store:
        expected = shape(_folded(store, session_id).transcript.items)

        def refuse(self: Transcript, event: object) -> list[object]:
            raise AssertionError("an event of a kept run was folded again")

        monkeypatch.setattr(Transcript, "apply", refuse)
        reopened = opening.stored(store, session_id)
        assert shape(reopened.transcript.items) == expected


def test_a_new_fold_version_folds_again_and_keeps_the_new_result(
    kept: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path, session_id = kept
    copy = tmp_path / "copy.db"
    sqlite3.connect(path).backup(target := sqlite3.connect(copy))
    target.close()
    with Store(copy) as store:
        expected = shape(_folded(store, session_id).transcript.items)
        monkeypatch.setattr(reopen, "FOLD_VERSION", reopen.FOLD_VERSION + 1)
        applied = 0
        real = Transcript.apply

        def counting(self: Transcript, event: Any) -> Any:
            nonlocal applied
            applied += 1
            return real(self, event)

        monkeypatch.setattr(Transcript, "apply", counting)
        assert shape(opening.stored(store, session_id).transcript.items) == expected
        assert applied > 0
        versions = {v for (v,) in sqlite3.connect(copy).execute("SELECT version FROM folds")}
        assert reopen.fold_version() in versions
        applied = 0
        assert shape(opening.stored(store, session_id).transcript.items) == expected
        assert applied == 0  # the rebuilt rows hold now


def test_a_row_kept_in_another_state_is_not_used(kept: tuple[Path, str]) -> None:
    path, session_id = kept
    small = Limits(reply_bytes=12)
    with Store(path) as store:
        # Other limits cut replies differently: a kept row made with the defaults cannot hold.
        folded = Conversation.from_log(list(store.entries(session_id)), limits=small)
        reopened = opening.stored(store, session_id, limits=small)
        assert shape(reopened.transcript.items) == shape(folded.transcript.items)
        replies = [i for i in reopened.transcript.items if isinstance(i, AssistantTurn)]
        assert replies and all(r.body.shown_bytes <= 12 for r in replies)


class _Boom:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize("poison", ["foreign", "damaged"])
def test_a_foreign_or_damaged_row_only_makes_its_run_fold_again(
    kept: tuple[Path, str], tmp_path: Path, poison: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, session_id = kept
    copy = tmp_path / "copy.db"
    sqlite3.connect(path).backup(target := sqlite3.connect(copy))
    target.close()
    monkeypatch.chdir(tmp_path)
    data = pickle.dumps(([_Boom()], [], {})) if poison == "foreign" else b"\x80\x05garbage"
    db = sqlite3.connect(copy)
    db.execute("UPDATE folds SET data = ?", (data,))
    db.commit()
    db.close()
    with Store(copy) as store:
        expected = shape(_folded(store, session_id).transcript.items)
        assert shape(opening.stored(store, session_id).transcript.items) == expected
    assert not (tmp_path / "pwned").exists()


def test_a_continued_session_keeps_its_new_runs_too(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with DemoHost(pace=0) as demo, Store(path) as store:
        session_id = asyncio.run(_chat(store, None, demo.url, demo.api_key))
        session_id = asyncio.run(_chat(store, session_id, demo.url, demo.api_key))
        folded = _folded(store, session_id)
        reopened = opening.stored(store, session_id)
        assert shape(reopened.transcript.items) == shape(folded.transcript.items)
        assert reopened.history == folded.history and len(reopened.history) == 8
    rows = sqlite3.connect(path).execute("SELECT count(*) FROM folds").fetchone()[0]
    assert rows == 2 * len(RUNS)


def _nothing_masked_in(folder: Path, key: str) -> None:
    for file in folder.iterdir():
        data = file.read_bytes()
        assert key.encode() not in data and b"hunter2" not in data, file


def test_a_fold_holding_what_the_store_masks_is_not_kept(tmp_path: Path) -> None:
    key = "sk-reopen-secret-0123456789"
    path = tmp_path / "s.db"

    async def echo(store: Store, url: str, api_key: str) -> str:
        async with HostClient(url, api_key) as client:
            chat = opening.stored(store, None, session=Session(client, workflow_id="demo.chat"))
            await chat.connect()
            async for _ in chat.send(f"my key is {key} and https://bob:hunter2@example.com/"):
                pass
            async for _ in chat.send("and now something plain"):
                pass
            session_id = chat.logs[0].session_id  # type: ignore[attr-defined]
            assert isinstance(session_id, str)
            return session_id

    with DemoHost(pace=0) as demo, Store(path, secrets=[key]) as store:
        session_id = asyncio.run(echo(store, demo.url, demo.api_key))
        # Live, the runs' folds held the key (the echo, the turns awaiting their echo): not
        # kept. Reopened, they fold from the log, where it is masked, and those folds are kept.
        _nothing_masked_in(tmp_path, key)
        reopened = opening.stored(store, session_id)
        assert shape(reopened.transcript.items) == shape(
            _folded(store, session_id).transcript.items
        )
    _nothing_masked_in(tmp_path, key)
    assert sqlite3.connect(path).execute("SELECT count(*) FROM folds").fetchone()[0] == 2
