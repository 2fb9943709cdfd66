"""Saved by consent, in a known place, under a budget.

The measured cases (issue 14): over-cap replies were saved unasked on every ``render`` and
``replay`` (40 files, 44 MB in one render) with no total limit, and when ``~/Downloads`` did not
exist, saves, exports and copies went to ``./openwop-tui-downloads`` under whatever folder the
program started in. Here: nothing is written by ``render`` or ``replay`` without
``--save-media``; with it, each cut reply is written once however often it is drawn; ``run``
writes under a budget and says when it is spent; the default folder is never the cwd.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openwop_tui.__main__ import main
from openwop_tui.core.items import AssistantTurn
from openwop_tui.core.overflow import save
from openwop_tui.devices import desktop as actions
from openwop_tui.store.saving import SaveBudget


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with no Downloads folder, the cwd an unrelated folder, small reply limits."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    config = tmp_path / "config" / "openwop-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("max_reply_bytes = 64\n", encoding="utf-8")
    return home


def _recording(path: Path, replies: int = 3) -> Path:
    frames = []
    for index in range(replies):
        node = f"n{index}"
        text = f"reply {index} " + "x" * 500
        frames.append({"type": "output.chunk", "nodeId": node, "payload": {"chunk": text}})
        frames.append({"type": "node.completed", "nodeId": node, "payload": {"outputs": {}}})
    frames.append({"type": "run.completed", "payload": {}})
    path.write_text("".join(f"data: {json.dumps(f)}\n\n" for f in frames), encoding="utf-8")
    return path


def _files(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file()]


def test_the_default_folder_is_never_the_cwd(home: Path) -> None:
    folder = actions.download_dir(None)
    assert not folder.is_relative_to(Path.cwd())
    assert folder.name == "downloads" and "openwop-tui" in folder.parts
    (home / "Downloads").mkdir()
    assert actions.download_dir(None) == home / "Downloads" / "openwop-tui"
    assert actions.download_dir("~/mine") == home / "mine"


def test_render_and_replay_write_nothing_unasked(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = _recording(tmp_path / "rec.sse")
    before = set(_files(tmp_path))
    assert main(["render", str(recording)]) == 0
    out = capsys.readouterr().out
    assert out.count("the cut part is not saved: pass --save-media DIR") == 3
    assert main(["replay", str(recording), "--speed", "0"]) == 0  # not a terminal: printed
    capsys.readouterr()
    written = set(_files(tmp_path)) - before
    assert not [p for p in written if "sessions.db" not in p.name], written


def test_with_save_media_each_cut_reply_is_written_once(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = _recording(tmp_path / "rec.sse")
    media = tmp_path / "media"
    for _ in range(3):
        assert main(["render", str(recording), "--save-media", str(media)]) == 0
    assert main(["replay", str(recording), "--save-media", str(media)]) == 0
    capsys.readouterr()
    saved = sorted(p.name for p in _files(media))
    assert len(saved) == 3, saved  # three replies, drawn four times each: three files
    assert all(name.startswith("reply-") and name.endswith(".md") for name in saved)
    texts = {p.read_text(encoding="utf-8") for p in _files(media)}
    assert {t[:8] for t in texts} == {"reply 0 ", "reply 1 ", "reply 2 "}


def test_the_budget_of_unasked_writes_is_said_when_spent(tmp_path: Path) -> None:
    budget = SaveBudget(limit=1200)
    turns = []
    for index in range(3):
        turn = AssistantTurn(f"a{index}", None, limit=64)
        turn.body.append(f"reply {index} " + "y" * 500)
        turn.final = True
        turns.append(turn)
    save(turns[0], tmp_path, budget)
    save(turns[1], tmp_path, budget)
    with pytest.raises(actions.ActionError, match="raise max_saved_bytes"):
        save(turns[2], tmp_path, budget)
    assert len(_files(tmp_path)) == 2 and budget.used <= budget.limit
    save(turns[0], tmp_path, budget)  # already written: found, nothing spent
    assert len(_files(tmp_path)) == 2


def test_export_without_a_path_goes_to_the_download_folder(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from openwop_tui.store.database import default_path
    from openwop_tui.store.records import Entry
    from openwop_tui.store.sessions import Store

    with Store(default_path()) as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", "hello"))
    assert main(["export", session]) == 0
    out = capsys.readouterr().out
    assert str(actions.download_dir(None)) in out
    assert not _files(Path.cwd())
