"""One transcript item as lines: what `TranscriptView` draws, caches and searches.

A `Block` holds one item and everything the view keeps about it: its lines at each width it was
drawn at (rendered on first need from `openwop_tui.present.items`, with the active `Palette`), its
height (estimated until drawn), the envelope's `Rendered` once the app drew it, the playback
line under a playing clip, and its plain text for search (computed once).

A streaming reply is drawn by parts: its markdown is split into finished blocks (a blank line
outside a code fence, followed by a line that does not continue the block) whose lines are
cached, and the open tail, drawn again on each update, so a token costs the tail, not the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from openwop_tui import renderers
from openwop_tui.core.fold import (
    AssistantTurn,
    EnvelopeItem,
    Item,
    Notice,
    Reasoning,
    ToolCall,
    UserTurn,
)
from openwop_tui.devices.profile import Colours, downgrade_segments
from openwop_tui.present import items as present
from openwop_tui.present.palette import Palette
from openwop_tui.present.safe_text import safe_text
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered
from openwop_tui.text.sanitize import clean

__all__ = ["FRAGMENT", "Block", "code_blocks", "split_markdown"]

FRAGMENT = "a fragment: the emission is not complete"
"""Said in the title of a streamed envelope drawn before its completing fragment arrived."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_ANYWHERE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1[ \t]*$", re.DOTALL | re.MULTILINE)

#: Labels of the actions drawn as buttons, by action name.
LABELS = {
    "save": "Save",
    "open": "Open",
    "play": "Play",
    "stop": "Stop",
    "copy": "Copy",
    "copy-code": "Copy code",
    "inspect": "Inspect",
}


def code_blocks(markdown: str) -> list[str]:
    """The contents of the fenced code blocks of a reply, in order."""
    return [match.group(2) for match in _CODE.finditer(markdown)]


@dataclass
class Splitter:
    """Finds where a growing markdown text can be cut into finished blocks and an open tail.

    Incremental: each `feed` scans only the complete lines it has not seen. A cut falls before a
    line that follows a blank line outside a code fence and is not indented (an indented line
    after a blank continues a list item or an indented code block).
    """

    finished: list[str] = field(default_factory=list)
    tail: str = ""
    _scanned: int = 0
    """How far into ``tail`` complete lines were scanned."""
    _fence: str = ""
    """The opening fence while inside a fenced code block."""
    _blank: bool = False
    """Whether the last scanned line was blank (outside a fence)."""

    def feed(self, delta: str) -> bool:
        """Add text; ``True`` when a finished block was split off."""
        self.tail += delta
        split = False
        while True:
            end = self.tail.find("\n", self._scanned)
            if end < 0:
                return split
            start = self._scanned
            line = self.tail[start:end]
            self._scanned = end + 1
            if self._fence:
                stripped = line.strip()
                closes = set(stripped) == {self._fence[0]} and len(stripped) >= len(self._fence)
                if closes:
                    self._fence = ""
                continue
            if not line.strip():
                self._blank = True
                continue
            if self._blank and not line[:1].isspace() and start > 0:
                self.finished.append(self.tail[:start])
                self.tail = self.tail[start:]
                self._scanned = end + 1 - start
                split = True
            self._blank = False
            fence = _FENCE.match(line)
            if fence:
                self._fence = fence.group(1)

    @property
    def text(self) -> str:
        """Everything fed (joined: O(length), for checks, not per token)."""
        return "".join(self.finished) + self.tail


def split_markdown(markdown: str) -> tuple[list[str], str]:
    """A whole markdown text as finished blocks and the last one."""
    splitter = Splitter()
    splitter.feed(markdown)
    return splitter.finished, splitter.tail


def render_lines(console: Console, renderable: RenderableType, width: int) -> list[Strip]:
    """A renderable as lines of exactly ``width`` cells."""
    options = console.options.update(width=width, highlight=False)
    lines = console.render_lines(renderable, options, pad=True, new_lines=False)
    return [Strip(line, width) for line in lines]


def blank(width: int) -> Strip:
    return Strip([Segment(" " * width)], width)


