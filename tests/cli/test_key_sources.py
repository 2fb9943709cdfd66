"""The API key off the command line: ``--api-key-file PATH`` and ``--api-key -`` (stdin).

A key given as ``--api-key KEY`` is in ``ps`` and the shell history (issue 14). Each way in here
gives the same configured key (the one `workflows` sends to the demo host); a bad file or stdin
is one sentence that never quotes what it read.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest

from openwop_tui import __main__ as cli
from openwop_tui.__main__ import main
from openwop_tui.cli.key_source import key_from_file, key_from_stdin
from openwop_tui.config import Config, ConfigError

KEY = "sk-file-key-0123456789"


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Config]:
    """The configs `dispatch` is called with (nothing runs)."""
    configs: list[Config] = []

    def dispatch(args: Any, config: Config, **_: Any) -> int:
        configs.append(config)
        return 0

    monkeypatch.setattr(cli, "dispatch", dispatch)
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    return configs


def test_the_key_from_a_file(tmp_path: Path, seen: list[Config], capsys: Any) -> None:
    path = tmp_path / "key"
    path.write_text(f"  {KEY}  \nsecond line ignored\n", encoding="utf-8")
    path.chmod(0o600)
    assert main(["--api-key-file", str(path), "workflows"]) == 0
    assert seen[-1].api_key == KEY
    assert capsys.readouterr().err == ""
    if os.name == "posix":
        path.chmod(0o644)
        assert main(["--api-key-file", str(path), "workflows"]) == 0
        assert "other users can read" in capsys.readouterr().err


def test_the_key_from_stdin(monkeypatch: pytest.MonkeyPatch, seen: list[Config]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{KEY}\n"))
    assert main(["--api-key", "-", "workflows"]) == 0
    assert seen[-1].api_key == KEY


def test_a_terminal_is_prompted_without_echo(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    asked: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt, stream=None: asked.append(prompt) or KEY)
    assert key_from_stdin(Tty()) == KEY
    assert asked == ["API key: "]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"", "holds no API key"),
        (b"\n\nkey", "holds no API key"),
        (b"\xff\xfe\x00k", "is not text"),
        (b"k\x1b[2Jey", "does not hold an API key"),
        (b"x" * 10_000, "does not hold an API key"),
    ],
)
def test_a_bad_key_file_is_one_sentence(
    tmp_path: Path, content: bytes, said: str, seen: list[Config], capsys: Any
) -> None:
    path = tmp_path / "key"
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=said):
        key_from_file(path)
    with pytest.raises(SystemExit) as stopped:
        main(["--api-key-file", str(path), "workflows"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "\x1b" not in err and not seen


def test_missing_file_folder_and_two_ways_at_once(tmp_path: Path, seen: list[Config]) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        key_from_file(tmp_path / "missing")
    with pytest.raises(ConfigError, match="is a folder"):
        key_from_file(tmp_path)
    (tmp_path / "key").write_text(KEY, encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["--api-key", "x", "--api-key-file", str(tmp_path / "key"), "workflows"])
    with pytest.raises(SystemExit):
        main(["--api-key", "-", "render", "-"])
    assert not seen
