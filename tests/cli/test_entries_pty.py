"""Every way into the program, started as users start it: the installed ``openwop-tui`` on a
pseudo terminal (`pty_support`), its first screen or output read as a terminal shows it.

Issue 23: ``openwop-tui replay FILE`` on a terminal stopped at once on every file ("stopped by an
unexpected TypeError") for weeks, because no test started it where it draws the app. Each entry
into the app (no arguments, ``replay``, ``--session``, ``--continue``, ``--attach``,
``--record``, the config file's host) is started here and followed to its first screen and on to
a point that proves it works (a reply, "run completed"), then quit with Ctrl+Q; each printing
command is run on the same terminal and its output checked. A program that stops with one
sentence instead of its screen fails here, whatever the entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from paths import TESTS
from pty_support import Program, home
from session_support import chat_turns

from openwop_tui.demo_host import DemoHost
from openwop_tui.store.sessions import Store

CAPTURE = TESTS / "data" / "captures" / "python-host-multi-node.sse"
#: The app's own flags for a terminal-independent, quick first screen.
APP = ["--no-audio", "--images", "halfblock"]
CTRL_Q = "\x11"
#: What the program prints when it stops instead of working; never on a user's screen.
BROKEN = ("Traceback", "stopped by an unexpected", "Error:")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return home(tmp_path)


@pytest.fixture
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, deterministic=True) as demo:
        yield demo


def _on_host(env: dict[str, str], host: DemoHost) -> dict[str, str]:
    """``env`` pointed at ``host`` the way users point it (the environment the SDK reads)."""
    return {**env, "OPENWOP_BASE_URL": host.url, "OPENWOP_API_KEY": host.api_key}


def _quits_cleanly(program: Program) -> None:
    program.type(CTRL_Q)
    assert program.wait() == 0, program.screen_text()
    shown = program.output()
    assert not any(sign in shown for sign in BROKEN), shown[-2000:]


def _send(program: Program, text: str) -> None:
    program.type(text + "\r")


def _ended_after(screen: str, sent: str) -> bool:
    """Whether ``screen`` shows a run's end ("run completed in …") below the first line with
    ``sent`` (the turn's own block; the prompt, where it is typed, is below every run's end)."""
    lines = screen.splitlines()
    first = next((n for n, line in enumerate(lines) if sent in line), None)
    return first is not None and any("run completed in" in line for line in lines[first + 1 :])


# ---------------------------------------------------------------------- entries into the app


def test_no_arguments_chats_with_the_embedded_demo_host(
    env: dict[str, str], tmp_path: Path
) -> None:
    with Program([*APP, "--demo-pace", "0"], env, tmp_path) as program:
        program.wait_for_screen("Connected to the embedded demo host")
        _send(program, "hello there")
        program.wait_for_screen("run completed")
        _quits_cleanly(program)


@pytest.mark.parametrize("save_media", [False, True], ids=["plain", "save-media"])
def test_replay_plays_a_recording_to_its_end(
    env: dict[str, str], tmp_path: Path, save_media: bool
) -> None:
    """The entry that was broken: with and without ``--save-media`` (the option the app
    constructor did not take)."""
    args = ["replay", str(CAPTURE), "--speed", "0", *APP]
    if save_media:
        args += ["--save-media", str(tmp_path / "media")]
    with Program(args, env, tmp_path) as program:
        program.wait_for_all("run completed", "replay of python-host-multi-node.sse")
        _quits_cleanly(program)


@pytest.fixture
def stored(env: dict[str, str], host: DemoHost, monkeypatch: pytest.MonkeyPatch) -> str:
    """A session stored in ``env``'s data folder, as the app stores one: a turn on ``host``."""
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, env[name])
    import asyncio

    store = Store()
    try:
        return asyncio.run(
            chat_turns(store, host.url, host.api_key, ["remember the lighthouse keeper"])
        )
    finally:
        store.close()


@pytest.mark.parametrize("how", ["--session", "--continue"])
def test_a_stored_session_opens_and_reaches_its_host(
    env: dict[str, str], host: DemoHost, stored: str, tmp_path: Path, how: str
) -> None:
    args = [*APP, "--session", stored] if how == "--session" else [*APP, "--continue"]
    with Program(args, _on_host(env, host), tmp_path) as program:
        program.wait_for_screen("remember the lighthouse keeper")
        program.wait_for_screen("● connected")
        _send(program, "and the second turn")
        # The new run's own end: a "run completed in" line below the turn sent. Counting the
        # screen's "run completed" quit while the new run was in flight (the quit dialog then
        # kept the app open): the status line says it too, and the restored transcript may be
        # drawn after the count was taken, while the text sent is in the prompt already.
        program.wait_for(
            lambda: _ended_after(program.screen_text(), "and the second turn"),
            "the next turn sent on the reopened session, and its run's end",
        )
        _quits_cleanly(program)


