"""Keys typed while the app starts are kept (issue 14: "keys typed during start-up kept").

The real program in a real pseudo-terminal: "hel" is typed the moment it is started (Python is
still importing: the tty is in cooked mode), "lo" and Enter while its terminal probe waits for
an answer (they are read together with the answer), and the terminal's answer after them. The
message "hello" must be sent, as one message, not a draft with a new line; and when the app is
gone the terminal has the mode it had before (cooked, echo, CR to LF).

Fails without the protection: without the hold, the cooked tty turns Enter into LF (a new
line, nothing sent) and the probe drops what it read; without the restore the shell is left
without echo.

Control keys among them (issue 23: "abc", Up, Esc, "def" came out "defabc", or "abcef") are
dropped where they were typed, wherever the keys were read: the letters land in order.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from openwop_tui.devices.terminal import DA1_QUERY, typed_keys
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store

#: A guard against a hang, not a synchronisation: every wait ends as soon as its condition holds.
GUARD_SECONDS = 120.0


class Terminal:
    """The master side of a pty the program runs on, read as it writes."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.output = bytearray()

    def read_until(self, done: object, what: str) -> None:
        """Read the program's output until ``done()`` holds (checked after each chunk)."""
        deadline = time.monotonic() + GUARD_SECONDS
        while not done():  # type: ignore[operator]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"never happened: {what}\n{bytes(self.output[-2000:])!r}")
            ready, _, _ = select.select([self.master], [], [], min(remaining, 1.0))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the program is gone (EIO)
                    chunk = b""
                if not chunk:
                    if not done():  # type: ignore[operator]
                        pytest.fail(f"the program ended before: {what}")
                    return
                self.output += chunk

    def type(self, data: bytes) -> None:
        os.write(self.master, data)


def _sent(text: str) -> bool:
    """Whether the app has kept ``text`` as a sent message (the store may not exist yet, or
    be busy with the app's write: not yet, then)."""
    try:
        store = Store()
    except StoreError:
        return False
    try:
        return any(
            e.kind == "user" and e.data == text
            for info in store.sessions()
            for e in store.entries(info.id)
        )
    except StoreError:
        return False
    finally:
        store.close()


def _users() -> list[str]:
    store = Store()
    try:
        return [e.data for i in store.sessions() for e in store.entries(i.id) if e.kind == "user"]
    finally:
        store.close()


