"""A command that opens a store of an older schema says it converted it, and where the copy of
the file as it was is (issue 26, part 3), on stderr, once (the app says it on its first screen:
tests/ui/test_app_store_converted.py)."""

from __future__ import annotations

import pytest
from chunk_sessions import echo_session

from openwop_tui.__main__ import main
from openwop_tui.store import migration
from openwop_tui.store.database import default_path
from openwop_tui.store.sessions import Store

pytestmark = pytest.mark.usefixtures("cli_isolated")


def test_a_command_that_opens_the_store_says_it_was_converted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = default_path()
    with Store(path, dedup=False) as store:
        echo_session(store, 40)
    assert main(["sessions", "--json"]) == 0
    err = capsys.readouterr().err
    assert (
        f"a copy of it as it was (for an older openwop-tui) is {migration.backup_path(path, 2)}"
        in err
    )
    assert main(["sessions", "--json"]) == 0  # converted once: said once
    assert capsys.readouterr().err == ""
