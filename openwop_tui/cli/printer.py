"""Print a transcript without the app: the ``render`` and ``run`` commands.

Items are printed in transcript order, each once it is settled (a reply once final, reasoning once
``agent.reasoned`` arrived, a tool call once it returned, a streamed envelope once its emission
completed), drawn as the app draws them: each item by `openwop_tui.present.dispatch`, each
envelope by `openwop_tui.present.envelope.draw`, with its assets from the `Conversation` (stored
bytes, else fetched from its host); offline, with no bytes stored, their URLs are shown, not
fetched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.text import Text

from openwop_tui.core import overflow
from openwop_tui.core.assets import check_link
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import (
    Added,
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
)
from openwop_tui.core.updates import Update
from openwop_tui.devices import desktop as actions
from openwop_tui.present import dispatch
from openwop_tui.present.envelope import Source, draw, offline
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import RenderContext
from openwop_tui.store.saving import SaveBudget

INCOMPLETE = "  the emission never completed: this is the last fragment that arrived"


def _settled(item: Item) -> bool:
    if isinstance(item, AssistantTurn):
        return item.final
    if isinstance(item, Reasoning | ToolCall):
        return item.done
    if isinstance(item, EnvelopeItem):
        # A fragment of a streamed emission (rule E1) is replaced in place by the next one the
        # fold sees: wait for the one that completes it, or for the end of the stream.
        return not item.envelope.partial
    return True


def _incomplete(item: Item) -> bool:
    """An envelope printed while still a fragment: the stream ended before its emission did."""
    return isinstance(item, EnvelopeItem) and bool(item.envelope.partial)


class TranscriptPrinter:
    """Prints transcript items in order as they settle."""

    def __init__(
        self,
        console: Console,
        context: RenderContext,
        *,
        conversation: Conversation | None = None,
        verbose: bool = True,
        save_dir: Path | None = None,
        overflow_dir: Path | None = None,
        budget: SaveBudget | None = None,
        redact: Callable[[str], str] | None = None,
        registry: Registry,
    ) -> None:
        """Print ``conversation``'s items to ``console`` as they change.

        Args:
            console: Where the transcript is printed.
            context: How envelopes are drawn (width, palette, image and colour support).
            conversation: The conversation whose items are printed; None for none yet.
            verbose: True prints every notice; False leaves out those marked verbose.
            save_dir: Where media bytes that arrived are saved (``--save-media``); None saves
                nothing.
            overflow_dir: Where the full text of a cut reply, reasoning block or tool call is
                written (once, under ``budget``: `openwop_tui.store.saving`); None: not written, and
                the item says how to have it written (``render`` and ``replay`` write nothing
                unasked).
            budget: The bytes the program may still write unasked; None for no limit.
            redact: Masks secrets in the cut parts written (`openwop_tui.text.redact.Redactor`);
                None writes them as they are.
            registry: The front end's renderers to draw with (and which envelopes get their bytes
                fetched).
        """
        self.console = console
        self.registry = registry
        self.context = context
        self.conversation = conversation
        self.verbose = verbose
        self.save_dir = save_dir
        """Where media bytes that arrived are saved (``--save-media``); ``None`` saves nothing."""
        self.overflow_dir = overflow_dir
        """Where the full text of a cut reply, reasoning block or tool call is written (once,
        under ``budget``: `openwop_tui.store.saving`); ``None``: not written, and the item says how
        to have it written (``render`` and ``replay`` write nothing unasked)."""
        self.budget = budget
        self.redact = redact
        """Masks secrets in the cut parts written (`openwop_tui.text.redact.Redactor`)."""
        self._pending: list[Item] = []

    async def feed(self, changes: Iterable[Update]) -> None:
        """Take a conversation's updates; print whatever is ready, in order."""
        for change in changes:
            if isinstance(change, Added):
                self._pending.append(change.item)
        await self._drain(force=False)

    async def flush(self) -> None:
        """Print everything still pending, settled or not (the stream ended)."""
        await self._drain(force=True)

    async def _drain(self, *, force: bool) -> None:
        while self._pending and (force or _settled(self._pending[0])):
            item = self._pending.pop(0)
            unsaved = await self._keep_overflow(item)
            renderable = await self._renderable(item)
            if unsaved is not None and renderable is not None:
                renderable = Group(renderable, unsaved)
            if renderable is not None:
                # A line (a lifecycle notice, an error, a URL) is one line when it goes to a
                # file or a pipe: whoever reads it greps it. Bodies keep the console's width.
                soft = isinstance(item, Notice) and not self.console.is_terminal
                self.console.print(renderable, soft_wrap=soft)
                if _incomplete(item):
                    self.console.print(Text(INCOMPLETE, style=self.context.palette.warning))
                if not isinstance(item, Notice):
                    self.console.print()

    async def _keep_overflow(self, item: Item) -> Text | None:
        """Write a cut item's full text before it is printed, so its marker shows the path;
        return the line saying why it could not be written, if it could not."""
        if not overflow.needs_saving(item):
            return None
        if self.overflow_dir is None:
            return Text(
                "  the cut part is not saved: pass --save-media DIR to save it",
                style=self.context.palette.muted,
            )
        try:
            await asyncio.to_thread(
                overflow.save, item, self.overflow_dir, self.budget, self.redact
            )
        except actions.ActionError as error:
            return Text(f"  the cut part was not saved: {error}", style=self.context.palette.error)
        return None

    @property
    def source(self) -> Source:
        """Where envelopes get their bytes: the conversation's store and host, or nowhere."""
        conversation = self.conversation
        if conversation is None:
            return offline()
        return Source(conversation.asset_for, conversation.max_inline_bytes, check_link)

    async def _renderable(self, item: Item) -> RenderableType | None:
        palette = self.context.palette
        if isinstance(item, Notice) and not (self.verbose or not item.verbose):
            return None
        if not isinstance(item, EnvelopeItem):
            return dispatch.renderable(item, palette)
        return await self._envelope(item)

    async def _envelope(self, item: EnvelopeItem) -> RenderableType:
        envelope = item.envelope
        rendered = await draw(
            envelope, self.registry, self.context, self.source, columns=self.console.width
        )
        shown = dispatch.renderable(item, self.context.palette, rendered=rendered)
        # A fragment's bytes are not the emission's (rule E1: nothing is done with a fragment).
        if (
            self.save_dir is None
            or envelope.partial
            or rendered.data is None
            or envelope.bytes_ref(self.registry.needs_bytes) is None
        ):
            return shown
        palette = self.context.palette
        try:
            path = await asyncio.to_thread(
                actions.save_bytes, rendered.data, rendered.filename, self.save_dir
            )
        except actions.ActionError as error:
            return Group(shown, Text(f"  not saved: {error}", style=palette.error))
        return Group(shown, Text(f"  saved to {path}", style=palette.success))
