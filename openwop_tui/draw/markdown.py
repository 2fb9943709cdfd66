"""A reply's markdown as blocks, split on the parser's own block tokens, for every sink.

Rich's ``Markdown`` parses a whole text and draws its top-level blocks one after the other, a
blank line after each (but a rule). `ReplyMarkdown` does the same parse (Rich's parser, the same
configuration, tokens cleaned after parsing as `openwop_tui.draw.rich_markdown.SafeMarkdown`
does) and keeps the result as `MarkdownBlock` s, so a view can cache each finished block's lines
and draw only the open one again (`openwop_tui.draw.rich_markdown.BlockMarkdown`); `render` and
the app then draw one reply the same way, construct by construct, because they draw the very
same tokens.

Streaming follows Textual's ``Markdown.append``: every top-level block but the last is finished
(appending text cannot change it: markdown-it's block structure at a top-level boundary does not
depend on what follows), and only the last, open block is parsed again as text arrives. Except
while the last block begins on the text's unfinished last line, which may still join the block
above (``- a`` then ``#`` are a list and a heading, ``#foo`` a lazy line of its item; ``1`` under
a list and a blank line is a paragraph, ``1.`` the list's next item): then both stay open
(`_settled`). A long list's items are finished the same way, each once the next one has begun
on a whole line (`openwop_tui.draw.list_pieces`). A paragraph is never finished before its end
(a ``===`` under it makes the whole of it a heading), so an open one's blocks are parsed whole
at each update, but its inline parse goes on from the last space nothing was open at
(`openwop_tui.draw.open_inline`); its drawing is handed from one parse to the next, and wraps
the text again from its last lines only (`openwop_tui.draw.open_paragraph`).

The one thing later text changes in an earlier block is a reference: ``[the docs][1]`` is a
link once ``[1]: https://…`` is defined anywhere in the reply, before or after. Definitions are
collected in document order (the first of a label wins, as in a whole parse); a finished block
that could use one (it has a ``]``) is parsed again when the set of definitions changes, so
every intermediate state is what a whole parse of the text so far gives.

A block's code is highlighted once (`openwop_tui.draw.rich_markdown.KeptCodeBlock`, into
`MarkdownBlock.highlighted`): drawn at another width, it is wrapped again, and Pygments is not
asked again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.markdown import Markdown, UnknownElement

from openwop_tui.draw import list_pieces
from openwop_tui.draw.code_pieces import CHECK_LINES, CodePieces, code_of
from openwop_tui.draw.list_pieces import LIST_OPENS
from openwop_tui.draw.markdown_images import images_as_links
from openwop_tui.draw.open_inline import KEY as OPEN_INLINE
from openwop_tui.draw.open_inline import OpenInline, finish_parsed
from openwop_tui.draw.open_inline import install as resume_open_inline
from openwop_tui.draw.open_paragraph import OpenParagraph
from openwop_tui.draw.rich_markdown import Highlights
from openwop_tui.text.markdown import clean_tokens
from openwop_tui.text.sanitize import HostText

__all__ = ["MarkdownBlock", "ReplyMarkdown", "parser"]

References = dict[str, dict[str, Any]]
#: A text's top-level blocks: (first line, the line after it, its tokens) each.
Parts = list[tuple[int, int, list[Token]]]


def parser() -> MarkdownIt:
    """The parser Rich's ``Markdown`` builds for itself (CommonMark, strikethrough, tables)."""
    return MarkdownIt().enable("strikethrough").enable("table")


def _host_text_parser() -> MarkdownIt:
    """`parser` without markdown-it's first rule, ``normalize``, which rewrites ``\\r\\n``,
    ``\\r`` and NUL across the whole source at every parse (two regex passes: 4 ms for a 540 KB
    open paragraph, parsed again at each update). What a reply's markdown parses is host text
    cleaned where it entered (`openwop_tui.text.sanitize.clean` leaves none of the three), so
    the rule never changes a character of it. Its inline rule resumes a streaming paragraph's
    parse (`openwop_tui.draw.open_inline`) when a parse's ``env`` asks it to."""
    made = parser()
    made.core.ruler.disable("normalize")
    resume_open_inline(made)
    return made


_SHARED_PARSER = _host_text_parser()


