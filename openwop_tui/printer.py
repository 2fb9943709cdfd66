"""Print a transcript without the app: the ``render`` and ``run`` commands.

Items are printed in transcript order, each once it is settled (a reply once final, reasoning once
``agent.reasoned`` arrived, a tool call once it returned, a streamed envelope once its emission
completed), with the same renderers as the app.
Envelopes are rendered with their assets from the `Conversation` (stored bytes, else fetched
from its host); offline, with no bytes stored, their URLs are shown, not fetched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.text import Text

from openwop_tui import actions, overflow, present
from openwop_tui.conversation import OFFLINE_REASON, Conversation, Update
from openwop_tui.renderers import Registry, default_registry, render
from openwop_tui.renderers.base import Asset, RenderContext
from openwop_tui.saving import SaveBudget
from openwop_tui.transcript import (
    Added,
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)

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
        registry: Registry | None = None,
    ) -> None:
        """``registry``: the renderers to draw with (and which envelopes get their bytes
        fetched); the default registry's when ``None``."""
        self.console = console
        self.registry = registry or default_registry()
        self.context = context
        self.conversation = conversation
        self.verbose = verbose
        self.save_dir = save_dir
        """Where media bytes that arrived are saved (``--save-media``); ``None`` saves nothing."""
        self.overflow_dir = overflow_dir
        """Where the full text of a cut reply, reasoning block or tool call is written (once,
        under ``budget``: `openwop_tui.saving`); ``None``: not written, and the item says how
        to have it written (``render`` and ``replay`` write nothing unasked)."""
        self.budget = budget
        self.redact = redact
        """Masks secrets in the cut parts written (`openwop_tui.redact.Redactor`)."""
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

    async def _renderable(self, item: Item) -> RenderableType | None:
        if isinstance(item, UserTurn):
            return present.user(item)
        if isinstance(item, AssistantTurn):
            return present.assistant(item, self.context.code_theme)
        if isinstance(item, Reasoning):
            return present.reasoning(item)
        if isinstance(item, ToolCall):
            return present.tool_call(item)
        if isinstance(item, Notice):
            return present.notice(item) if self.verbose or not item.verbose else None
        return await self._envelope(item)

    async def _envelope(self, item: EnvelopeItem) -> RenderableType:
        envelope = item.envelope
        context = replace(self.context, width=max(20, self.console.width - 4))
        needs_bytes = self.registry.needs_bytes
        if self.conversation is not None:
            context = await self.conversation.context_for(envelope, context, needs_bytes)
        elif (ref := envelope.bytes_ref(needs_bytes)) is not None and ref.url and not ref.base64:
            context = replace(
                context, asset=Asset(url=ref.url, error=OFFLINE_REASON, failure="not-fetched")
            )
        rendered = await asyncio.to_thread(render, envelope, context, self.registry)
        shown = present.envelope(rendered)
        # A fragment's bytes are not the emission's (rule E1: nothing is done with a fragment).
        if (
            self.save_dir is None
            or envelope.partial
            or rendered.data is None
            or envelope.bytes_ref(needs_bytes) is None
        ):
            return shown
        try:
            path = await asyncio.to_thread(
                actions.save_bytes, rendered.data, rendered.filename, self.save_dir
            )
        except actions.ActionError as error:
            return Group(shown, Text(f"  not saved: {error}", style=context.palette.error))
        return Group(shown, Text(f"  saved to {path}", style=context.palette.success))
