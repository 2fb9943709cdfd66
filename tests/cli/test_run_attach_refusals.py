"""``run --attach`` refuses what cannot be sent before the host is contacted (issue 25, part 8):
one line on stderr naming the file and why, exit 2, nothing on stdout. Each fails without its
check (a missing file sent as nothing, standard input without a type, --attach with --input)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openwop_tui.__main__ import main

DEAD = ["--host", "http://127.0.0.1:9"]  # (never reached: every case is refused before)


pytestmark = pytest.mark.usefixtures("cli_isolated")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--attach", "{tmp}/missing.png"], "missing.png: there is no such file"),
        (["--attach", "{tmp}"], "it is a folder"),
        (["--attach", "{tmp}/fake.png"], "its name says image/png, but its bytes are"),
        (["--attach", "{tmp}/huge.pdf"], "it is 20.0 MB, over the 6.3 MB an attachment may be"),
        (["--attach", "-"], "give it with --attach-type"),
        (["--attach", "-", "--attach-type", "video/mp4"], "--attach-type video/mp4 is not"),
        (["--attach", "{tmp}/fake.png", "--input", "{}"], "cannot be given with --input"),
    ],
)
def test_a_refused_attachment_is_said_before_the_host_is_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    (tmp_path / "fake.png").write_text("not a picture", encoding="utf-8")
    with (tmp_path / "huge.pdf").open("wb") as huge:
        huge.truncate(20_000_000)  # (sparse: its size is refused before a byte is read)
    args = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    assert main([*DEAD, "run", "demo.chat", "--message", "what is this?", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith("openwop-tui: ") and said in line, line
    assert "127.0.0.1:9" not in line  # (the host was never contacted)