def _start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Terminal, int, list[object]]:
    """The app on a new pty (a shell's cooked mode): the program, its terminal, the pty's
    slave side and its mode before."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    before = termios.tcgetattr(slave)
    assert before[0] & termios.ICRNL and before[3] & termios.ICANON  # a shell's cooked tty
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TMUX", "OPENWOP_"))}
    env.update(TERM="xterm-256color", XDG_CONFIG_HOME=str(tmp_path / "config"), COLUMNS="120")
    program = subprocess.Popen(
        [sys.executable, "-m", "openwop_tui", "--no-audio"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        close_fds=True,
    )
    return program, Terminal(master), slave, before


def _as_before(slave: int, before: list[object]) -> None:
    after = termios.tcgetattr(slave)
    modes = termios.ICANON | termios.ECHO
    assert after[0] & termios.ICRNL == before[0] & termios.ICRNL  # type: ignore[operator]
    assert after[3] & modes == before[3] & modes  # type: ignore[operator]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
def test_a_stop_while_the_app_starts_leaves_the_terminal_as_it_was(tmp_path: Path) -> None:
    program, terminal, slave, before = _start(tmp_path)
    try:
        terminal.read_until(lambda: DA1_QUERY in terminal.output, "the terminal probe")
        program.send_signal(signal.SIGTERM)  # held for typing ahead, the app not up yet
        terminal.read_until(lambda: program.poll() is not None, "the program stopped")
    finally:
        if program.poll() is None:
            program.kill()
        program.wait()
    _as_before(slave, before)  # read while the master side is open (else EIO)
    os.close(terminal.master)
    os.close(slave)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
def test_hello_and_enter_typed_before_the_app_is_up_are_sent(tmp_path: Path) -> None:
    program, terminal, slave, before = _start(tmp_path)
    master = terminal.master
    try:
        terminal.type(b"hel")  # at once: the interpreter has not even imported the app
        # The probe asks (DA1 last); while it waits, the rest is typed, then the answer.
        terminal.read_until(lambda: DA1_QUERY in terminal.output, "the terminal probe")
        assert b"\x1b[?1049h" not in terminal.output  # the app is not up yet
        terminal.type(b"lo\r" + b"\x1b[?62;22c")
        terminal.read_until(lambda: _sent("hello"), "'hello' sent as a message")
        assert _users() == ["hello"]  # one message, no new line, nothing else
        program.send_signal(signal.SIGTERM)
        terminal.read_until(lambda: program.poll() is not None, "the app stopped")
    finally:
        if program.poll() is None:
            program.kill()
        program.wait()
    _as_before(slave, before)  # cooked, echoing, CR turned into LF, as before
    os.close(master)
    os.close(slave)


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pty")
def test_control_keys_typed_before_the_app_is_up_leave_the_text_in_order(tmp_path: Path) -> None:
    program, terminal, slave, _ = _start(tmp_path)
    master = terminal.master
    try:
        terminal.type(b"abc\x1b[A")  # "abc", Up: while Python starts
        terminal.read_until(lambda: DA1_QUERY in terminal.output, "the terminal probe")
        terminal.type(b"\x1b" + b"def\r" + b"\x1b[?62;22c")  # Esc, "def", Enter, the answer
        terminal.read_until(lambda: bool(_users()), "a message sent")
        assert _users() == ["abcdef"]
        program.send_signal(signal.SIGTERM)
        terminal.read_until(lambda: program.poll() is not None, "the app stopped")
    finally:
        if program.poll() is None:
            program.kill()
        program.wait()
    os.close(master)
    os.close(slave)


def test_the_probe_keeps_typed_keys_apart_from_the_terminal_s_answers() -> None:
    kitty, size = b"\x1b_Gi=31;OK\x1b\\", b"\x1b[6;20;10t"
    sixel, da1 = b"\x1b[?1;0;1024S", b"\x1b[?62;4c"
    typed = b"h\xc3\xa9" + kitty + size + b"llo\r" + sixel + da1 + b"\x7f!"
    assert typed_keys(typed) == "héllo\r\x7f!".encode()
    assert typed_keys(b"abc\x1b[?6") == b"abc"  # an answer cut off by the deadline
    # Esc is dropped, not what was typed after it; arrows and F1-F4 go whole (CSI and SS3).
    assert typed_keys(b"abc\x1b[A\x1bdef") == b"abcdef"
    assert typed_keys(b"\x1bOPa\x1bOAb\x1bOk\x1b\\") == b"abOk"


async def test_keys_read_before_the_prompt_was_shown_are_taken_as_typed_ahead() -> None:
    """Keys Textual read before the first frame (made before the app is up: their time says
    so) are taken as the held ones are: "abc", Up, Esc, "def" is "abcdef", not "defabc"; once
    the prompt is shown, Up does what it does there (the start of the line)."""
    from app_support import NO_AUDIO, SIZE
    from textual.events import Key

    from openwop_tui.config import Config
    from openwop_tui.ui.app import ChatApp

    ahead = [Key(c, c) for c in "abc"] + [Key("up", None), Key("escape", None)]
    ahead += [Key(c, c) for c in "def"]
    config = Config(host="http://127.0.0.1:9", audio=False, images="none")
    app = ChatApp(config, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.chat.parts.prompt
        for key in ahead:  # one at a time, as paced typing reaches the app
            app.post_message(key)
            await pilot.pause()
        assert prompt.value == "abcdef"
        prompt.value = ""
        await pilot.press(*"abc", "up", *"def")
        assert prompt.value == "defabc"


async def test_the_apps_own_keys_typed_ahead_still_act() -> None:
    """Only the keys that move the prompt's cursor, selection or focus are dropped when typed
    ahead: Ctrl+Q pressed as the first frame was painted was dropped too (its time came before
    the prompt knew it was shown), and the app went on as if it had not been pressed. F1 made
    before the app is up opens the help; Ctrl+Q quits."""
    from app_support import NO_AUDIO, SIZE
    from textual.events import Key

    from openwop_tui.config import Config
    from openwop_tui.ui.app import ChatApp
    from openwop_tui.ui.screens.help import HelpScreen

    config = Config(host="http://127.0.0.1:9", audio=False, images="none")
    help_key, quit_key = Key("f1", None), Key("ctrl+q", None)
    app = ChatApp(config, audio_support=NO_AUDIO)
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(help_key)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        app.chat.parts.prompt.focus()
        app.post_message(quit_key)
        await pilot.pause()
        await pilot.pause()
        assert not app.is_running or app.return_code is not None


async def test_typed_ahead_keys_reach_the_prompt_as_typed() -> None:
    """What the app is given as typed ahead is edited as keys are: Backspace deletes, Ctrl+J
    is a new line, Enter sends, other controls go; what follows the last Enter is the draft."""
    from app_support import NO_AUDIO, SIZE, items_of, settle

    from openwop_tui.config import Config
    from openwop_tui.core.fold import UserTurn
    from openwop_tui.ui.app import ChatApp
    from openwop_tui.ui.options import AppOptions

    config = Config(host="http://127.0.0.1:9", audio=False, images="none")
    app = ChatApp(
        config, AppOptions(typed="hix\x7f\t there\rline one\nline two"), audio_support=NO_AUDIO
    )
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.chat.parts.prompt.value == "line one\nline two"
        # Sent: it waits for the host, or stands above why the host could not be reached.
        await settle(
            pilot,
            app,
            lambda: (
                app.chat.parts.queued.pending == ("hi there",)
                or [u.text for u in items_of(app, UserTurn)] == ["hi there"]
            ),
            what="'hi there' sent",
        )
