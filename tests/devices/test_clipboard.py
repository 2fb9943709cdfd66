"""A copy never claims to have reached the clipboard: it says where it went, and keeps a file."""

from __future__ import annotations

import stat
from pathlib import Path

from textual.app import App

from openwop_tui.devices import clipboard


async def test_a_copy_is_sent_to_the_terminal_and_saved_and_says_so(tmp_path: Path) -> None:
    app: App[None] = App()
    async with app.run_test():
        outcome = await clipboard.copy_text(
            app, "print('hi')\n", tmp_path, what="the code", environ={}
        )
        assert app.clipboard == "print('hi')\n"  # the OSC 52 request went out
    assert outcome.path == tmp_path / clipboard.COPY_FILE
    assert outcome.path.read_text(encoding="utf-8") == "print('hi')\n"
    assert stat.S_IMODE(outcome.path.stat().st_mode) == 0o600
    assert "copied" not in outcome.message.lower()  # never claimed as a fact
    assert "does not confirm" in outcome.message and str(outcome.path) in outcome.message
    assert outcome.message.startswith("The code was sent")


async def test_macos_terminal_gets_no_osc52_and_the_file_is_named(tmp_path: Path) -> None:
    app: App[None] = App()
    async with app.run_test():
        outcome = await clipboard.copy_text(
            app, "text", tmp_path, environ={"TERM_PROGRAM": "Apple_Terminal"}
        )
        assert app.clipboard == ""
    assert outcome.severity == "warning"
    assert "does not let programs set the clipboard" in outcome.message
    assert str(tmp_path / clipboard.COPY_FILE) in outcome.message


async def test_tmux_and_large_texts_are_named(tmp_path: Path) -> None:
    app: App[None] = App()
    async with app.run_test():
        tmux = await clipboard.copy_text(app, "x", tmp_path, environ={"TMUX": "/tmp/t,1,0"})
        big = await clipboard.copy_text(app, "x" * 100_000, tmp_path, environ={})
    assert "set-clipboard on" in tmux.message
    assert big.severity == "warning" and "most terminals drop it" in big.message
    assert big.path is not None and big.path.stat().st_size == 100_000  # replaced, not appended


async def test_a_folder_that_cannot_be_written_is_said(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    app: App[None] = App()
    async with app.run_test():
        outcome = await clipboard.copy_text(app, "text", blocker / "sub", environ={})
    assert outcome.path is None and outcome.severity == "warning"
    assert "could not also be saved" in outcome.message


async def test_a_symlink_at_the_name_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep", encoding="utf-8")
    (tmp_path / clipboard.COPY_FILE).symlink_to(victim)
    app: App[None] = App()
    async with app.run_test():
        await clipboard.copy_text(app, "new", tmp_path, environ={})
    assert victim.read_text(encoding="utf-8") == "keep"
    assert (tmp_path / clipboard.COPY_FILE).read_text(encoding="utf-8") == "new"
