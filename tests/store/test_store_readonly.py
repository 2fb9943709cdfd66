"""A read-only store opens read-only: listing, reopening and export work; writing says why.

The measured case (issue 14): with the store on a read-only folder or disk, ``sessions`` and
``--continue`` failed with "cannot be written". The store here is made read-only for real: a
read-only bind mount when the tests run as root (root ignores file modes), else a folder and
file without write permission; where neither can be had, the test is skipped, not faked.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from openwop_tui.__main__ import main
from openwop_tui.core.conversation import Conversation
from openwop_tui.store.database import StoreError
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder``'s content, read-only: the folder to use in its place."""
    if os.geteuid() != 0:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)
        return
    view = folder.parent.with_name(folder.parent.name + "-ro") / folder.name  # same name
    view.mkdir(parents=True)
    try:
        subprocess.run(["mount", "--bind", str(folder), str(view)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("cannot make a read-only folder here (root without mount)")
    try:
        subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(view)], check=True, capture_output=True
        )
        yield view
    finally:
        # Lazy: a connection the test left open must not keep the mount (and the tmp folder).
        subprocess.run(["umount", "-l", str(view)], check=False, capture_output=True)


def test_a_read_only_store_is_listed_reopened_and_exported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data" / "openwop-tui"
    data.mkdir(parents=True)
    with Store(data / "sessions.db") as store:
        session = store.create(host="h", workflow="w")
        store.append(session, Entry("user", "kept question"))
    with read_only(data) as view:
        monkeypatch.setenv("XDG_DATA_HOME", str(view.parent))
        with Store(view / "sessions.db") as store:
            assert store.read_only is not None and "read-only" in store.read_only
            assert [s.id for s in store.sessions()] == [session]
            reopened = Conversation.from_log(store.entries(session))
            assert reopened.transcript.items[0].text == "kept question"  # type: ignore[attr-defined]
            with pytest.raises(StoreError, match="nothing new is kept"):
                store.append(session, Entry("user", "more"))
            with pytest.raises(StoreError, match="read-only"):
                store.rename(session, "new title")
        assert main(["sessions"]) == 0
        assert session in capsys.readouterr().out
        target = tmp_path / "out.md"
        assert main(["export", session, "-o", str(target)]) == 0
        assert "kept question" in target.read_text(encoding="utf-8")
        assert main(["sessions", "rename", session, "x"]) == 2
        assert "read-only" in capsys.readouterr().err
