"""The one choice of how each transcript item is drawn, for the app and the printer alike.

`parts` turns an item into the renderables that draw it, in order; `renderable` groups them for
a sink that prints an item whole (``render``, ``run``, ``attach``, ``replay``). The app's
transcript view draws the same parts and caches the lines of the ones marked stable (a reply's
markdown blocks: a parse that changes one makes a new one), so a token costs the open block
only, and a redraw that changed no text (a reply past its cap) costs none of them. Because both
sinks draw the same parts, a reply reads the same in the app as `render` prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from openwop_tui.core.items import (
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)
from openwop_tui.core.own_media import is_own
from openwop_tui.draw.palette import Palette, Themed
from openwop_tui.draw.safe_text import safe_text
from openwop_tui.present import items as present
from openwop_tui.present.hanging import Hanging
from openwop_tui.protocol.envelopes import MEDIA_DISPLAYS
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import HostText, clean_label

if TYPE_CHECKING:
    # Markdown (the parser, Rich's markdown and syntax modules, Pygments) is imported where a
    # reply is first drawn: the app's first frame draws none, and need not load it.
    from rich.syntax import SyntaxTheme

    from openwop_tui.draw.markdown import MarkdownBlock, ReplyMarkdown

__all__ = ["Growing", "Part", "parts", "renderable", "reply_body"]

INDENT = 2
"""Columns a reply's body and an envelope's body are indented under their heading."""


class Growing(Protocol):
    """A part that grows at its end, drawn again from its last lines (a streaming paragraph:
    `openwop_tui.draw.open_paragraph.OpenParagraph`). A view that holds the lines of its last
    drawing at a width says so (`hold`) before drawing it there again: the drawing then yields
    only the lines past those it keeps (`skipped` of them), which the view keeps from its own."""

    drawings: int
    """Its drawings so far (the number of the last one, which a view names in `hold`)."""
    skipped: int
    """Its lines the last drawing did not yield (the first ones: the holder has them)."""
    yielded: int
    """Its lines the last drawing yielded."""

    def hold(self, drawing: int | None) -> None:
        """The caller holds the lines of drawing ``drawing``; ``None``: none any more."""


@dataclass(frozen=True, slots=True)
class Part:
    """One renderable of an item. ``key`` is set when the part will draw the same lines for as
    long as the key is the same object (a markdown block of a reply): a view may cache them,
    and then asks for the renderable only when it has no lines for the key (``make``)."""

    made: RenderableType | None = None
    """The renderable, made already (``None`` when ``make`` makes it)."""
    key: object | None = None
    make: Callable[[], RenderableType] | None = None
    """Makes the renderable when it is asked for: a reply's 800th block costs a redraw a
    lookup of its lines, not the making of its markdown, theme and padding again."""
    growing: Growing | None = None
    """What draws a part that grows at its end (a streaming paragraph), when a view may keep
    its first lines from the drawing before (`Growing`)."""

    @property
    def renderable(self) -> RenderableType:
        """What draws the part."""
        if self.make is not None:
            return self.make()
        assert self.made is not None
        return self.made


def reply_body(markdown: ReplyMarkdown, palette: Palette) -> list[Part]:
    """A reply's markdown, block by block, indented, in the theme (Rich's own named styles
    mapped onto the palette by `Themed`); no terminal hyperlinks from host text: URLs show."""
    blocks = markdown.blocks()
    code = palette.syntax_theme()
    drawn: list[Part] = []
    for index, block in enumerate(blocks):
        lead = index > 0 and blocks[index - 1].gap_after
        # The open block too: a parse that changes it makes a new block (`ReplyMarkdown`), so
        # the same block is the same lines. A reply past its cap, whose text no longer grows
        # while its "cut" count does, was drawn whole again at every redraw (a megabyte of
        # one paragraph at a flood's end: most of a second, twice).
        make = partial(_block_drawing, block, lead, code, palette)
        drawn.append(Part(key=_Key(block, lead), make=make, growing=block.paragraph))
    return drawn


def _block_drawing(
    block: MarkdownBlock, lead: bool, code: SyntaxTheme, palette: Palette
) -> RenderableType:
    """One markdown block of a reply as it is drawn, indented, in the theme.

    Args:
        block: The block (its tokens, and where its highlighted code is kept).
        lead: Whether it is drawn after a blank line (the block above wants one after it).
        code: The Pygments theme its code is drawn in.
        palette: The theme's styles.
    """
    from openwop_tui.draw.rich_markdown import BlockMarkdown, OpenParagraphMarkdown

    drawing: BlockMarkdown
    if block.paragraph is not None:
        drawing = OpenParagraphMarkdown(
            block.tokens, block.paragraph, code_theme=code, lead=lead, settled=block.settled
        )
    else:
        drawing = BlockMarkdown(
            block.tokens, code_theme=code, lead=lead, highlighted=block.highlighted
        )
    return Padding(Themed(drawing, palette), (0, 0, 0, INDENT), style=palette.text)


@dataclass(frozen=True, slots=True, eq=False)
class _Key:
    """A block as drawn: the same block after the same gap draws the same lines."""

    block: MarkdownBlock
    lead: bool

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and other.block is self.block and other.lead == self.lead

    def __hash__(self) -> int:
        return hash((id(self.block), self.lead))


def _reply(turn: AssistantTurn, palette: Palette, markdown: ReplyMarkdown | None) -> list[Part]:
    from openwop_tui.draw.markdown import ReplyMarkdown

    drawn = [Part(present.assistant_heading(turn, palette))]
    body = reply_body(markdown or ReplyMarkdown.whole(turn.text), palette) if turn.text else []
    if not body:
        drawn.append(Part(Padding(Text("…", palette.muted), (0, 0, 0, INDENT))))
    drawn += body
    hint = turn.hint
    if hint is not None and (hint.title or hint.alt):
        drawn.append(Part(Padding(_caption(hint.title, hint.alt, palette), (0, 0, 0, INDENT))))
    marker = present.reply_marker(turn, palette)
    if marker is not None:
        drawn.append(Part(Padding(marker, (0, 0, 0, INDENT))))
    return drawn


def _envelope(
    item: EnvelopeItem, palette: Palette, rendered: Rendered | None, lint: str = ""
) -> list[Part]:
    """What draws an envelope item: ``loading…`` until drawn, else the drawing with its alt as a
    caption where the renderer does not show it.

    Args:
        item: The envelope item.
        palette: The theme's colours.
        rendered: Its drawing; None when asked for and not drawn yet.
        lint: The marks of the lint findings about its event, for its badge.
    """
    own = is_own(item)
    if rendered is None:
        # Asked for, not drawn yet (its bytes may be on their way).
        envelope = item.envelope
        title = safe_text(
            clean_label(f"{envelope.display or 'json'} · {envelope.kind}"), palette.accent
        )
        if own:
            title = present.own_title(title, palette)
        return [Part(title), Part(Text("  loading…", style=f"italic {palette.muted}"))]
    envelope = item.envelope
    if not envelope.alt or envelope.display in MEDIA_DISPLAYS:
        return [Part(present.envelope(rendered, palette, lint=lint, own=own))]
    # Media renderers caption their own alt; text families (code, card, a completion's lifted
    # hint) have nowhere else to show it: under the body, above the badge.
    caption = _caption(None, envelope.alt, palette)
    return [
        Part(present.envelope(rendered, palette, with_badge=False)),
        Part(Padding(caption, (0, 0, 0, INDENT))),
        Part(present.envelope_badge(rendered, palette, lint)),
    ]


def _caption(title: HostText | None, alt: HostText | None, palette: Palette) -> Text:
    """A hint's title and alt, one muted line: ``Answer · alt: a short answer``."""
    caption = Text(style=f"italic {palette.muted}")
    if title:
        caption.append(title, style="bold")
    if alt:
        caption.append((" · " if title else "") + "alt: ")
        caption.append(alt)
    return caption


