"""Answering in every medium, started as users start it (issue 25): the installed program on a
pseudo terminal, against its embedded demo host. ``run --attach`` prints the turn with what it
carried and the host's answer about it; in the app, ``/attach PATH`` puts a chip above the
prompt and Enter sends the message with it. Fails when either way in breaks before the host
answers (a traceback, a refusal, an answer that never names the picture)."""

from __future__ import annotations

from pathlib import Path

import pytest
from media_parts import two_colour_png
from pty_support import Program, home

APP = ["--no-audio", "--images", "halfblock", "--demo-pace", "0"]
BROKEN = ("Traceback", "stopped by an unexpected", "Error:")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return home(tmp_path)


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    path = tmp_path / "picture.png"
    path.write_bytes(two_colour_png((64, 32)))
    return path


def test_run_attach_prints_what_went_and_the_answer(
    env: dict[str, str], tmp_path: Path, picture: Path
) -> None:
    args = ["run", "demo.chat", "--message", "what is this?", "--attach", str(picture), *APP]
    with Program(args, env, tmp_path) as program:
        code = program.wait()
        shown = program.output()
    assert code == 0, shown[-2000:]
    # The user's own picture, drawn as a host's is (described: the pty's output is no colour
    # terminal here), named as theirs.
    assert "you sent · image · picture.png" in program.words(), shown[-2000:]
    assert "64\u00d732 pixels" in shown and "red" in shown
    assert not any(sign in shown for sign in BROKEN), shown[-2000:]


def test_the_app_attaches_by_command_and_sends(
    env: dict[str, str], tmp_path: Path, picture: Path
) -> None:
    with Program(APP, env, tmp_path) as program:
        program.wait_for_screen("Connected to the embedded demo host")
        program.type(f"/attach {picture}\r")
        program.wait_for_screen("Enter sends 1 attachment")
        # The chip (its second line; the notification names the file too), drawn in the same
        # frame or the next one: waited for, not looked for once.
        program.wait_for_screen("PNG · ")
        program.type("what is this?\r")
        program.wait_for_screen("64\u00d732 pixels")
        program.type("\x11")  # Ctrl+Q
        assert program.wait() == 0, program.screen_text()
        assert not any(sign in program.output() for sign in BROKEN)
