"""Answering a question over v2: the run-scoped route names the run by its projected,
tenant-bound id (``demo~2Frun_…``), which the host must decode as its other routes do."""

from __future__ import annotations

import pytest

from openwop_tui import __main__ as cli
from openwop_tui.demo_host import DemoHost


@pytest.mark.parametrize("protocol", [1, 2])
def test_a_clarification_is_answered_over_both_majors(
    protocol: int, capsys: pytest.CaptureFixture[str]
) -> None:
    with DemoHost(pace=0, protocol=protocol) as host:
        answers = ["--answer", "colour=blue", "--answer", "name=Ada", "--no-audio"]
        code = cli.main(
            ["run", "demo.clarify", "--host", host.url, "--api-key", host.api_key, *answers]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Thanks, Ada" in out and "blue" in out