def parts(
    item: Item,
    palette: Palette,
    *,
    markdown: ReplyMarkdown | None = None,
    rendered: Rendered | None = None,
    lint: str = "",
) -> list[Part]:
    """What draws ``item``.

    Args:
        item: The transcript item.
        palette: The theme's colours.
        markdown: A reply's streamed markdown; None parses it whole from its text.
        rendered: An envelope's drawing (`openwop_tui.present.envelope`); None when not drawn yet.
        lint: The marks of the lint findings about an envelope's event, for its badge.
    """
    if isinstance(item, AssistantTurn):
        return _reply(item, palette, markdown)
    if isinstance(item, EnvelopeItem):
        return _envelope(item, palette, rendered, lint)
    if isinstance(item, UserTurn):
        return [Part(present.user(item, palette))]
    if isinstance(item, Reasoning):
        return [Part(present.reasoning(item, palette))]
    # The client's own lines: wrapped under themselves, so a host value that fills a line to
    # its end cannot put a line of its own at the margin.
    if isinstance(item, ToolCall):
        return [Part(Hanging(present.tool_call(item, palette)))]
    assert isinstance(item, Notice)
    return [Part(Hanging(present.notice(item, palette)))]


def renderable(item: Item, palette: Palette, *, rendered: Rendered | None = None) -> RenderableType:
    """``item`` as one renderable (a sink that prints items whole)."""
    return Group(*(part.renderable for part in parts(item, palette, rendered=rendered)))
