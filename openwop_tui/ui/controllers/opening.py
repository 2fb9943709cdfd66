"""What the app does as it opens: its themes chosen, then the first screen (said and drawn
before the host answers).

Both run once, from `openwop_tui.ui.app.ChatApp` (its ``__init__`` and ``on_mount``); they live
here so the app keeps to composition and routing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import App, InvalidThemeError

from openwop_tui.config import Config
from openwop_tui.store import state
from openwop_tui.text.sanitize import clean_own
from openwop_tui.themes import DEFAULT as DEFAULT_THEME
from openwop_tui.themes import THEMES
from openwop_tui.ui import heap

# Named only: the app chooses its theme before its first frame, and the chat's modules are
# imported after it (`openwop_tui.ui.first_frame`).
if TYPE_CHECKING:
    from openwop_tui.store.journal import Restored
    from openwop_tui.ui.controllers.chat import Chat
    from openwop_tui.ui.controllers.feed import Feed

__all__ = ["choose_theme", "first_screen"]


def choose_theme(app: App[None], config: Config) -> str | None:
    """Register the shipped themes and choose one: the config file's, else the one last chosen
    in the app, else the default. A remembered theme that no longer exists (a plugin theme
    gone) is quietly dropped; an unknown configured one is the warning returned."""
    for theme in THEMES:
        app.register_theme(theme)
    try:
        app.theme = config.theme or state.remembered_theme() or DEFAULT_THEME
    except InvalidThemeError:
        app.theme = DEFAULT_THEME
        if config.theme:
            names = ", ".join(sorted(app.available_themes))
            return f"unknown theme {config.theme!r}; available: {names}"
    return None


async def first_screen(chat: Chat, feed: Feed, warnings: Sequence[str], typed: str) -> None:
    """Say what went wrong while opening and what the plugins did, show the title, put the
    keys typed while the app started in the prompt, and draw a reopened session: all before,
    and without, the host.

    Args:
        chat: The chat on screen (a reopened session's conversation, or a new one).
        feed: Puts the reopened session on screen.
        warnings: What went wrong while opening (a theme, the store), one sentence each.
        typed: The keys typed while the app started, for the prompt.
    """
    for warning in warnings:
        await chat.notice("warning", warning)
    for problem in chat.store.journal_problems if chat.store is not None else ():
        await chat.notice("warning", problem)
    if chat.store is not None and chat.store.converted:
        # The store was brought up to chunks as it opened (or could not be): where the copy
        # of the file as it was is, for an older openwop-tui or to remove.
        await chat.notice(
            "warning" if chat.store.conversion_failed else "info", chat.store.converted
        )
    if chat.store is not None and chat.store.search_added:
        # The search index was added as the store opened: its sessions are indexed after.
        await chat.notice("info", chat.store.search_added)
    if chat.store is not None and chat.store.restored:
        # Said, not logged: it is about the store, not this chat (which it would start).
        said = chat.transcript.add_notice("info", clean_own(restored_line(chat.store.restored)))
        await chat.parts.view.apply([said])
    for notice in chat.registry.notices:  # plugins refused, replacing, broken
        await chat.notice("warning", notice)
        chat.app.notify(notice, severity="warning", timeout=8, markup=False)
    chat.show_title()
    if typed:
        # Before the queue's keys: those were typed after these (and an Enter among these
        # sends; the message waits in the queue until the host is reached).
        chat.parts.prompt.type_ahead(typed)
    if chat.conversation.transcript.items:
        # A short reopened session: everything at once (a long one shows its newest runs,
        # and is read after the first frame: `openwop_tui.ui.controllers.reopening`). The
        # notices said above stay where they are.
        await feed.show_session(chat.conversation, replacing=False)
    heap.settle(collect=False)  # what opening made lives as long as the app (`openwop_tui.ui.heap`)


def restored_line(restored: Sequence[Restored]) -> str:
    """One line for the journals an earlier quit left, written into the store as it opened."""
    entries = sum(each.entries for each in restored)
    messages = sum(each.messages for each in restored)
    files = ", ".join(str(each.path) for each in restored)
    line = (
        f"{entries:,} session entries ({messages:,} of your messages and what came with them) "
        f"an earlier quit kept in a journal ({files}) are now in the store"
    )
    skipped = sum(each.skipped for each in restored)
    if skipped:
        line += f"; {skipped:,} more belonged to sessions deleted since, and were dropped"
    return line
