"""A streaming paragraph wrapped again from its last lines, not from its first.

Rich draws a paragraph by wrapping its whole text (``Text.wrap``) and rendering every line, at
every drawing. A reply whose open block is one long paragraph (a host that streams a long text
without blank lines, a log whose lines markdown joins with soft breaks, a flood's words) was
wrapped and rendered whole at each redraw: 10 ms at 26 KB, 340 ms at 540 KB of plain words,
three times that with inline markup, the event loop held and the next redraw spaced further.

`OpenParagraph` is kept by a reply's markdown from one parse of its open paragraph to the next
(`openwop_tui.draw.markdown.MarkdownBlock.paragraph`), and draws it
(`openwop_tui.draw.rich_markdown.BlockMarkdown`). The paragraph's text is still built by Rich
from the tokens of each parse, so the text decides: it is compared with the text drawn last at
the same width (its characters, and its styles up to where the characters differ), the lines
that the change cannot reach are kept as they were rendered, and only the rest is wrapped and
rendered again.

Which lines a change cannot reach follows from Rich's wrap (``rich._wrap.divide_line``): it is
greedy, one word (``\\s*\\S+\\s*``) at a time, and a line begun by a word carries nothing from
the line above: the lines from such a start on are the wrap of the text from there. The break
before that word was taken because the word (its visible part) did not fit on the line above;
that holds while the text is the same up to the whitespace ending the word. So the text is
wrapped again from the last line that begins a word (or follows a hard break) and whose first
word ends before the first difference, and the lines above it are kept. A line begun inside a
word folded across lines is never a place to start again. Justified other than left, tabs (Rich
expands them, moving offsets) or no wrapping: drawn by Rich whole, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rich._wrap import divide_line
from rich.console import Console, ConsoleOptions
from rich.containers import Lines
from rich.segment import Segment
from rich.text import Span, Text

__all__ = ["OpenParagraph"]

#: The justifications whose lines do not depend on one another (Rich's "full" spreads every
#: line but the last, so a paragraph's last line changes how the one above it is drawn).
_LINEWISE = frozenset({"default", "left"})
#: The visible part of the word a line begins with.
_WORD = re.compile(r"\S+")


@dataclass(slots=True)
class _Drawn:
    """A paragraph's text as last drawn at one width, and its lines."""

    key: tuple[object, ...]
    """What else decides the drawing: the width, justification, overflow, text style, end."""
    plain: str
    spans: list[Span]
    starts: list[int]
    """Where each line begins in ``plain``."""
    fresh: list[bool]
    """Whether each line begins a word (or follows a hard break): the wrap may start there."""
    styled: list[bool]
    """Whether each line has styles (Rich renders a text with none as one plain segment)."""
    lines: list[list[Segment]]
    """Each line as rendered (its segments, no newline)."""