@dataclass(eq=False)
class MarkdownBlock:
    """One top-level block of a reply: its tokens (cleaned), and what decides its drawing."""

    tokens: list[Token]
    source: str
    """Its source lines (to the next block), for deciding whether a new definition matters."""
    version: int
    """The definitions version it was parsed with (`ReplyMarkdown.version`)."""
    gap_after: bool
    """Whether Rich puts a blank line after it (every block but a horizontal rule)."""
    highlighted: Highlights = field(default_factory=dict)
    """Its code as Pygments highlighted it, by code, lexer and theme (`KeptCodeBlock`): a block
    drawn at another width is wrapped again, not highlighted again."""
    paragraph: OpenParagraph | None = None
    """The drawing of a streaming paragraph, kept from one parse of it to the next
    (`openwop_tui.draw.open_paragraph`); ``None`` for any other block."""
    settled: int = 0
    """How many of a streaming paragraph's first inline tokens are settled
    (`openwop_tui.draw.open_inline.OpenInline.settled`): the same objects in each parse that
    goes on from this one, which its drawing builds text from once."""

    @property
    def piece(self) -> bool:
        """Whether it is a piece of a long code block (`openwop_tui.draw.code_pieces`): made
        from the block's tokens (its fence token holds the piece), not parsed from its source."""
        meta = self.tokens[0].meta if self.tokens else None
        return meta is not None and "piece" in meta


def _gap_after(token: Token) -> bool:
    element = Markdown.elements.get(token.type) or UnknownElement
    return bool(element.new_line)


def _top_level(tokens: list[Token]) -> Iterator[tuple[int, int, list[Token]]]:
    """(first line, line after it, tokens) of each top-level block."""
    start = 0
    for index, token in enumerate(tokens):
        if token.level != 0 or token.nesting == 1:
            continue
        # A closing token (nesting -1) or a self-closing one (a fence, an hr) at level 0.
        first = tokens[start]
        assert first.map is not None
        yield first.map[0], first.map[1], tokens[start : index + 1]
        start = index + 1


