"""A wrong key fixed in the settings screen, as a user does it (issue 27): the installed program
on a pseudo terminal, started with ``--host`` and a wrong ``--api-key`` against a demo host on
loopback that takes another key. The refusal says to press F10; F10 opens the settings screen at
the key field; the right key typed and Enter: it is tried, kept (in the config file, readable
only by its owner: the program is given no keychain) and used; the next message is answered,
with no restart. Fails without settings that apply now (the key field, the trial, the switch).
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_support import Program, home

from openwop_tui.demo_host import DemoHost

RIGHT = "sk-pty-right-5d1e"
APP = ["--no-audio", "--images", "halfblock"]
BROKEN = ("Traceback", "stopped by an unexpected")


@pytest.fixture(scope="module")
def keyed() -> Iterator[DemoHost]:
    with DemoHost(pace=0, api_key=RIGHT) as running:
        yield running


def test_a_wrong_key_is_fixed_in_settings_and_the_next_message_goes(
    keyed: DemoHost, tmp_path: Path
) -> None:
    # The machine has no keychain for this program (keyring's fail backend): nothing of the
    # developer's own keychain is read or written.
    env = home(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    args = [*APP, "--host", keyed.url, "--api-key", "sk-pty-wrong"]
    with Program(args, env, tmp_path) as program:
        program.wait_for_screen("Press F10 (Settings)")
        program.type("hello\r")
        program.wait_for(
            lambda: program.screen_text().count("Press F10 (Settings)") >= 2, "refused again"
        )
        program.type("\x1b[21~")  # F10
        program.wait_for_screen("empty: keep the key in use")
        program.type(RIGHT)  # into the key field, where the screen opened
        program.wait_for_screen("this chat goes on with it")
        assert RIGHT not in program.screen_text()  # typed as dots
        program.type("\r")
        program.wait_for_screen("settings saved")
        program.type("are you there?\r")
        program.wait_for_screen("are you there?")
        program.wait_for(lambda: "You said" in program.screen_text(), "the answer")
        program.type("\x11")  # Ctrl+Q
        assert program.wait() == 0, program.screen_text()
        shown = program.output()
    assert RIGHT not in shown
    assert not any(sign in shown for sign in BROKEN), shown[-2000:]
    config = Path(env["XDG_CONFIG_HOME"]) / "openwop-tui" / "config.toml"
    assert tomllib.loads(config.read_text())["api_key"] == RIGHT
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
