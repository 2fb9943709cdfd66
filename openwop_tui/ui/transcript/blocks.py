"""One transcript item as lines: what `TranscriptView` draws, caches and searches.

A `Block` holds one item and everything the view keeps about it: its lines at each width it was
drawn at (rendered on first need from `openwop_tui.present.items`, with the active `Palette`), its
height (estimated until drawn), the envelope's `Rendered` once the app drew it, the playback
line under a playing clip, and its plain text for search (computed once).

What an item looks like is decided once, in `openwop_tui.present.dispatch` (the printer draws
from it too); a block turns its parts into lines. A streaming reply's markdown is split on the
parser's block tokens (`openwop_tui.draw.markdown.ReplyMarkdown`): the lines of its finished
blocks are cached, and only the open block is drawn again on each update, so a token costs that
block, not the reply. The reply's text has one owner, the item: the block reads what was added
since it last drew from the item itself (a change's delta only says that text was added), so
nothing the view was told twice is drawn twice.
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from openwop_tui.core.fold import (
    AssistantTurn,
    EnvelopeItem,
    Interrupt,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)
from openwop_tui.devices.profile import Colours, downgrade_segments
from openwop_tui.draw.palette import Palette
from openwop_tui.present import dispatch
from openwop_tui.present import items as present
from openwop_tui.present.dispatch import Growing, Part
from openwop_tui.present.envelope import FRAGMENT
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import HostText, clean, clean_own

if TYPE_CHECKING:
    from openwop_tui.draw.markdown import ReplyMarkdown
    from openwop_tui.ui.transcript.budget import DrawnLines

__all__ = ["FRAGMENT", "KEPT_WIDTHS", "Block", "code_blocks", "estimate_height", "lay_out"]

_FENCE_ANYWHERE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[ \t]*$", re.DOTALL | re.MULTILINE)

#: Widths a block keeps its lines at (`Block.lines`): the width in use and the one before, so
#: a window resized back (a panel opened and closed again) draws nothing again. Each is a
#: block's lines (one `Strip` a line: its segments, a few hundred bytes), for the blocks that
#: were drawn.
KEPT_WIDTHS = 2

#: Labels of the actions drawn as buttons, by action name.
LABELS = {
    "save": "Save",
    "open": "Open",
    "play": "Play",
    "stop": "Stop",
    "copy": "Copy",
    "copy-code": "Copy code",
    "inspect": "Inspect",
    "edit": "Edit",
    "regenerate": "Regenerate",
}


def code_blocks(markdown: str) -> list[str]:
    """The contents of the fenced code blocks of a reply, in order."""
    return [match.group(2) for match in _CODE.finditer(markdown)]


def render_lines(console: Console, renderable: RenderableType, width: int) -> list[Strip]:
    """A renderable as lines of exactly ``width`` cells."""
    lines = console.render_lines(renderable, _options(console, width), pad=True, new_lines=False)
    return [Strip(line, width) for line in lines]


#: Options to draw at a width, by console and width. `Console.options` asks the terminal for
#: its size on every call (two ioctls and the environment), which was a seventh of a resize's
#: time when every visible block was drawn again. Only the width is used: the transcript's
#: renderables fill the width they are given and take as many lines as they need, so the
#: terminal's height that the options also carry (from the first draw at a width) is not read.
_OPTIONS: weakref.WeakKeyDictionary[Console, dict[int, ConsoleOptions]] = (
    weakref.WeakKeyDictionary()
)


def _options(console: Console, width: int) -> ConsoleOptions:
    widths = _OPTIONS.get(console)
    if widths is None:
        widths = _OPTIONS[console] = {}
    options = widths.get(width)
    if options is None:
        if len(widths) >= 16:  # (the widths a window is resized through)
            widths.clear()
        options = widths[width] = console.options.update(width=width, highlight=False)
    return options


def blank(width: int) -> Strip:
    return Strip([Segment(" " * width)], width)


def button_text(
    actions: list[str], item_id: str, palette: Palette, labels: Mapping[str, str] | None = None
) -> Text:
    """The item's actions as clickable text: ``[Save] [Copy] [Inspect]``.

    Args:
        actions: The names of the actions, in order (`Block.actions`).
        item_id: The item a click acts on (each button runs ``item_action`` on it).
        palette: The theme's styles (brackets muted, labels in the accent).
        labels: Action name → label for a renderer's own actions (cleaned, cut to 40
            characters); the app's keep their usual labels. ``None``: no own labels.
    """
    text = Text()
    for name in actions:
        meta = {"@click": f"item_action({item_id!r}, {name!r})"}
        # A boundary: a renderer's own action labels (perhaps a plugin's) are not trusted.
        label = LABELS.get(name) or clean((labels or {}).get(name) or name)[:40]
        text.append("[", style=palette.muted)
        text.append(label, style=Style.parse(palette.accent) + Style(meta=meta))
        text.append("] ", style=palette.muted)
    return text


@dataclass(eq=False)
class Block:
    """One transcript item in the view."""

    item: Item
    height: int = 1
    """Lines at the view's width: measured once drawn, estimated before."""
    measured: bool = False
    cache: dict[int, list[Strip]] = field(default_factory=dict)
    """The item's lines by width (`KEPT_WIDTHS` of them, the one in use last)."""
    drawing: int = 0
    """Counts the item's drawings (at any width): a screen line composed from its lines notes
    the drawing it came from (`openwop_tui.ui.transcript.composed.ComposedLines`), so it can
    tell it is still current without holding the lines themselves."""
    parts: dict[int, dict[object, list[Strip]]] = field(default_factory=dict)
    """The lines of a reply's finished markdown blocks, by width and part key (only at the
    widths ``cache`` keeps, and the one being drawn: a streaming reply's tail is drawn again
    on each update, its finished blocks not)."""
    grown: _Grown | None = None
    """The lines of the part that grows at its end (a streaming paragraph: `dispatch.Growing`)
    as last drawn, so the next drawing at that width draws only the lines past those it
    keeps."""
    markdown: ReplyMarkdown | None = None
    """A reply's markdown as far as it was drawn (read from the item, which owns the text)."""
    fed: int = 0
    """Characters of the reply's text ``markdown`` holds."""
    replaced: bool = False
    """The reply's text was replaced (not appended to) since it was last drawn."""
    rendered: Rendered | None = None
    drawn: Envelope | None = None
    """The envelope ``rendered`` was drawn from (the item's may since be a later fragment)."""
    drawn_width: int = 0
    requested: tuple[int, Envelope] | None = None
    """The last render the view asked the app for (width, envelope)."""
    stale: bool = False
    """Drawn with an older theme: ask again, keep showing the old drawing meanwhile."""
    playback: str | Text | None = None
    lint: str = ""
    """The lint marks of the envelope's event (``⚠ OW214``), shown in its badge."""
    resizes: Callable[[str | None], bool] = lambda _display: False
    """Whether the renderer for a display value redraws on a width change: the registry's
    answer (the view passes its registry's)."""
    _plain: str | None = None
    _shape: tuple[int, int] | None = None
    """(lines whatever the width, characters to wrap) of the item, for `estimate` (kept until
    it changes: a resize estimates every block again, and an estimate must not draw a tool
    call's line)."""
    _lengths: tuple[int, ...] | None = None
    """The length of each line of the item's text, once drawn (`_rewrapped`)."""
    last_drawn: tuple[int, int] | None = None
    """(width, lines) of the item's last drawing, kept when its lines are dropped
    (`drop_lines`): its height there stays exact, and a resize estimates from it."""
    budget: DrawnLines | None = None
    """The column's count of drawn lines (`openwop_tui.ui.transcript.budget`): told of each
    drawing and each read, it drops the lines of the blocks used longest ago. ``None``: a
    block outside a column keeps its lines."""

    verbose: bool = field(init=False)
    """A verbose notice (a chat view may hide it). Read for every block on each layout after a
    resize, so worked out once: an item's kind and verbosity never change."""

    stop: bool = field(init=False)
    """A place the cursor stops at (↑/↓, Home/End): every item but a line of the client's own
    that says how things went (a lifecycle line, the welcome, "the exchange was replaced"),
    which has nothing to act on; warnings, errors and questions are stops."""

    def __post_init__(self) -> None:
        item = self.item
        self.verbose = isinstance(item, Notice) and item.verbose
        self.stop = (
            not isinstance(item, Notice) or isinstance(item, Interrupt) or item.level != "info"
        )

    # ------------------------------------------------------------------ facts

    @property
    def item_id(self) -> str:
        return self.item.id

    @property
    def spaced(self) -> bool:
        """Whether a blank line follows (every item but notices)."""
        return not isinstance(self.item, Notice)

    def actions(self) -> list[str]:
        """What can be done with the item now (rule E1: nothing with a fragment)."""
        item = self.item
        if isinstance(item, EnvelopeItem):
            if self.rendered is None:
                return []
            return [action.name for action in self.rendered.actions] + ["inspect"]
        if isinstance(item, AssistantTurn):
            return ["copy", "copy-code"] if _FENCE_ANYWHERE.search(item.text) else ["copy"]
        if isinstance(item, UserTurn):
            # Edit and regenerate apply to the last message only (the controller checks).
            return ["copy", "edit", "regenerate"]
        return ["copy"]

    def needs_render(self, width: int) -> bool:
        """Whether the app must draw this envelope (again) for ``width``."""
        if not isinstance(self.item, EnvelopeItem):
            return False
        if self.rendered is None or self.stale or self.drawn is not self.item.envelope:
            return True
        return self.depends_on_width and self.drawn_width != width

    @property
    def depends_on_width(self) -> bool:
        """Drawn for the width it had (an image, scaled to it): the renderer registry says
        which displays are, so a plugin's can be too."""
        item = self.item
        rendered = self.rendered
        return (rendered is not None and rendered.cells is not None) or (
            isinstance(item, EnvelopeItem) and self.resizes(item.envelope.display)
        )

    def changed(self) -> None:
        """The item changed: forget its lines and its search text."""
        self.cache.clear()
        if self.budget is not None:
            self.budget.forget(self)
        self._plain = None
        self._shape = None
        self._lengths = None
        self.last_drawn = None
        self.measured = False

    def drop_lines(self) -> None:
        """Forget the drawn lines (the block was not seen for a while: `DrawnLines`); they
        are drawn again from the item when it is next seen. Its height stays (`last_drawn`),
        so nothing moves; a reply's parsed markdown goes too (parsed again from its text).
        An envelope keeps what the app drew (`rendered`: its actions, its picture), not the
        lines drawn from it."""
        self.cache.clear()
        self.parts.clear()
        self.grown = None
        self.markdown = None
        self.fed = 0

    def plain(self) -> str:
        """The item's text for search, as written (the search folds case itself, unless it is
        told to match it), computed once per change."""
        if self._plain is None:
            self._plain = _plain_text(self)
        return self._plain

    def copy_text(self) -> str:
        """What Copy puts on the clipboard for an item other than an envelope."""
        item = self.item
        if isinstance(item, UserTurn | AssistantTurn | Reasoning | Notice):
            return item.text
        if isinstance(item, ToolCall):
            parts = [item.tool_name, item.inputs_json or _json(item.inputs)]
            parts.append(item.outcome_json or _json(item.error or item.outcome))
            return "\n".join(part for part in parts if part)
        return _plain_text(self)

    def estimate(self, width: int) -> int:
        """A cheap guess at the height at ``width`` (corrected once drawn): `estimate_height`
        (which a resize calls for every block)."""
        return estimate_height(self, max(width, 10))

    def _rewrapped(self, drawn: int, width: int) -> int:
        """Lines more (or fewer) the item's text wraps into at ``width`` than at ``drawn``:
        line by line (only drawn blocks are asked, a few hundred however long the session)."""
        lengths = self._lengths
        if lengths is None:
            text = self._estimated_text()
            lengths = self._lengths = tuple(len(line) for line in text.split("\n"))
        drawn = max(drawn, 10)
        return sum(length // width - length // drawn for length in lengths if length >= 10)

    def _estimated_text(self) -> str:
        item = self.item
        if isinstance(item, EnvelopeItem):
            return ""
        return _plain_text(self) if not isinstance(item, AssistantTurn) else item.text

    def _measure(self) -> tuple[int, int]:
        """(lines whatever the width, characters to wrap) for `estimate`."""
        item = self.item
        if isinstance(item, EnvelopeItem):
            return (8 if item.envelope.display == "image" else 4), 0
        text = self._estimated_text()
        lines = text.count("\n") + 1
        if isinstance(item, Notice):
            return lines, len(text)
        return lines + 2, len(text)  # heading (or none) and the blank line after

    # ------------------------------------------------------------------ lines

    def appended(self) -> None:
        """The reply's text grew (drawn at the view's next coalesced redraw)."""
        self._plain = None
        self._shape = None
        self._lengths = None
        self.last_drawn = None

    def replace_text(self) -> None:
        """The reply's whole text was replaced (an authoritative completion)."""
        self.replaced = True
        self.changed()

    def reply_markdown(self, item: AssistantTurn) -> ReplyMarkdown:
        """The reply's markdown brought up to the item's text: what was added since the last
        draw is fed; a replaced text that does not begin with what was fed is parsed again,
        whole, once."""
        text = item.text
        markdown = self.markdown
        # (A reply's end replaces its text with the same text, often grown since the last
        # redraw: parsing it again whole drew every block of a long reply again at its end,
        # 0.6 s for a 600-line code block, the keys waiting.)
        if markdown is not None and self.replaced and not text.startswith(markdown.text):
            markdown = None
        self.replaced = False
        if markdown is None:
            # (Here, not at the top: the parser and Rich's markdown load with the first reply
            # drawn, past the app's first frame.)
            from openwop_tui.draw.markdown import ReplyMarkdown

            markdown = self.markdown = ReplyMarkdown()
            self.fed = 0
            self.parts.clear()
        if len(text) > self.fed:
            markdown.feed(HostText(text[self.fed :]))  # a cut of the reply's cleaned text
            self.fed = len(text)
        if item.final:
            markdown.finish()
        return markdown

    def drawn_at(self, width: int) -> bool:
        """Whether the item's lines at ``width`` are drawn (and its height is theirs): the view
        asks of every block it shows or draws ahead, which makes ``width`` the one kept
        longest, as `lines` does."""
        cache = self.cache
        lines = cache.get(width)
        if lines is None or not self.measured:
            return False
        if len(cache) > 1 and next(reversed(cache)) != width:
            cache[width] = cache.pop(width)
        return True

    def lines(
        self, console: Console, width: int, palette: Palette, colours: Colours = "truecolor"
    ) -> list[Strip]:
        """The item's lines, cached by width (`KEPT_WIDTHS` kept, the least recently drawn
        or painted forgotten first: resized back to a width it has, a block is not drawn again).

        Args:
            console: The app's console, which renders the item's parts.
            width: Columns to draw in (content only: the view draws the gutter).
            palette: The theme's styles.
            colours: The colour system to draw in (the lab's profile: every colour brought
                down to it here, the one place items become lines, so nothing drawn escapes it).
        """
        cache = self.cache
        cached = cache.get(width)
        if cached is not None:
            if len(cache) > 1 and next(reversed(cache)) != width:
                cache[width] = cache.pop(width)  # the width in use now is kept longest
            if self.budget is not None:
                self.budget.used(self)
            return cached
        if len(cache) >= KEPT_WIDTHS:
            cache.pop(next(iter(cache)))
        # Cached even while streaming: the view forgets a streaming block's lines on each
        # (coalesced) redraw, and its finished parts stay cached in ``parts``.
        strips = self._draw(console, width, palette)
        if colours != "truecolor":
            strips = [
                Strip(downgrade_segments(strip, colours), strip.cell_length) for strip in strips
            ]
        self.cache[width] = strips
        self.drawing += 1
        self.height = len(strips)
        self.measured = True
        self.last_drawn = (width, len(strips))
        if self.budget is not None:
            self.budget.drawn(self, sum(map(len, self.cache.values())))
        return strips

    def _draw(self, console: Console, width: int, palette: Palette) -> list[Strip]:
        item = self.item
        markdown = self.reply_markdown(item) if isinstance(item, AssistantTurn) else None
        drawn = dispatch.parts(
            item, palette, markdown=markdown, rendered=self.rendered, lint=self.lint
        )
        cached = self.parts.get(width, {})
        kept: dict[object, list[Strip]] = {}
        strips: list[Strip] = []
        for part in drawn:
            if part.key is None:
                strips.extend(render_lines(console, part.renderable, width))
                continue
            lines = cached.get(part.key)
            if lines is None:
                lines = self._part_lines(console, part, width, palette)
            kept[part.key] = lines
            strips.extend(lines)
        if kept:
            self.parts[width] = kept
        for other in [other for other in self.parts if other != width and other not in self.cache]:
            # (A finished part's lines at a width the block no longer keeps lines for: a
            # window resized through many widths would otherwise keep a copy at each.)
            del self.parts[other]
        if isinstance(item, EnvelopeItem) and self.rendered is not None:
            strips.extend(self._envelope_extras(item, console, width, palette, self.rendered))
        return strips + ([blank(width)] if self.spaced else [])

    def _part_lines(
        self, console: Console, part: Part, width: int, palette: Palette
    ) -> list[Strip]:
        """The lines of a part: of one that grows at its end, only those past the ones its
        drawing keeps are drawn, the rest are this block's from the drawing before (`Growing`).

        Args:
            console: The app's console.
            part: The part (a streaming paragraph's block), with what draws it (``growing``:
                it says how many of its lines it did not draw again).
            width: Columns to draw in.
            palette: The theme's styles (lines held from another theme are not used).
        """
        growing = part.growing
        if growing is None:  # (a part that does not grow: drawn whole)
            return render_lines(console, part.renderable, width)
        held = self.grown
        if held is not None and (
            held.growing is not growing or held.width != width or held.palette is not palette
        ):
            # (Another part's lines, or this one's at another width, or in another theme: the
            # paragraph's drawing may keep its lines, which a theme's text colour does not
            # reach, but the block's have the colour in them.)
            held = None
        growing.hold(held.drawing if held is not None else None)
        try:
            lines = render_lines(console, part.renderable, width)
        finally:
            growing.hold(None)
        lead = len(lines) - growing.yielded  # (a blank line above the block, or none)
        if growing.skipped:
            if held is not None and held.lead == lead:
                lines = held.lines[: lead + growing.skipped] + lines[lead:]
            else:  # (lines above the part's own not as held: drawn again, none skipped)
                lines = render_lines(console, part.renderable, width)
                lead = len(lines) - growing.yielded
        self.grown = _Grown(growing, width, palette, growing.drawings, lead, lines)
        return lines

    def _envelope_extras(
        self, item: EnvelopeItem, console: Console, width: int, palette: Palette, rendered: Rendered
    ) -> list[Strip]:
        """What only the app draws under an envelope: the playback line and the buttons.

        Args:
            item: The envelope item this block shows.
            console: The app's console, which renders the lines.
            width: Columns to draw in (content only).
            palette: The theme's styles.
            rendered: What the app drew for the envelope (its actions' labels name buttons).
        """
        strips: list[Strip] = []
        if self.playback:
            # A Text comes from the app's player (`openwop_tui.ui.controllers.playback`), built
            # from clean parts and coloured there; a string (the player's own words) is cleaned
            # here.
            line = self.playback
            if not isinstance(line, Text):
                line = Text(clean_own(line), style=palette.accent)
            strips.extend(render_lines(console, Padding(line, (0, 0, 0, 2)), width))
        labels = {action.name: action.label for action in rendered.actions}
        buttons = button_text(self.actions(), item.id, palette, labels)
        if buttons:
            strips.extend(render_lines(console, Padding(buttons, (0, 0, 0, 2)), width))
        return strips


@dataclass(frozen=True, slots=True)
class _Grown:
    """A growing part's lines as drawn last (`Block.grown`)."""

    growing: Growing
    width: int
    palette: Palette
    drawing: int
    """The number of the drawing they are (`Growing.drawings` after it)."""
    lead: int
    """Lines above the part's own (a blank line between blocks)."""
    lines: list[Strip]


def _json(value: object) -> str:
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        return str(value)


def _plain_text(block: Block) -> str:
    """Everything an item says, as text: what search looks in."""
    item = block.item
    if isinstance(item, UserTurn | AssistantTurn | Reasoning | Notice):
        return item.text
    if isinstance(item, ToolCall):
        # What the line shows (inputs and outcome in words), so search finds what is on screen.
        return present.tool_call(item).plain
    envelope = item.envelope
    parts = [envelope.kind, envelope.display or "json", envelope.text or ""]
    if block.rendered is not None:
        parts.append(block.rendered.title)
    payload = envelope.payload
    if envelope.media is not None and envelope.media.base64 and isinstance(payload, Mapping):
        # Inline bytes are no words: a search for "abc" must not match a picture's base64.
        payload = {key: value for key, value in payload.items() if key != "base64"}
    parts.append(_json(payload)[:200_000])  # a huge payload is searched in its first 200 kB
    # A boundary: the title is a renderer's text (perhaps a plugin's), not the boundary's.
    return clean("\n".join(parts))


def estimate_height(block: Block, columns: int) -> int:
    """`Block.estimate` at ``columns`` (at least 10), as a plain function: a resize calls it
    for tens of thousands of blocks, and a method's lookup and bound call for each was a
    third of the time of that loop. What does not depend on the width is worked out once per
    change (`Block._shape`)."""
    shape = block._shape
    if shape is None:
        shape = block._shape = block._measure()
    if block.cache:
        # Drawn at another width: its lines there, the wrapping of its text adjusted.
        # Structure (a list, a code block, a heading) does not change with the width, so
        # this is often exact, and the page drawn ahead after a resize corrects no height
        # (which would move the scroll bar again a frame later).
        drawn = next(reversed(block.cache))
        return max(1, len(block.cache[drawn]) + block._rewrapped(drawn, columns))
    if block.last_drawn is not None:
        # Drawn once, its lines dropped since (`Block.drop_lines`): the same, from its count.
        drawn, count = block.last_drawn
        return max(1, count + block._rewrapped(drawn, columns))
    return shape[0] + shape[1] // columns


def lay_out(blocks: Iterable[Block], width: int, every: bool) -> list[int]:
    """Give every block its height at ``width`` (its lines there if it was drawn at it, else
    an estimate), and the first line of each, the total last: what a resize does for every
    block of the session, tens of thousands of them.

    ``every``: lifecycle lines are shown (else they take no room, and are not measured: they
    are given their height when shown). Kept to the bare steps, `estimate_height` inlined for
    a block never drawn (most of them): the function calls were half of this loop's time.
    """
    columns = max(width, 10)
    tops = [0]
    top = 0
    append = tops.append
    for block in blocks:
        if every or not block.verbose:
            if block.cache:
                cached = block.cache.get(width)
                if cached is None:
                    height = estimate_height(block, columns)
                    block.measured = False
                else:
                    height = len(cached)
            elif block.last_drawn is not None:
                # Drawn once, its lines dropped since (the budget): from their count.
                height = estimate_height(block, columns)
                block.measured = False
            else:
                # No lines at any width: `estimate_height`'s last line.
                shape = block._shape
                if shape is None:
                    shape = block._shape = block._measure()
                height = shape[0] + shape[1] // columns
                block.measured = False
            block.height = height
            top += height
        append(top)
    return tops
