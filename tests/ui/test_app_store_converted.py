"""A store of an older schema is converted as it opens (issue 26, part 3), and the user is
told where the copy of the file as it was is: the app's first screen says it in the
transcript (a command that opens the store says it on stderr:
tests/cli/test_sessions_converted.py). Before, the sentence was only
logged, and a copy the size of the store sat beside it unexplained.

The old store is written by this code with chunks off (`Store(dedup=False)`), as in
tests/store/test_store_migration.py.
"""

from __future__ import annotations

from pathlib import Path

from app_support import SIZE, demo_app, items_of, settle
from chunk_sessions import echo_session

from openwop_tui.core.items import Notice
from openwop_tui.store import migration
from openwop_tui.store.database import default_path
from openwop_tui.store.sessions import Store


def _old_store() -> Path:
    path = default_path()
    with Store(path, dedup=False) as store:
        echo_session(store, 40)
    return path


async def test_the_app_says_the_store_was_converted_and_where_the_copy_is() -> None:
    path = _old_store()
    backup = migration.backup_path(path, 2)
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, lambda: any(str(backup) in n.text for n in items_of(app, Notice)))
        (said,) = [n for n in items_of(app, Notice) if str(backup) in n.text]
        assert said.level == "info"
        assert "was converted to keep repeated text once" in said.text
    assert backup.is_file()
