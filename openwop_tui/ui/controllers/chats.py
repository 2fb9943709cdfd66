"""The chat as a whole: start a new one, name it, and show its title.

`ChatsController` replaces the chat's conversation with a fresh stored one (Ctrl+N: the old chat
stays in the store, and so in the sessions list, as it was), keeps the status line told of the
session's title (`TitleShown`) and renames the chat from an ask screen, refusing a title longer
than the store keeps with a sentence that says so. The title is the store's: the first message's
first line until the user names it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.opening import stored
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import SessionLog
from openwop_tui.store.writer import TITLE_CHARS
from openwop_tui.text.redact import display_url
from openwop_tui.ui.controllers.chat import UNTITLED, Chat
from openwop_tui.ui.controllers.feed import Feed
from openwop_tui.ui.controllers.interrupts import InterruptsController
from openwop_tui.ui.controllers.runs import RunsController


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
    """New chat, the title in the status line, renaming."""

    def __init__(
        self, chat: Chat, runs: RunsController, feed: Feed, interrupts: InterruptsController
    ) -> None:
        """Keep the controllers a new chat has to reset.

        Args:
            chat: What every controller works on.
            runs: Says whether a run is going (a new chat is refused meanwhile).
            feed: Reset when a new chat starts.
            interrupts: Its forms are dropped when a new chat starts.
        """
        self.chat = chat
        self.runs = runs
        self.feed = feed
        self.interrupts = interrupts

    async def new_chat(self) -> None:
        """Ctrl+N: a fresh conversation on the same host and workflow; the screen clears and
        the old chat stays stored as it was. Refused while a run is going (its events would
        land in the new chat)."""
        chat = self.chat
        if self.runs.busy:
            chat.app.notify(
                "A run is in progress: start a new chat when it has ended (Esc cancels it).",
                severity="warning",
            )
            return
        old = chat.conversation
        # A recording goes on into the new chat; the stored session is the old chat's own.
        carried = [keep for keep in old.logs if not isinstance(keep, SessionLog)]
        config = chat.config
        fresh: Conversation
        if chat.store is not None:
            fresh = stored(
                chat.store,
                None,
                session=chat.session,
                host=display_url(config.host) if config.host else "embedded demo host",
                workflow=chat.session.workflow_id if chat.session else config.workflow,
                limits=config.limits,
                secrets=old.secrets,
                logs=carried,
            )
        else:
            fresh = Conversation(
                chat.session, limits=config.limits, logs=carried, secrets=old.secrets
            )
        chat.show_conversation(fresh)
        self.interrupts.drop_all()
        self.feed.reset()
        chat.parts.queued.clear()
        await chat.parts.view.clear()
        chat.show_title(new_chat=True)
        chat.parts.prompt.focus()
        kept = "the last one is in the sessions list (Ctrl+O)" if chat.store else "not kept"
        chat.app.notify(f"new chat ({kept})", markup=False)

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
