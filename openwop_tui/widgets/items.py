"""Live widgets for transcript items other than envelopes.

Each knows how to redraw itself from its transcript item and how to hand a Rich renderable to
the line-cached history once it is old (`to_renderable`). Only assistant replies are `Markdown`
widgets, streamed with `Markdown.get_stream` so a token never re-parses the whole reply.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.containers import Vertical
from textual.widgets import Label, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from openwop_tui import present
from openwop_tui.sanitize import clean
from openwop_tui.sanitize_markdown import markdown_parser
from openwop_tui.transcript import AssistantTurn, Notice, Reasoning, ToolCall, UserTurn


class ItemStatic(Static):
    """A one-renderable item (user turn, reasoning, tool call, notice)."""

    DEFAULT_CSS = """
    ItemStatic { margin: 0 0 1 0; padding: 0 1; }
    ItemStatic.-notice { margin: 0; }
    ItemStatic.-verbose { display: none; }
    ItemStatic.-reasoning { color: $text-muted; }
    """

    def __init__(self, item: UserTurn | Reasoning | ToolCall | Notice) -> None:
        super().__init__(self._renderable(item))
        self.item = item
        if isinstance(item, Notice):
            self.add_class("-notice")
            if item.verbose:
                self.add_class("-verbose")
        elif isinstance(item, Reasoning):
            self.add_class("-reasoning")

    @staticmethod
    def _renderable(item: UserTurn | Reasoning | ToolCall | Notice) -> RenderableType:
        if isinstance(item, UserTurn):
            return present.user(item)
        if isinstance(item, Reasoning):
            return present.reasoning(item)
        if isinstance(item, ToolCall):
            return present.tool_call(item)
        return present.notice(item)

    @property
    def settled(self) -> bool:
        """True once the item will not change any more."""
        item = self.item
        if isinstance(item, Reasoning | ToolCall):
            return item.done
        return True

    def refresh_item(self) -> None:
        """Redraw from the item after it changed."""
        self.update(self._renderable(self.item))

    def to_renderable(self) -> RenderableType:
        """What the history keeps of this item."""
        return self._renderable(self.item)


class StreamedMarkdown(Markdown):
    """Textual's `Markdown`, re-reading only the source it still has to re-parse.

    Textual's ``append`` concatenates the whole source and splits all of it into lines on every
    append, to find the last block it parsed: a reply of n lines costs O(n) per token. Here,
    once an append has landed, the lines before that last block (finished widgets) move to a
    list of parts that ``append`` never sees, so each append costs the delta plus the block
    still open. ``source`` still answers the whole text, joined when it is read.
    """

    def __init__(self, markdown: str = "", **kwargs: Any) -> None:
        super().__init__(markdown, **kwargs)
        self._done_parts: list[str] = []
        """Source of the blocks already drawn, no longer handed to Textual's append."""
        self._appending = False

    @property
    def source(self) -> str:
        """The whole markdown source (inside `append`, only the part still open)."""
        tail = self._markdown or ""
        if self._appending or not self._done_parts:
            return tail
        return "".join(self._done_parts) + tail

    def update(self, markdown: str) -> AwaitComplete:
        """Replace the whole document (as `Markdown.update`)."""
        self._done_parts.clear()
        return super().update(markdown)

    def append(self, markdown: str) -> AwaitComplete:
        """Append like `Markdown.append`, then set aside the source of blocks already drawn."""
        # Textual reads ``self.source`` synchronously here, before its coroutine starts.
        self._appending = True
        try:
            appended = super().append(markdown)
        finally:
            self._appending = False

        async def then() -> None:
            await appended
            self._set_aside_parsed()

        return AwaitComplete(then())

    def _set_aside_parsed(self) -> None:
        done = self._last_parsed_line
        if done > 0:
            # The same line splitting Textual uses, so the block boundary lines up.
            lines = self._markdown.splitlines(keepends=True)
            self._done_parts.append("".join(lines[:done]))
            self._markdown = "".join(lines[done:])
            self._last_parsed_line = 0


class AssistantMessage(Vertical):
    """A reply that grows token by token."""

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 0 0 1 0; padding: 0 1; }
    AssistantMessage > Label { text-style: bold; color: $success; }
    AssistantMessage > Markdown { margin: 0 0 0 2; padding: 0; }
    AssistantMessage.-streaming > Label { color: $warning; }
    AssistantMessage > .-cut { margin: 0 0 0 2; display: none; }
    AssistantMessage.-cut > .-cut { display: block; }
    """

    def __init__(self, item: AssistantTurn) -> None:
        super().__init__()
        self.item = item
        self._stream: MarkdownStream | None = None
        self._shown: list[str] = []
        """The deltas drawn so far, joined only when the reply ends (appending to one string
        would copy the whole reply on every token)."""
        self._marker = ""
        self.add_class("-streaming")

    def compose(self) -> ComposeResult:
        yield Label(Text(self._label()))
        # Start empty: the fold has already appended the first delta to the item, and that
        # delta arrives next as an update; a completion-only reply is drawn by `finish`.
        # The parser cleans its tokens: `clean` on each delta cannot see a character reference
        # (`&#x202e;`) that markdown decodes into a bidi control.
        yield StreamedMarkdown("", open_links=False, parser_factory=markdown_parser)
        yield Static("", classes="-cut")

    def _label(self) -> str:
        model = f" · {clean(self.item.model)}" if self.item.model else ""
        state = " …" if not self.item.final else ""
        return f"Assistant{model}{state}"

    @property
    def settled(self) -> bool:
        """True once the reply is final."""
        return self.item.final

    def show_cut(self) -> None:
        """Show (or refresh) the line saying the reply was cut, by how much and where it went."""
        marker = present.reply_marker(self.item)
        # Redrawn only when the words change (the count has one decimal), not on every token.
        if marker is not None and marker.plain != self._marker:
            self._marker = marker.plain
            self.add_class("-cut")
            self.query_one(".-cut", Static).update(marker)

    async def append(self, delta: str) -> None:
        """Stream one delta into the markdown (batched by `MarkdownStream` under load).

        Past the reply's limit the fold sends an empty delta: nothing is drawn but the count.
        """
        if self.item.body.cut:
            self.show_cut()
        if not delta:
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(Markdown))
            self.query_one(Label).update(Text(self._label()))
        self._shown.append(delta)
        await self._stream.write(clean(delta))

    async def finish(self) -> None:
        """Stop streaming; replace the text if the authoritative completion differs."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if "".join(self._shown) != self.item.text:
            self._shown = [self.item.text]
            await self.query_one(Markdown).update(clean(self.item.text))
        if self.item.final:
            self.remove_class("-streaming")
        self.query_one(Label).update(Text(self._label()))
        self.set_class(self.item.body.cut, "-cut")
        self.show_cut()

    def to_renderable(self) -> RenderableType:
        """What the history keeps of this reply."""
        return present.assistant(self.item)


def is_settled(widget: object) -> bool:
    """Whether a live transcript widget may move to the history."""
    return bool(getattr(widget, "settled", True))