def button_text(
    actions: list[str], item_id: str, palette: Palette, labels: Mapping[str, str] | None = None
) -> Text:
    """The item's actions as clickable text: ``[Save] [Copy] [Inspect]``. ``labels`` names a
    renderer's own actions (the app's keep their usual labels)."""
    text = Text()
    for name in actions:
        meta = {"@click": f"item_action({item_id!r}, {name!r})"}
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
    """The item's lines by width (the tail of a streaming reply is not in it)."""
    parts: dict[int, list[list[Strip]]] = field(default_factory=dict)
    """A reply's finished markdown blocks drawn, by width."""
    splitter: Splitter | None = None
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
    resizes: Callable[[str | None], bool] = renderers.redraw_on_resize
    """Whether the renderer for a display value redraws on a width change: the registry's
    answer (the view passes its registry's)."""
    _plain: str | None = None

    # ------------------------------------------------------------------ facts

    @property
    def item_id(self) -> str:
        return self.item.id

    @property
    def verbose(self) -> bool:
        return isinstance(self.item, Notice) and self.item.verbose

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
        self._plain = None
        self.measured = False

    def plain(self) -> str:
        """The item's text for search (lower-cased, computed once per change)."""
        if self._plain is None:
            self._plain = _plain_text(self).lower()
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
        """A cheap guess at the height at ``width`` (corrected once drawn)."""
        width = max(width, 10)
        item = self.item
        if isinstance(item, EnvelopeItem):
            return 8 if item.envelope.display == "image" else 4
        text = _plain_text(self) if not isinstance(item, AssistantTurn) else item.text
        lines = text.count("\n") + 1 + len(text) // width
        if isinstance(item, Notice):
            return lines
        return lines + 2  # heading (or none) and the blank line after

    # ------------------------------------------------------------------ lines

    def feed(self, delta: str) -> None:
        """A streamed delta of a reply (drawn at the view's next coalesced redraw)."""
        if self.splitter is None:
            self.splitter = Splitter()
        self.splitter.feed(delta)
        self._plain = None

    def reset_text(self, text: str) -> None:
        """The reply's whole text (authoritative completion, or a reply never streamed)."""
        self.splitter = Splitter()
        self.splitter.feed(text)
        self.parts.clear()
        self.changed()

    def lines(
        self, console: Console, width: int, palette: Palette, colours: Colours = "truecolor"
    ) -> list[Strip]:
        """The item's lines at ``width`` (content only: the view draws the gutter), in the
        colour system ``colours`` (the lab's profile: every colour brought down to it here, the
        one place items become lines, so nothing drawn escapes it)."""
        cached = self.cache.get(width)
        if cached is not None:
            return cached
        if len(self.cache) >= 2:  # keep the last widths only (resizing back and forth)
            self.cache.pop(next(iter(self.cache)))
        # Cached even while streaming: the view forgets a streaming block's lines on each
        # (coalesced) redraw, and its finished parts stay cached in ``parts``.
        strips = self._draw(console, width, palette)
        if colours != "truecolor":
            strips = [
                Strip(downgrade_segments(strip, colours), strip.cell_length) for strip in strips
            ]
        self.cache[width] = strips
        self.height = len(strips)
        self.measured = True
        return strips

    def _draw(self, console: Console, width: int, palette: Palette) -> list[Strip]:
        item = self.item
        spacer = [blank(width)] if self.spaced else []
        if isinstance(item, AssistantTurn):
            return self._draw_reply(item, console, width, palette) + spacer
        if isinstance(item, EnvelopeItem):
            return self._draw_envelope(item, console, width, palette) + spacer
        renderable: RenderableType
        if isinstance(item, UserTurn):
            renderable = present.user(item, palette)
        elif isinstance(item, Reasoning):
            renderable = present.reasoning(item, palette)
        elif isinstance(item, ToolCall):
            renderable = present.tool_call(item, palette)
        else:
            renderable = present.notice(item, palette)
        return render_lines(console, renderable, width) + spacer

    def _draw_reply(
        self, item: AssistantTurn, console: Console, width: int, palette: Palette
    ) -> list[Strip]:
        if self.splitter is None:
            self.reset_text(item.text)
        splitter = self.splitter
        assert splitter is not None
        strips = render_lines(console, present.assistant_heading(item, palette), width)
        drawn = self.parts.setdefault(width, [])
        for part in splitter.finished[len(drawn) :]:
            drawn.append(render_lines(console, present.reply_part(part.rstrip(), palette), width))
        for part_strips in drawn:
            strips.extend(part_strips)
        if splitter.tail.strip():
            tail = present.reply_part(splitter.tail.rstrip(), palette)
            strips.extend(render_lines(console, tail, width))
        elif not splitter.finished:
            waiting = Padding(Text("…", palette.muted), (0, 0, 0, 2))
            strips.extend(render_lines(console, waiting, width))
        marker = present.reply_marker(item, palette)
        if marker is not None:
            strips.extend(render_lines(console, Padding(marker, (0, 0, 0, 2)), width))
        return strips

    def _draw_envelope(
        self, item: EnvelopeItem, console: Console, width: int, palette: Palette
    ) -> list[Strip]:
        rendered = self.rendered
        if rendered is None:
            envelope = item.envelope
            title = safe_text(f"{envelope.display or 'json'} · {envelope.kind}", palette.accent)
            loading = Text("  loading…", style=f"italic {palette.muted}")
            return render_lines(console, title, width) + render_lines(console, loading, width)
        strips = render_lines(console, present.envelope(rendered, palette, lint=self.lint), width)
        if self.playback:
            # A Text comes from the app's player (`openwop_tui.ui.controllers.playback`), built
            # from clean
            # parts and coloured there; a string is cleaned here.
            line = self.playback
            if not isinstance(line, Text):
                line = Text(clean(line), style=palette.accent)
            strips.extend(render_lines(console, Padding(line, (0, 0, 0, 2)), width))
        labels = {action.name: action.label for action in rendered.actions}
        buttons = button_text(self.actions(), item.id, palette, labels)
        if buttons:
            strips.extend(render_lines(console, Padding(buttons, (0, 0, 0, 2)), width))
        return strips


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
        outcome = item.outcome_json or _json(item.error or item.outcome)
        return f"{item.tool_name} {item.inputs_json or _json(item.inputs)} {outcome}"
    envelope = item.envelope
    parts = [envelope.kind, envelope.display or "json", envelope.text or ""]
    if block.rendered is not None:
        parts.append(block.rendered.title)
    payload = _json(envelope.payload)
    parts.append(payload[:200_000])  # a huge payload is searched in its first 200 kB
    return clean("\n".join(parts))
