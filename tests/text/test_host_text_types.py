"""A path that bypasses the boundary is a type error: mypy rejects a raw ``str`` handed to a sink
or a carrier of host text, and takes the same value once the boundary cleaned it.

The sinks (`openwop_tui.draw.safe_text.safe_text`, the status line's messages) and the carriers
(`RunEvent`, `Notice`) take `openwop_tui.text.sanitize.HostText` (a notice, drawn as one line,
takes `openwop_tui.text.sanitize.HostLine`: cleaned text that is not one line is rejected too,
so a newline in host text cannot forge the client's next line); a snippet that passes them a
plain string is checked by mypy against the real package, configured as ``tools/typecheck``
configures it (strict, the installed layout seen through symlinks). Each bypass must be reported
on its own line, and the cleaned twin of each must pass, so the test cannot pass by mypy failing
for some other reason.

What mypy cannot see: a value read out of a decoded JSON document is ``Any``, and ``Any`` is
accepted where `HostText` is asked. That path is the boundary walk's
(``tests/hostile/test_boundary_walk.py``), which runs every host string of a hostile corpus
through the print path, the app's view and the export.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from paths import TESTS

ROOT = TESTS.parent
MYPY = ROOT / ".venv" / "bin" / "mypy"

SNIPPET = """\
from openwop_tui.core.items import Notice
from openwop_tui.draw.safe_text import safe_text
from openwop_tui.protocol.events import RunEvent
from openwop_tui.text.sanitize import clean, one_line
from openwop_tui.ui.messages import RunChanged, RunPhase


def bypass(title: str) -> None:
    safe_text(title)  # BYPASS
    Notice("notice-1", "info", title)  # BYPASS
    Notice("notice-1", "info", clean(title))  # BYPASS
    RunEvent(type=title, payload={})  # BYPASS
    RunChanged(RunPhase.STATUS, status=title)  # BYPASS


def through_the_boundary(raw: str) -> None:
    title = clean(raw)
    safe_text(title)
    Notice("notice-1", "info", one_line(title))
    RunEvent(type=title, payload={})
    RunChanged(RunPhase.STATUS, status=title)
"""


def _view(tmp_path: Path) -> Path:
    """The installed layout as ``tools/typecheck`` builds it, with the snippet beside it."""
    view = tmp_path / "view"
    package = view / "openwop_tui"
    package.mkdir(parents=True)
    for entry in (ROOT / "openwop_tui").iterdir():
        (package / entry.name).symlink_to(entry)
    (package / "renderers").symlink_to(ROOT / "renderers")
    (package / "themes").symlink_to(ROOT / "themes")
    (view / "bypass_snippet.py").write_text(SNIPPET, encoding="utf-8")
    return view


def test_mypy_rejects_raw_text_at_each_sink_and_takes_cleaned_text(tmp_path: Path) -> None:
    assert MYPY.exists(), "mypy is in the dev extra: pip install -e '.[dev]'"
    view = _view(tmp_path)
    done = subprocess.run(
        [
            str(MYPY),
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports",
            "silent",  # the package's own findings are tools/typecheck's; only the snippet's
            "bypass_snippet.py",
        ],
        cwd=view,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = done.stdout + done.stderr
    bypasses = {n for n, line in enumerate(SNIPPET.splitlines(), 1) if "# BYPASS" in line}
    flagged = {
        int(found.group(1))
        for found in re.finditer(r"bypass_snippet\.py:(\d+): error: .*\[arg-type\]", report)
    }
    others = [
        line for line in report.splitlines() if ": error:" in line and "[arg-type]" not in line
    ]
    assert flagged == bypasses, report
    assert not others, report
    assert len(re.findall(r'expected "Host(Text|Line)', report)) >= len(bypasses), report