class OpenParagraph:
    """The drawing of one streaming paragraph, kept from one parse of it to the next (see the
    module docstring). Only the width drawn last is kept: a resize wraps it whole once."""

    def __init__(self) -> None:
        self._drawn: _Drawn | None = None
        self._closing = False
        self.drawings = 0
        """How many times it was drawn (a view names the drawing whose lines it holds)."""
        self.skipped = 0
        """Lines its last drawing did not yield: those kept of a drawing the caller holds
        (`hold`), which it draws above the ones yielded."""
        self.yielded = 0
        """Lines its last drawing yielded."""
        self._held: int | None = None
        self.built: object | None = None
        """What the markdown drawing it keeps of the text it built from the paragraph's settled
        tokens (`openwop_tui.draw.rich_markdown`), from one parse to the next."""

    def close(self) -> None:
        """The paragraph is finished: it is drawn once more from what is kept (its last
        words), then keeps nothing (a view caches a finished block's lines itself; its text
        is the block's tokens')."""
        self._closing = True

    def hold(self, drawing: int | None) -> None:
        """The caller holds the lines of drawing number ``drawing`` (``drawings`` after it),
        as drawn at the width of its next drawing: that drawing, if it is the next, yields
        only the lines past those it keeps (how many: `skipped`). ``None``: it holds none
        (a caller says so once its drawing is done)."""
        self._held = drawing

    def _again(self, text: Text, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """Draw ``text`` whole (nothing kept is used), keeping its lines for the next time."""
        self._drawn = None
        yield from self.render(text, console, options)

    def render(self, text: Text, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """What Rich's ``Text.__rich_console__`` yields for ``text``, from the lines kept where
        the text drawn last is the same."""
        justify = text.justify or options.justify or "default"
        overflow = text.overflow or options.overflow or "fold"
        no_wrap = text.no_wrap if text.no_wrap is not None else options.no_wrap
        plain = text.plain
        held, self._held = self._held, None
        if no_wrap or justify not in _LINEWISE or overflow == "ignore" or "\t" in plain:
            yield from self._by_rich(text, console, options)
            return
        width = options.max_width
        key = (width, justify, overflow, text.style, text.end)
        spans = list(text.spans)
        drawn = self._drawn if self._drawn is not None and self._drawn.key == key else None
        keep = _kept(drawn, plain, spans) if drawn is not None else 0
        base = drawn if keep else None  # (whose first `keep` lines stay; None: none do)
        start = base.starts[keep] if base is not None else 0
        tail = text if not start else _after(text, plain, spans, start)
        made = _wrap(tail, console, width, justify, overflow)
        if made is None:  # (a split Rich did not make line for line: drawn whole by Rich)
            yield from self._by_rich(text, console, options)
            return
        lines, starts, fresh = made
        styled = [bool(line.spans or line.style) for line in lines]
        if base is not None:
            starts = base.starts[:keep] + [start + at for at in starts]
            fresh = base.fresh[:keep] + fresh  # (line `keep` begins a word: chosen so)
            styled = base.styled[:keep] + styled
        # Rich renders the lines joined: all of them plain (no styles anywhere: one unstyled
        # segment) or all styled (a segment per style, unstyled text in the null style). The
        # lines kept were rendered one way; drawn the other way now, all are rendered again.
        joined = Text("\n").join(lines)
        if base is not None and any(styled) != any(base.styled):
            return (yield from self._again(text, console, options))
        if any(styled) and not joined.spans:
            joined.spans = [Span(0, 0, "")]  # (rendered as styled: the kept lines are)
        rendered = [*Segment.split_lines(joined.render(console, end=""))]
        rendered += [[] for _ in range(len(lines) - len(rendered))]  # (an empty last line)
        if base is not None:
            rendered = base.lines[:keep] + rendered
        self._drawn = (
            None if self._closing else _Drawn(key, plain, spans, starts, fresh, styled, rendered)
        )
        if self._closing:
            self.built = None
        # The lines the caller holds from the drawing before, as they are kept, are not
        # yielded again.
        skip = keep if held is not None and held == self.drawings else 0
        self.drawings += 1
        self.skipped, self.yielded = skip, len(rendered) - skip
        newline = Segment.line()
        for index in range(skip, len(rendered)):
            if index > skip:
                yield newline
            yield from rendered[index]
        if text.end:
            yield Segment(text.end)

    def _by_rich(self, text: Text, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        """``text`` drawn by Rich whole, nothing kept (no line of it held or skipped)."""
        self._drawn = None
        if self._closing:
            self.built = None
        self.drawings += 1
        self.skipped = 0
        lines = list(Segment.split_lines(text.__rich_console__(console, options)))
        self.yielded = len(lines)
        for index, line in enumerate(lines):
            if index:
                yield Segment.line()
            yield from line
        if text.end:
            yield Segment(text.end)


def _kept(drawn: _Drawn, plain: str, spans: list[Span]) -> int:
    """How many of ``drawn`` 's lines are the same for the text now: the line the wrap starts
    again at (a line index, 0 for all of it)."""
    differs = _first_difference(drawn.plain, plain)
    differs = _styled_alike(drawn.spans, spans, differs)
    old = drawn.plain
    starts, fresh = drawn.starts, drawn.fresh
    # The line holding the first difference, and up from it to one the wrap may start at.
    line = len(starts) - 1
    while line > 0 and starts[line] > differs:
        line -= 1
    while line > 0:
        at = starts[line]
        if fresh[line]:
            if old[at - 1] == "\n":
                return line
            word = _WORD.match(old, at)
            if word is not None and word.end() < differs:
                return line
        line -= 1
    return 0


def _first_difference(before: str, now: str) -> int:
    """The length of the longest common beginning of two texts (a text that grew at its end:
    one comparison; otherwise halved until found, each comparison a C one)."""
    if now.startswith(before):
        return len(before)
    low, high = 0, min(len(before), len(now))
    while low < high:
        middle = (low + high + 1) // 2
        if before[:middle] == now[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _styled_alike(before: list[Span], now: list[Span], differs: int) -> int:
    """Where the styles first differ, at ``differs`` at the latest: spans are compared cut at
    that point (a span still growing with the text it styles is the same span up to there),
    and a span found only in one moves the point back to where it begins."""
    while True:
        old = [_cut(span, differs) for span in before if span.start < differs]
        new = [_cut(span, differs) for span in now if span.start < differs]
        if old == new:
            return differs
        index = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
        if index is None:
            index = min(len(old), len(new))
        firsts = [spans[index].start for spans in (old, new) if index < len(spans)]
        differs = min(firsts)


def _cut(span: Span, end: int) -> Span:
    return span if span.end <= end else Span(span.start, end, span.style)


def _after(text: Text, plain: str, spans: list[Span], start: int) -> Text:
    """``text`` from ``start`` on, its spans moved with it (what ``text[start:]`` makes,
    without dividing the whole text to make it).

    Args:
        text: The paragraph's text.
        plain: Its characters (``text.plain``, joined once by the caller).
        spans: Its spans.
        start: Where the part returned begins.
    """
    tail = text.blank_copy(plain[start:])
    tail.spans = [
        Span(max(span.start, start) - start, span.end - start, span.style)
        for span in spans
        if span.end > start
    ]
    return tail


def _wrap(
    text: Text, console: Console, width: int, justify: str, overflow: str
) -> tuple[Lines, list[int], list[bool]] | None:
    """``Text.wrap`` of ``text`` (no tabs, wrapping on), with where each line begins and
    whether it begins a word; ``None`` if Rich's split was not one line per hard break.

    Args:
        text: What is wrapped.
        console: The console it is drawn on (justification measures with it).
        width: Cells a line holds.
        justify: Rich's justification ("left" or "default").
        overflow: Rich's overflow: "fold" folds a word longer than a line across lines.
    """
    plain = text.plain
    pieces = text.split(allow_blank=True)
    if len(pieces) != plain.count("\n") + 1:
        return None
    lines = Lines()
    starts: list[int] = []
    fresh: list[bool] = []
    offset = 0
    for piece in pieces:
        breaks = divide_line(piece.plain, width, fold=overflow == "fold")
        divided = piece.divide(breaks)
        if len(divided) != len(breaks) + 1:
            return None
        for line in divided:
            line.rstrip_end(width)
        divided.justify(console, width, justify=justify, overflow=overflow)  # type: ignore[arg-type]
        for line in divided:
            line.truncate(width, overflow=overflow)  # type: ignore[arg-type]
        lines.extend(divided)
        starts.append(offset)
        fresh.append(True)
        for at in breaks:
            starts.append(offset + at)
            fresh.append(plain[offset + at - 1].isspace() and not plain[offset + at].isspace())
        offset += len(piece.plain) + 1
    return lines, starts, fresh
