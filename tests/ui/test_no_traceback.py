"""No traceback and no secret ever reaches the user (issue 5, part 4).

An unexpected error becomes one sentence naming the log file; the log holds the details with the
API key and URL credentials masked. Each test fails without its protection: drop the `try` in
`__main__.main`, the `_handle_exception` override of the app, the redacting formatter, or the
redacting writer, and the traceback or the key shows.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import ClassVar

import pytest
from textual.binding import Binding, BindingType

from openwop_tui import __main__ as cli
from openwop_tui.config import Config
from openwop_tui.logs import default_log_path, setup_logging
from openwop_tui.renderers.base import AudioSupport
from openwop_tui.text.redact import MASK, RedactingWriter, Redactor, display_url
from openwop_tui.ui import app as app_module
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.failure import Stopped
from openwop_tui.ui.options import AppOptions

KEY = "sk-test-9f8e7d6c5b4a"


def test_an_unexpected_error_in_a_command_is_one_sentence_and_a_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def explode(args: argparse.Namespace, config: Config, **_: object) -> int:
        secret_in_locals = config.api_key  # noqa: F841  (a traceback with locals would show it)
        raise RuntimeError(f"the host said {config.api_key}")

    monkeypatch.setattr(cli, "dispatch", explode)
    code = cli.main(["--api-key", KEY, "render", "-"])
    out, err = capsys.readouterr()
    assert code == cli.EXIT_INTERNAL
    assert err.count("\n") == 1, err
    assert "RuntimeError" in err and str(default_log_path()) in err
    assert "Traceback" not in out + err and KEY not in out + err
    logged = default_log_path().read_text()
    assert "Traceback" in logged and "the host said" in logged
    assert KEY not in logged and MASK in logged


def test_ctrl_c_outside_a_run_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: argparse.Namespace, config: Config, **_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "dispatch", interrupted)
    assert cli.main(["render", "-"]) == cli.EXIT_INTERRUPTED
    _, err = capsys.readouterr()
    assert err == "openwop-tui: interrupted\n"


def test_what_commands_print_has_the_key_masked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def echo(args: argparse.Namespace, config: Config, **_: object) -> int:
        print(f"the host echoed {config.api_key} from https://bob:hunter2@example.org/x")
        return 0

    monkeypatch.setattr(cli, "dispatch", echo)
    assert cli.main(["--api-key", KEY, "render", "-"]) == 0
    out, _ = capsys.readouterr()
    assert KEY not in out and "hunter2" not in out
    assert out == f"the host echoed {MASK} from https://{MASK}@example.org/x\n"


class _Faulty(ChatApp):
    """The chat app with a key whose handler fails, holding the key in a local variable."""

    CSS_PATH = str(
        Path(app_module.__file__).with_name("app.tcss")
    )  # relative paths follow the class
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f9", "explode", "Explode")]

    def action_explode(self) -> None:
        key = self.config.api_key
        raise ValueError(f"broken while holding {key}")


async def test_an_unexpected_error_in_the_app_is_a_sentence_not_a_crash_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_file = setup_logging(Redactor([KEY]), tmp_path / "app.log")
    config = Config(host="http://127.0.0.1:9", api_key=KEY, audio=False, images="none")
    app = _Faulty(config, AppOptions(log_file=log_file), audio_support=AudioSupport(False, "off"))
    # Pilot re-raises what the app was stopped by, for the test; a user never sees it. It is the
    # error wrapped in `Stopped`: what Textual shows of an exception that renders itself is its
    # rendering, and that is all this relies on of Textual (no private attribute is written).
    with pytest.raises(Stopped) as stopped:
        async with app.run_test() as pilot:
            await pilot.press("f9")
    assert isinstance(stopped.value.error, ValueError)
    _, err = capsys.readouterr()
    assert "stopped after an unexpected error (ValueError)" in err
    assert str(log_file) in err.splitlines()  # a line of its own, never folded
    assert "Traceback" not in err and KEY not in err
    logged = (tmp_path / "app.log").read_text()
    assert "broken while holding" in logged and KEY not in logged


async def test_notifications_are_masked_whoever_raises_them() -> None:
    config = Config(host="http://127.0.0.1:9", api_key=KEY, audio=False, images="none")
    app = ChatApp(config, audio_support=AudioSupport(False, "off"))
    async with app.run_test() as pilot:
        app.notify(f"echo {KEY} \x1b]52;c;SGk=\x07")
        await pilot.pause()
        (shown,) = [n.message for n in app._notifications if "echo" in n.message]
    assert KEY not in shown and "\x1b" not in shown and MASK in shown


def test_the_status_line_and_printed_urls_drop_credentials() -> None:
    assert display_url("https://bob:hunter2@host.example:8443/v1") == "https://host.example:8443/v1"
    assert display_url("http://[::1]:80/") == "http://[::1]:80/"
    assert "hunter2" not in display_url("https://bob:hunter2@[x/")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"key={KEY}", f"key={MASK}"),
        # An excerpt cut inside the key: masked from the floor on (12 characters of this one).
        (f'{{"auth": "{KEY[:12]}…', f'{{"auth": "{MASK}…'),
        (f'{{"auth": "{KEY[:10]}…', f'{{"auth": "{KEY[:10]}…'),  # shorter: ordinary text
        ("Authorization: Bearer abc.def-123", f"Authorization: Bearer {MASK}"),
        ("ftp://u:p@h/", f"ftp://{MASK}@h/"),
        ("nothing secret here", "nothing secret here"),
    ],
)
def test_the_redactor(text: str, expected: str) -> None:
    assert Redactor([KEY, None, "ab"])(text) == expected


def test_the_redacting_writer_forwards_terminal_facts(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    writer = RedactingWriter(sys.stdout, Redactor([KEY]))
    writer.write(KEY)
    writer.flush()
    assert writer.isatty() is sys.stdout.isatty()
    assert capsys.readouterr().out == MASK


def test_logging_never_prints_to_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging(Redactor(), tmp_path / "x.log")
    logging.getLogger("openwop_tui.test").warning("visible only in the file")
    assert capsys.readouterr().err == ""
    assert "visible only in the file" in (tmp_path / "x.log").read_text()
