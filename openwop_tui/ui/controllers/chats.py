"""The chat as a whole: a fresh one for a new tab, its title, renaming it.

`fresh` makes the conversation of a new chat (Ctrl+N opens it in a tab of its own:
`openwop_tui.ui.controllers.tabs`; the chats already open stay as they are, stored).
`ChatsController` keeps the status line told of the session's title (`TitleShown`) and renames
the chat from an ask screen, refusing a title longer than the store keeps with a sentence that
says so. The title is the store's: the first message's first line until the user names it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.opening import stored
from openwop_tui.store.database import StoreError
from openwop_tui.store.writer import TITLE_CHARS
from openwop_tui.text.redact import display_url
from openwop_tui.ui.controllers.chat import UNTITLED, Chat, Common


def fresh(common: Common, secrets: tuple[str, ...], workflow: str) -> Conversation:
    """A new chat's conversation: kept in a new stored session (from its first message), or
    unkept without a store. ``secrets``: masked in what it folds (the key, the host's);
    ``workflow``: the one it runs, as the session records it."""
    config = common.config
    if common.store is None:
        return Conversation(limits=config.limits, secrets=secrets)
    return stored(
        common.store,
        None,
        host=display_url(config.host) if config.host else "embedded demo host",
        workflow=workflow,
        limits=config.limits,
        secrets=secrets,
    )


def check_title(text: str) -> str:
    """``text`` as a title (one line, spaces folded), or `ValueError` saying why not."""
    title = " ".join(text.split())
    if not title:
        raise ValueError("a title needs at least one character: not renamed")
    if len(title) > TITLE_CHARS:
        raise ValueError(
            f"a title is at most {TITLE_CHARS} characters (this one has {len(title)}): not renamed"
        )
    return title


class ChatsController:
    """A new chat, the title in the status line, renaming, help."""

    def __init__(self, chat: Chat, opener: Callable[[], Awaitable[None]] | None = None) -> None:
        """``opener``: opens a new chat in a tab of its own (`TabsController.new_chat`)."""
        self.chat = chat
        self._opener = opener

    async def new_chat(self) -> None:
        """A new chat on the same host, in a tab of its own (Ctrl+N; a host changed in the
        settings): the chats already open stay as they are."""
        if self._opener is not None:
            await self._opener()

    def ask_title(self) -> None:
        """The palette's Rename this chat: ask for a title, then keep it."""
        chat = self.chat
        if chat.store is None:
            chat.app.notify("This chat is not kept, so it has no title.", severity="warning")
            return
        if self.chat.kept_session_id() is None:
            chat.app.notify(
                "This chat is kept from its first message: send one, then name it.",
                severity="warning",
            )
            return
        from openwop_tui.ui.screens.ask import AskScreen

        current = self.chat.title()
        screen = AskScreen(
            "Rename this chat",
            f"a title, at most {TITLE_CHARS} characters",
            value="" if current == UNTITLED else current,
        )
        chat.app.push_screen(screen, self.rename)

    def rename(self, text: str | None) -> None:
        """Keep ``text`` as this chat's title (``None``: cancelled)."""
        chat = self.chat
        session_id = self.chat.kept_session_id()
        if text is None or chat.store is None or session_id is None:
            return
        try:
            title = check_title(text)
            chat.store.rename(session_id, title)
        except ValueError as error:
            chat.app.notify(str(error), severity="error", markup=False)
            return
        except StoreError as error:
            chat.app.notify(str(error), severity="error", markup=False)
            return
        self.chat.show_title()
        chat.app.notify(f"renamed: {title}", markup=False)

    def open_help(self, log_file: Path | None) -> None:
        """Help: the keys in effect, and how to do things, with this machine's real paths."""
        from openwop_tui.ui.screens.help import HelpScreen
        from openwop_tui.ui.screens.help_tasks import Places

        places = Places.defaults(self.chat.download_folder())
        store = self.chat.store
        if store is not None:
            places = replace(places, sessions=store.path)
        app = self.chat.app
        app.push_screen(HelpScreen(replace(places, log=log_file), focused=app.focused))