@dataclass
class ReplyMarkdown:
    """A reply's markdown as finished blocks and the open last one, fed as it streams."""

    finished: list[MarkdownBlock] = field(default_factory=list)
    open: list[MarkdownBlock] = field(default_factory=list)
    """The last block (and any block parsed with it that is not known finished yet)."""
    version: int = 0
    """Bumped whenever the definitions in force change: blocks parsed before may read
    differently now."""
    complete: bool = False
    """The reply is whole (`finish`): its last block is finished too."""
    _done: list[str] = field(default_factory=list)
    """The source of the finished blocks, in parts (joined only for `text`)."""
    _tail: str = ""
    """The source from the open block's first line on."""
    _done_chars: int = 0
    """Characters of source in `_done` (where `_tail` begins in the reply)."""
    _code: CodePieces[MarkdownBlock] | None = None
    """The pieces of the code block parsed last (`openwop_tui.draw.code_pieces`): a long one
    still streaming is drawn from its settled pieces and its last lines."""
    _checks: list[CodePieces[MarkdownBlock]] = field(default_factory=list)
    """Finished long code blocks whose pieces are still being checked against their whole
    lexing (`openwop_tui.draw.code_pieces.CodePieces.check`), a step at each update."""
    _list: list_pieces.OpenList | None = None
    """The long list the open text goes on (`openwop_tui.draw.list_pieces`): its settled items
    are finished blocks, and the open text begins with its last item."""
    _paragraph: tuple[int, OpenParagraph] | None = None
    """The streaming paragraph the open text ends with: where it begins in the reply, and its
    drawing (`openwop_tui.draw.open_paragraph`), handed from one parse of it to the next."""
    _inline: OpenInline | None = None
    """The settled part of the open text's last inline text (a streaming paragraph's) and its
    tokens, kept from one parse to the next (`openwop_tui.draw.open_inline`)."""
    _refs: References = field(default_factory=dict)
    """Definitions in the finished part, in document order."""
    _in_force: References = field(default_factory=dict)
    """Every definition known, the open part's too (what the blocks are parsed with)."""
    _changes: list[frozenset[str]] = field(default_factory=list)
    """The labels each version changed (version ``n`` is after ``_changes[n - 1]``)."""
    _dirty: bool = False
    _parser: MarkdownIt = field(default_factory=lambda: _SHARED_PARSER)
    """The parser (one for every reply: it keeps nothing between parses, what a parse needs
    travels in its ``env``, and making one costs more than parsing a short reply)."""

    @classmethod
    def whole(cls, text: HostText) -> ReplyMarkdown:
        """A complete text, parsed once."""
        reply = cls()
        reply.feed(text)
        reply.finish()
        reply.update()
        return reply

    @property
    def text(self) -> str:
        """Everything fed (joined: O(length), for checks, not per token)."""
        return "".join(self._done) + self._tail

    def feed(self, delta: HostText) -> None:
        """Append streamed text (parsed at the next `update`): a reply's, cleaned where it
        entered, so only the parsed tokens are cleaned again (character references)."""
        if delta:
            self._tail += delta
            self._dirty = True
            if self.complete:  # (more after the end: the last block is open again)
                self.complete = False
                self._code = None

    def finish(self) -> None:
        """The reply is whole: its last block is finished at the next `update` (a long code
        block's pieces all settle, and the checks of its finished code blocks are completed,
        `openwop_tui.draw.code_pieces`)."""
        if not self.complete:
            self.complete = True
            self._dirty = True

    def blocks(self) -> list[MarkdownBlock]:
        """Every block, in order, up to date with what was fed."""
        self.update()
        return [*self.finished, *self.open]

    def update(self) -> None:
        """Parse the open part again: split off the blocks it finished (and the settled items
        of a long list), re-parse finished blocks a changed definition may affect."""
        if not self._dirty:
            return
        self._dirty = False
        env: dict[str, Any] = {"references": dict(self._refs)}
        if self.complete:
            self._inline = None  # (its last parse: nothing to resume)
        else:
            self._inline = self._inline or OpenInline()
            env[OPEN_INLINE] = self._inline
        source = self._tail  # only `HostText` is fed
        tokens = self._parser.parse(source, env)
        finish_parsed(tokens, self._inline)
        # markdown-it counts lines by "\n" alone (`clean` left no other line break).
        lines = source.split("\n")
        lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
        parts = list(_top_level(tokens))
        in_force: References = env["references"]
        changed = _changed(self._in_force, in_force)
        if changed:
            self._in_force = dict(in_force)
            self._changes.append(changed)
            self.version += 1
        settle = _settled(parts, lines)
        # The open blocks start after the last finished one ends: definitions between them stay
        # open too (a title on the line after a definition is still part of it).
        cut = parts[settle - 1][1] if settle else 0
        blocks = self._blocks(parts, lines, settle, cut)
        self._keep_paragraph(parts, blocks)
        if self._list is not None:
            self._list_goes_on(parts, blocks, settle)
        self.finished.extend(block for part in blocks[:settle] for block in part)
        if settle < len(parts) and parts[settle][2][0].type in LIST_OPENS:
            cut = self._settle_items(parts[settle][2], blocks, settle, lines, cut)
        # Definitions above the new open block are finished, in the order they came.
        for label, ref in in_force.items():
            where = ref.get("map")
            if label not in self._refs and where is not None and where[1] <= cut:
                self._refs[label] = ref
        self.open = [block for part in blocks[settle:] for block in part]
        self._check()
        if cut:
            # The raw text is kept (cleaning is done on every parse, so a "\r" at the end of
            # one chunk still pairs with the "\n" of the next); clean keeps every "\n".
            offset = _after_newlines(self._tail, cut)
            self._done.append(self._tail[:offset])
            self._done_chars += offset
            self._tail = self._tail[offset:]
        self._refresh()

    def _blocks(
        self, parts: Parts, lines: list[str], settle: int, cut: int
    ) -> list[list[MarkdownBlock]]:
        """Each part's blocks: one, or a long code block's pieces.

        Args:
            parts: The text's top-level blocks, as parsed now.
            lines: The text's lines.
            settle: How many of the parts are finished (`_settled`).
            cut: The line the open text begins at (where the last finished part ends).
        """
        blocks = []
        for index, (first, end, tokens) in enumerate(parts):
            if len(tokens) == 1 and tokens[0].type == "fence":
                final = self.complete or index + 1 < len(parts)
                pieces = self._pieces(tokens[0], final=final)
                if pieces is not None:
                    blocks.append(pieces)
                    continue
            # Its source runs to where the next begins (the last finished one's to its own
            # end: what follows it is the open part's).
            start = 0 if index == 0 else cut if index == settle else first
            if index + 1 == settle:
                end = cut
            elif index + 1 < len(parts):
                end = parts[index + 1][0]
            else:
                end = len(lines)
            source = "".join(lines[start:end])
            blocks.append([MarkdownBlock(tokens, source, self.version, _gap_after(tokens[-1]))])
        return blocks

    def _keep_paragraph(self, parts: Parts, blocks: list[list[MarkdownBlock]]) -> None:
        """Hand the drawing of the streaming paragraph on to the block the parse made of it,
        while it is the same paragraph (it begins where it began): a new one for a last block
        that is a paragraph still open; the last drawing for one that just finished."""
        kept = self._paragraph
        self._paragraph = None
        for index, (first, _end, tokens) in enumerate(parts):
            if tokens[0].type != "paragraph_open" or len(blocks[index]) != 1:
                continue
            last = index + 1 == len(parts) and not self.complete
            if not last and kept is None:
                continue
            begins = self._done_chars + _after_newlines(self._tail, first)
            if kept is not None and kept[0] == begins:
                drawing = kept[1]
            elif last:
                drawing = OpenParagraph()
            else:
                continue
            block = blocks[index][0]
            block.paragraph = drawing
            inline = self._inline
            if last and inline is not None and inline.served is tokens[1]:
                block.settled = inline.settled
            if last:
                self._paragraph = (begins, drawing)
            else:
                drawing.close()

    def _list_goes_on(
        self,
        parts: Parts,
        blocks: list[list[MarkdownBlock]],
        settle: int,
    ) -> None:
        """The text parsed begins with the last item of a long list
        (`openwop_tui.draw.list_pieces`): its first part is the rest of that list, numbered on
        from the settled items; the list is over once that part is finished."""
        listing = self._list
        assert listing is not None
        if not parts or parts[0][0] != 0 or not listing.continued_by(parts[0][2][0]):
            # (The item's whole first line always begins a list item again; were it ever not,
            # the list ended with its settled items, and a blank line follows the last.)
            at = listing.first + listing.settled - 1
            last = self.finished[at]
            self.finished[at] = MarkdownBlock(last.tokens, last.source, last.version, True)
            self._list = None
            return
        tokens = parts[0][2]
        count = listing.settled + len(list_pieces.items(tokens))
        if listing.widened(count):
            self._renumber(count)
        numbers = listing.numbers(listing.settled, count)
        tokens[0].meta = list_pieces.marks(numbers, goes_on=True)  # (parsed now: its own token)
        if settle:
            self._list = None

    def _settle_items(
        self,
        tokens: list[Token],
        blocks: list[list[MarkdownBlock]],
        settle: int,
        lines: list[str],
        cut: int,
    ) -> int:
        """The first open part is a top-level list: settle every item but the last whose first
        line is whole as a piece of its own (`openwop_tui.draw.list_pieces`), appended to the
        finished blocks, and leave the rest open. Returns the line the open text begins at now.

        Args:
            tokens: The list's tokens.
            blocks: Each part's blocks (the list's is replaced by what stays open of it).
            settle: The index of the list's part (the first open one).
            lines: The parsed text's lines.
            cut: The line the list's part begins at (its source's first line).
        """
        ranges = list_pieces.items(tokens)
        starts = [tokens[begin].map[0] for begin, _ in ranges]  # type: ignore[index]
        stay = len(ranges) - 1  # (the first item that stays open)
        while stay > 0 and not lines[starts[stay]].endswith("\n"):
            stay -= 1
        listing = self._list
        if stay < 1 or (listing is None and self.complete):
            return cut  # (a list read whole is drawn whole: pieces would be no cheaper)
        if listing is None:
            listing = self._list = list_pieces.OpenList.of(tokens[0], len(self.finished))
        count = listing.settled + len(ranges)
        if listing.widened(count):
            self._renumber(count)
        for index in range(stay):
            begin, end = ranges[index]
            numbers = listing.numbers(listing.settled, count)
            source = "".join(lines[cut if index == 0 else starts[index] : starts[index + 1]])
            made = list_pieces.listed(
                tokens, tokens[begin:end], numbers, goes_on=listing.settled > 0
            )
            self.finished.append(MarkdownBlock(made, source, self.version, gap_after=False))
            listing.settled += 1
        listing.last = listing.start + count
        numbers = listing.numbers(listing.settled, count)
        rest = list_pieces.listed(tokens, tokens[ranges[stay][0] : -1], numbers, goes_on=True)
        [open_list] = blocks[settle]
        blocks[settle] = [
            MarkdownBlock(rest, "".join(lines[starts[stay] :]), self.version, open_list.gap_after)
        ]
        return starts[stay]

    def _renumber(self, count: int) -> None:
        """The long list's numbers take another width now that it holds ``count`` items: its
        settled pieces are made again, numbered to that width."""
        listing = self._list
        assert listing is not None
        for index in range(listing.settled):
            at = listing.first + index
            block = self.finished[at]
            numbers = listing.numbers(index, count)
            goes_on = list_pieces.continues(block.tokens)
            made = list_pieces.listed(block.tokens, block.tokens[1:-1], numbers, goes_on=goes_on)
            self.finished[at] = MarkdownBlock(made, block.source, block.version, block.gap_after)
        listing.last = listing.start + count

    def _pieces(self, fence: Token, *, final: bool) -> list[MarkdownBlock] | None:
        """A fenced code block's pieces (`openwop_tui.draw.code_pieces`), or ``None`` to draw
        it as one block. ``final``: the block is finished (no line will be added). A block seen
        only finished (a reply read whole, a block that streamed in one update) is drawn whole,
        as it always was: its pieces would be drawn once each, no cheaper."""
        assert fence.map is not None
        start = self._done_chars + _after_newlines(self._tail, fence.map[0])
        code = code_of(fence.content)
        pieces = self._code
        if pieces is None or not pieces.follows(start, fence, code):
            if final:
                return None
            gap = _gap_after(fence)

            def make(token: Token, last: bool) -> MarkdownBlock:
                return MarkdownBlock([token], "", self.version, gap and last)

            pieces = self._code = CodePieces(start, fence, make)
        made = pieces.blocks(fence, code, final=final)
        if pieces.checking and pieces not in self._checks:
            self._checks.append(pieces)
        return made

    def _check(self) -> None:
        """Check the next lines of the finished long code blocks against their whole lexing
        (all of them once the reply is whole), and put the pieces drawn again in place of the
        ones they replace."""
        made: dict[MarkdownBlock, MarkdownBlock] = {}
        budget = None if self.complete else CHECK_LINES
        while self._checks and (budget is None or budget > 0):
            checking = self._checks[0]
            before = checking.lines_left
            made.update(checking.check(budget))
            if budget is not None:
                budget -= before - checking.lines_left
            if not checking.checking:
                self._checks.pop(0)
        if made:
            for blocks in (self.finished, self.open):
                blocks[:] = [made.get(block, block) for block in blocks]

    def _refresh(self) -> None:
        """Parse again the finished blocks that could read differently with the definitions
        now in force: those whose text holds a changed label (its first word, case-folded, as
        markdown-it matches labels), and a ``]``."""
        for index, block in enumerate(self.finished):
            if block.version == self.version or block.piece:
                block.version = self.version  # (a piece of code: no definition changes it)
                continue
            labels = frozenset().union(*self._changes[block.version : self.version])
            folded = block.source.casefold()
            if "]" not in folded or not any(_word(label) in folded for label in labels):
                block.version = self.version
                continue
            env: dict[str, Any] = {"references": dict(self._in_force)}
            tokens = self._parser.parse(block.source, env)
            clean_tokens(tokens)
            images_as_links(tokens)
            if block.tokens[0].type in LIST_OPENS and tokens[0].type in LIST_OPENS:
                # (A long list's item: numbered by its place in the list, drawn under it.)
                tokens[0].meta = dict(block.tokens[0].meta)
            self.finished[index] = MarkdownBlock(
                tokens, block.source, self.version, block.gap_after
            )


