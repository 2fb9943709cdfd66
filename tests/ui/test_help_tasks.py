"""Help that answers tasks (issue 15, Build 1): "how do I attach to a run", "where are my
sessions", "how do I answer a question", "how do I export", with the keys in effect and the real
paths the app uses. Fails without `help_tasks` (the help listed keys only).
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, settle
from textual.widgets import Markdown

from openwop_tui.ui.screens.help import HelpScreen


async def test_help_answers_tasks_with_the_real_paths() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f1")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.pause()
        text = "\n".join(md.source for md in app.screen.query(Markdown).results())
        for question in ("attach to a run", "find my sessions", "answer a question", "export"):
            assert f"…{question}" in text
        assert app.chat.store is not None and str(app.chat.store.path) in text
        assert str(app.chat.download_folder()) in text
        assert "**Ctrl+N**" in text and "**F5 / Alt+A**" in text and "**Ctrl+O**" in text
