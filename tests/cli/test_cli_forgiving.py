"""A command line that forgives: the shared options on either side of every command, other
options before their command too, ``run --help`` saying what WORKFLOW is, a busy port in one
line, input that is not SSE refused with the reason, and a dumb terminal printed to."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from paths import TESTS

from openwop_tui import __main__ as cli
from openwop_tui.__main__ import main
from openwop_tui.cli.options import SHARED_TITLE, hoist
from openwop_tui.cli.parser import WORKFLOW_HELP, build_parser

#: The positionals each command needs to parse.
POSITIONALS = {
    "render": ["x.sse"],
    "run": ["demo.chat"],
    "attach": ["run_1"],
    "replay": ["x.sse"],
    "stats": ["x.sse"],
    "completion": ["bash"],
}
SHARED = [
    "--host",
    "http://127.0.0.1:9",
    "--api-key",
    "k3y",
    "--images",
    "none",
    "--no-audio",
    "--colors",
    "16",
    "--width",
    "90",
    "--demo-pace",
    "0",
    "--max-asset-bytes",
    "1000",
    "--markdown-images",
    "--config",
    "c.toml",
]
EXPECTED = {
    "host": "http://127.0.0.1:9",
    "api_key": "k3y",
    "images": "none",
    "audio": False,
    "colors": "16",
    "width": 90,
    "demo_pace": 0.0,
    "max_asset_bytes": 1000,
    "markdown_images": True,
    "config": Path("c.toml"),
}


def _commands() -> list[str]:
    for action in build_parser()._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            return sorted(action.choices)
    raise AssertionError("no subcommands")


def test_every_command_is_covered() -> None:
    assert {"run", "attach", "render", "replay", "sessions", "workflows", "runs"} <= set(
        _commands()
    )
    assert {"demo-host", "lint", "stats", "doctor", "export"} <= set(_commands())


@pytest.mark.parametrize("command", _commands())
def test_shared_options_before_or_after_every_command(command: str) -> None:
    words = [command, *POSITIONALS.get(command, [])]
    parser = build_parser()
    after = parser.parse_args(hoist(parser, [*words, *SHARED]))
    before = parser.parse_args(hoist(parser, [*SHARED, *words]))
    for args in (after, before):
        assert args.command == command
        assert {key: getattr(args, key, None) for key in EXPECTED} == EXPECTED
    assert SHARED_TITLE in parser._subparsers._group_actions[0].choices[command].format_help()  # type: ignore[union-attr]


@pytest.mark.parametrize("nested", [["sessions", "rename", "a", "b"], ["sessions", "delete", "a"]])
def test_shared_options_after_a_nested_command(nested: list[str]) -> None:
    args = build_parser().parse_args([*nested, "--no-audio", "--width", "90"])
    assert args.audio is False and args.width == 90


def test_an_option_given_before_is_not_undone_after() -> None:
    parser = build_parser()
    args = parser.parse_args(hoist(parser, ["--record", "a.sse", "--no-audio", "run", "demo.x"]))
    assert args.record == Path("a.sse") and args.audio is False


@pytest.mark.parametrize(
    ("argv", "checks"),
    [
        (["--json", "runs"], {"command": "runs", "json": True}),
        (["--status", "failed", "runs"], {"command": "runs", "status": "failed"}),
        (["--speed", "0", "replay", "x.sse"], {"speed": 0.0, "file": "x.sse"}),
        (["--from=3", "attach", "r"], {"from_seq": 3, "run_id": "r"}),
        (["--port", "0", "--host", "h", "demo-host"], {"port": 0, "host": "h"}),
        (["--workflow", "demo.chat", "runs"], {"workflow": "demo.chat"}),
    ],
)
def test_a_commands_own_options_may_come_before_it(argv: list[str], checks: dict[str, object]):
    parser = build_parser()
    args = parser.parse_args(hoist(parser, argv))
    assert {key: getattr(args, key) for key in checks} == checks


def test_hoist_leaves_an_argv_without_a_command_alone() -> None:
    parser = build_parser()
    for argv in (["--no-audio"], ["--host", "run"], ["stray", "run"], ["--", "run"]):
        assert hoist(parser, argv) == argv


def test_audio_has_one_spelling_and_the_old_one_still_works() -> None:
    parser = build_parser()
    help_text = parser._subparsers._group_actions[0].choices["render"].format_help()  # type: ignore[union-attr]
    assert "--no-audio" in help_text and "--audio {" not in help_text
    assert parser.parse_args(["render", "x", "--audio", "off"]).audio is False
    assert parser.parse_args(["render", "x", "--audio", "on"]).audio is True


def test_replay_no_audio_after_the_file_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    capture = TESTS / "data" / "captures" / "inmem-host-noop.sse"
    assert main(["replay", str(capture), "--no-audio", "--width", "80"]) == 0
    out, err = capsys.readouterr()
    assert "run completed" in out and "printing the recording instead" in err


def test_run_help_says_what_workflow_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "WORKFLOW is the id of a workflow the host offers" in out
    assert "openwop-tui workflows" in out and "demo.tour" in out


def test_the_workflows_run_help_names_exist_on_the_demo_host() -> None:
    import re

    from openwop_tui.demo_host.workflows import WORKFLOWS

    named = set(re.findall(r"\b(?:demo|conformance)[.-][a-z.-]*[a-z]", WORKFLOW_HELP))
    assert named and named <= set(WORKFLOWS)


def test_demo_host_on_a_busy_port_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["demo-host", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "unexpected" not in err
    assert f"port {port} on 127.0.0.1 is already taken" in err and "--port 0" in err


def test_demo_host_port_out_of_range_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["demo-host", "--port", "70000"])
    assert done.value.code == 2 and "give a port from 1 to 65535" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# notes\nsome text\n", "holds no SSE events (line 1 is '# notes')"),
        ('\n\n{"kind": "event"}\n', 'line 3 is \'{"kind": "event"}\'; it looks like JSON'),
        ("", "is empty: it holds no SSE events"),
        (": keep-alive only\n\n", "holds no SSE events"),
    ],
)
@pytest.mark.parametrize("command", ["render", "replay", "render -"])
def test_input_that_is_not_sse_exits_2_with_the_reason(
    command: str,
    text: str,
    reason: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    path = tmp_path / "notes.txt"
    path.write_text(text, encoding="utf-8")
    if command == "render -":
        monkeypatch.setattr("sys.stdin", io.StringIO(text))
        argv = ["render", "-"]
    else:
        argv = [command, str(path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert reason in err and "Traceback" not in err
    assert out == ""


def test_no_app_when_the_terminal_cannot_show_it(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    monkeypatch.setattr("sys.stdin", Tty(True))
    monkeypatch.setattr("sys.stdout", Tty(True))
    monkeypatch.setenv("TERM", "xterm-256color")
    assert cli._no_app() is None
    monkeypatch.setenv("TERM", "dumb")
    assert "TERM=dumb" in (cli._no_app() or "")
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr("sys.stdout", Tty(False))
    assert cli._no_app() == "stdout is not a terminal"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENWOP_")}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "c"),
        XDG_STATE_HOME=str(tmp_path / "s"),
        XDG_DATA_HOME=str(tmp_path / "d"),
        OPENWOP_TUI_AUDIO="off",
    )
    return env


def test_attach_where_the_app_cannot_show_prints_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from openwop_tui.demo_host import DemoHost

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    monkeypatch.setattr(cli, "_run_app", lambda config, options: pytest.fail("the app started"))
    with DemoHost(pace=0) as host:
        keys = ["--host", host.url, "--api-key", host.api_key]
        assert main(["run", "demo.chat", "--message", "hi", "--json", *keys]) == 0
        run_id = capsys.readouterr().out.split('"runId": "')[1].split('"')[0]
        assert main(["--attach", run_id, *keys]) == 0
    out, err = capsys.readouterr()
    assert f"printing run {run_id} instead of the app" in err and "run completed" in out


def test_piped_app_prints_the_chat(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "openwop_tui", "--demo-pace", "0", "--workflow", "demo.chat"],
        input="hello\n\nwhat can you do?\n",
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "stdout is not a terminal; printing the chat instead of the app" in done.stderr
    assert done.stdout.count("run completed") == 2  # two messages, the blank line skipped
    assert "hello" in done.stdout and "\x1b[?1049h" not in done.stdout  # no full screen


def test_dumb_terminal_gets_the_printed_chat_not_the_app(tmp_path: Path) -> None:
    """On a real terminal (a pty) with TERM=dumb: a prompt, the transcript, Ctrl-D ends."""
    env = {**_env(tmp_path), "TERM": "dumb", "COLUMNS": "100"}
    main_fd, child_fd = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "openwop_tui", "--demo-pace", "0"],
        stdin=child_fd,
        stdout=child_fd,
        stderr=child_fd,
        env=env,
        close_fds=True,
    )
    os.close(child_fd)
    seen = b""
    sent = 0
    try:
        while True:
            # Only a guard against the full-screen app waiting for keys forever (the bug this
            # catches): a printed chat with the demo host at pace 0 ends in seconds.
            ready, _, _ = select.select([main_fd], [], [], 120)
            if not ready:
                process.kill()
                pytest.fail(f"no output for 120 s: the app, not the printed chat? {seen!r}")
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            # Answer each prompt: a message first, then Ctrl-D.
            while seen.count(b"you> ") > sent:
                os.write(main_fd, b"hello\n" if sent == 0 else b"\x04")
                sent += 1
    finally:
        code = process.wait(timeout=300)
        os.close(main_fd)
    text = seen.decode("utf-8", "replace")
    assert code == 0, text
    assert "TERM=dumb: this terminal cannot show the app" in text
    assert "run completed" in text
    assert "\x1b[?1049h" not in text  # the alternate screen was never entered