def _settled(parts: Parts, lines: list[str]) -> int:
    """How many of the parsed top-level blocks are finished: every one but the last, and not
    the one before it either while the last begins on the text's unfinished last line and what
    that line turns out to be may still join them: right under it (``- a`` then ``#`` are a
    list and a heading, but ``- a`` then ``#foo`` one item, its line continued lazily), or
    after a list and blank lines (``1`` is a paragraph, ``1.`` the list's next item)."""
    count = len(parts) - 1
    if count > 0:
        first = parts[-1][0]
        if first + 1 == len(lines) and not lines[first].endswith("\n"):
            under = lines[first - 1].strip(" \t\n")
            if under or parts[-2][2][0].type in LIST_OPENS:
                count -= 1
    return max(count, 0)


def _after_newlines(text: str, count: int) -> int:
    """The offset just after the ``count``-th newline of ``text``."""
    offset = 0
    for _ in range(count):
        offset = text.index("\n", offset) + 1
    return offset


def _changed(before: References, after: References) -> frozenset[str]:
    """The labels defined, dropped or redefined between two sets of definitions."""

    def target(refs: References, label: str) -> tuple[Any, Any] | None:
        ref = refs.get(label)
        return None if ref is None else (ref.get("href"), ref.get("title"))

    labels = before.keys() | after.keys()
    return frozenset(k for k in labels if target(before, k) != target(after, k))


def _word(label: str) -> str:
    """A label's first word, case-folded: every use of the label has it in its text."""
    words = label.split()
    return words[0].casefold() if words else ""