def test_attach_follows_a_run_started_elsewhere(
    env: dict[str, str], host: DemoHost, tmp_path: Path
) -> None:
    created = httpx.post(
        f"{host.url}/v1/runs",
        json={"workflowId": "demo.tour", "inputs": {}},
        headers={"Authorization": f"Bearer {host.api_key}"},
    ).json()
    args = [*APP, "--attach", created["runId"]]
    with Program(args, _on_host(env, host), tmp_path) as program:
        program.wait_for_all("run completed", "demo.tour")
        _quits_cleanly(program)


def test_record_writes_what_the_host_sent_and_render_reads_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    recording = tmp_path / "chat.sse"
    with Program([*APP, "--demo-pace", "0", "--record", str(recording)], env, tmp_path) as program:
        program.wait_for_screen("Connected to the embedded demo host")
        _send(program, "hello recorder")
        program.wait_for_screen("run completed")
        _quits_cleanly(program)
    assert "event:" in recording.read_text(encoding="utf-8")
    with Program(["render", str(recording), "--colors", "none"], env, tmp_path) as render:
        assert render.wait() == 0
        assert "run completed" in render.output()


def test_the_config_files_host_is_the_one_reached(
    env: dict[str, str], host: DemoHost, tmp_path: Path
) -> None:
    folder = Path(env["XDG_CONFIG_HOME"]) / "openwop-tui"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(
        f'host = "{host.url}"\napi_key = "{host.api_key}"\n', encoding="utf-8"
    )
    with Program(APP, env, tmp_path) as program:
        program.wait_for_screen("● connected")
        screen = program.screen_text()
        assert "embedded demo host" not in screen
        assert host.url.removeprefix("http://") in screen
        _quits_cleanly(program)


# ---------------------------------------------------------------------- printing commands


def _printed(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    with Program(args, env, cwd) as program:
        code = program.wait()
        return code, program.output()


@pytest.mark.parametrize(
    ("args", "expected", "codes"),
    [
        (["--version"], "openwop-tui ", {0}),
        (["--help"], "exit codes:", {0}),
        (["render", str(CAPTURE)], "run completed", {0}),
        (["render", str(CAPTURE), "--json"], '"type"', {0}),
        (["replay", str(CAPTURE), "--json"], '"type"', {0}),
        (
            ["run", "demo.chat", "--message", "hi", "--demo-pace", "0", "--no-audio"],
            "run completed",
            {0},
        ),
        (["workflows"], "demo.chat", {0}),
        (["runs"], "0 runs", {0}),
        (["sessions"], "no stored sessions", {0}),
        (["export"], "no stored session to export", {2}),
        (["lint", str(CAPTURE)], "python-host-multi-node.sse", {0, 1}),
        (["stats", str(CAPTURE)], "8 events", {0}),
        # Exit 1 when a check warns (no PortAudio on this machine, say): what it says is the test.
        (["doctor"], "terminal size", {0, 1}),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
def test_each_printing_command_prints_on_a_terminal(
    env: dict[str, str], tmp_path: Path, args: list[str], expected: str, codes: set[int]
) -> None:
    code, shown = _printed(args, env, tmp_path)
    assert code in codes, shown[-2000:]
    assert expected in shown, shown[-2000:]
    assert not any(sign in shown for sign in BROKEN), shown[-2000:]


def test_attach_prints_a_runs_history_on_a_terminal(
    env: dict[str, str], host: DemoHost, tmp_path: Path
) -> None:
    created = httpx.post(
        f"{host.url}/v1/runs",
        json={
            "workflowId": "demo.chat",
            "inputs": {"messages": [{"role": "user", "content": "hi"}]},
        },
        headers={"Authorization": f"Bearer {host.api_key}"},
    ).json()
    code, shown = _printed(
        ["attach", created["runId"], "--no-audio"], _on_host(env, host), tmp_path
    )
    assert code == 0, shown[-2000:]
    assert "run completed" in shown


def test_the_demo_host_serves_until_ctrl_c(env: dict[str, str], tmp_path: Path) -> None:
    with Program(["demo-host", "--port", "0"], env, tmp_path) as program:
        program.wait_for(lambda: "Press Ctrl-C to stop." in program.output(), "the host's banner")
        program.type("\x03")
        assert program.wait() == 0, program.output()
        assert "Stopping the demo host." in program.output()
