"""The CLI tests' one isolation: no user config file, no host or key from the environment, no
sound card probing. A test file takes it with ``pytestmark = pytest.mark.usefixtures(...)``:
`cli_isolated`, or `cli_isolated_wide` where what it reads is printed at a fixed width."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cli_isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("OPENWOP_BASE_URL", raising=False)
    monkeypatch.delenv("OPENWOP_API_KEY", raising=False)
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")


@pytest.fixture
def cli_isolated_wide(cli_isolated: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cli_isolated`, printing 100 columns wide whatever terminal runs the suite."""
    monkeypatch.setenv("COLUMNS", "100")
