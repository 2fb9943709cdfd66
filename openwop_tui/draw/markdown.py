"""A reply's markdown as blocks, split on the parser's own block tokens, for every sink.

Rich's ``Markdown`` parses a whole text and draws its top-level blocks one after the other, a
blank line after each (but a rule). `ReplyMarkdown` does the same parse (Rich's parser, the same
configuration, tokens cleaned after parsing as `SafeMarkdown` below does) and
keeps the result as `MarkdownBlock` s, so a view can cache each finished block's lines and draw
only the open one again; `render` and the app then draw one reply the same way, construct by
construct, because they draw the very same tokens.

Streaming follows Textual's ``Markdown.append``: every top-level block but the last is finished
(appending text cannot change it: markdown-it's block structure at a top-level boundary does not
depend on what follows), and only the last, open block is parsed again as text arrives. The one
thing later text changes in an earlier block is a reference: ``[the docs][1]`` is a link once
``[1]: https://…`` is defined anywhere in the reply, before or after. Definitions are collected in
document order (the first of a label wins, as in a whole parse); a finished block that could use
one (it has a ``]``) is parsed again when the set of definitions changes, so every intermediate
state is what a whole parse of the text so far gives.

A block's code is highlighted once (`KeptCodeBlock`, into `MarkdownBlock.highlighted`): drawn
again at another width, it is wrapped again, and Pygments is not asked again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown, MarkdownElement, UnknownElement
from rich.syntax import Syntax, SyntaxTheme
from rich.text import Text

from openwop_tui.draw.code_pieces import CodePieces, Piece, code_of
from openwop_tui.draw.markdown_images import images_as_links
from openwop_tui.text.markdown import clean_tokens
from openwop_tui.text.sanitize import HostText, clean

__all__ = [
    "BlockMarkdown",
    "KeptCodeBlock",
    "MarkdownBlock",
    "ReplyMarkdown",
    "SafeMarkdown",
    "parser",
]

References = dict[str, dict[str, Any]]


def parser() -> MarkdownIt:
    """The parser Rich's ``Markdown`` builds for itself (CommonMark, strikethrough, tables)."""
    return MarkdownIt().enable("strikethrough").enable("table")


_SHARED_PARSER = parser()


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

    @property
    def piece(self) -> bool:
        """Whether it is a piece of a long code block (`openwop_tui.draw.code_pieces`): made
        from the block's tokens (its fence token holds the piece), not parsed from its source."""
        meta = self.tokens[0].meta if self.tokens else None
        return meta is not None and "piece" in meta


#: (code, lexer name, Pygments theme) → the code highlighted (a `Text` never handed out: each
#: drawing gets a copy).
Highlights = dict[tuple[str, str, object], Text]
#: Highlighted code kept per markdown block, at most (a block holds one fenced code block, or a
#: few in a list; a theme changed draws them again in the new theme).
KEPT_HIGHLIGHTS = 8


class _Lexed(Lexer):  # type: ignore[misc]
    """A "lexer" giving a piece's tokens as lexing its whole code block gave them."""

    def __init__(self, piece: Piece) -> None:
        super().__init__()
        self.piece = piece

    def get_tokens(self, text: str, unfiltered: bool = False) -> Iterator[Any]:
        return iter(self.piece.tokens)

    def __str__(self) -> str:
        return "lexed"


class _KeptSyntax(Syntax):
    """Rich's ``Syntax`` as a markdown code block draws it, highlighting once into ``kept``."""

    def __init__(
        self,
        code: str,
        lexer: str,
        theme: str | SyntaxTheme,
        kept: Highlights,
        piece: Piece | None = None,
    ) -> None:
        """A code block, wrapped and padded by a column, as Rich's markdown draws it.

        Args:
            code: The block's code.
            lexer: The name of its language's Pygments lexer.
            theme: The Pygments theme it is drawn in.
            kept: Where its highlighting is looked up, and kept once made.
            piece: A piece of a long block (`openwop_tui.draw.code_pieces`): its tokens are
                given, and it has the padding row above or below only if it begins or ends the
                block.
        """
        if piece is None:
            super().__init__(code, lexer, theme=theme, word_wrap=True, padding=1)
        else:
            padding = (int(piece.top), 1, int(piece.bottom), 1)
            super().__init__(code, _Lexed(piece), theme=theme, word_wrap=True, padding=padding)
        self._kept = kept
        self._piece = piece

    def _process_code(self, code: str) -> tuple[bool, str]:
        if self._piece is None:
            return super()._process_code(code)
        # A piece's lines are drawn as the block's: the last newline of each but the block's
        # last line is the block's own, and a piece that ends with a blank line keeps it.
        return False, code + "\n"

    def highlight(self, code: str, line_range: tuple[int | None, int | None] | None = None) -> Text:
        if line_range is not None:  # (never asked by a code block: its whole code is drawn)
            return super().highlight(code, line_range)
        # Rich looks the lexer up by name on every drawing (a tenth of a millisecond), then
        # Pygments lexes the code: at a new width only the wrapping differs.
        key = (code, str(self._lexer), self._theme)
        text = self._kept.get(key)
        if text is None:
            if len(self._kept) >= KEPT_HIGHLIGHTS:
                self._kept.clear()
            text = self._kept[key] = super().highlight(code)
        return text.copy()


class KeptCodeBlock(CodeBlock):
    """Rich's markdown code block, its highlighting kept by the markdown block it is in
    (`MarkdownBlock.highlighted`, which `BlockMarkdown` is given)."""

    kept: Highlights
    piece: Piece | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> CodeBlock:
        block = super().create(markdown, token)
        assert isinstance(block, KeptCodeBlock)
        kept = getattr(markdown, "highlighted", None)
        block.kept = kept if kept is not None else {}
        block.piece = token.meta.get("piece") if token.meta else None
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # (Rich's CodeBlock, its Syntax highlighting once.)
        piece = self.piece
        code = str(self.text).rstrip() if piece is None else piece.code
        yield _KeptSyntax(code, self.lexer_name, self.theme, self.kept, piece)


class BlockMarkdown(Markdown):
    """Rich ``Markdown`` drawing tokens already parsed (and cleaned), as it would draw them
    after a block that wants a blank line after it (``lead``).

    Rich writes that blank line from a flag its drawing loop carries from element to element
    (set by whichever element closed last, a block's own children included: a table or a list
    always gets one). The flag is given its value here by an element that draws nothing (an
    empty HTML block) placed first, so Rich's own loop decides, exactly as in a whole text.
    """

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "fence": KeptCodeBlock,
        "code_block": KeptCodeBlock,
    }

    def __init__(
        self,
        tokens: list[Token],
        *,
        code_theme: Any,
        lead: bool,
        hyperlinks: bool = False,
        highlighted: Highlights | None = None,
    ) -> None:
        """Draw ``tokens`` without parsing again.

        Args:
            tokens: The block's parsed (and cleaned) markdown tokens.
            code_theme: The Pygments theme code is drawn in, for blocks and inline code.
            lead: True draws the block as after one that wants a blank line after it.
            hyperlinks: True makes links terminal hyperlinks.
            highlighted: Where its code blocks' highlighting is kept between drawings
                (`MarkdownBlock.highlighted`); ``None``: highlighted at each drawing.
        """
        self.highlighted = highlighted
        # Not Markdown.__init__: it builds a parser and parses (a quarter of a millisecond),
        # and a view makes one of these per block on every redraw of a streaming reply.
        self.markup = ""
        self.parsed = [Token("html_block", "", 0), *tokens] if lead else tokens
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme


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
        block's pieces all settle and are checked, `openwop_tui.draw.code_pieces`)."""
        if not self.complete:
            self.complete = True
            self._dirty = True

    def blocks(self) -> list[MarkdownBlock]:
        """Every block, in order, up to date with what was fed."""
        self.update()
        return [*self.finished, *self.open]

    def update(self) -> None:
        """Parse the open part again: split off the blocks it finished, re-parse finished
        blocks a changed definition may affect."""
        if not self._dirty:
            return
        self._dirty = False
        env: dict[str, Any] = {"references": dict(self._refs)}
        source = self._tail  # only `HostText` is fed
        tokens = self._parser.parse(source, env)
        clean_tokens(tokens)
        images_as_links(tokens)
        # markdown-it counts lines by "\n" alone (`clean` left no other line break).
        lines = source.split("\n")
        lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
        parts = list(_top_level(tokens))
        in_force: References = env["references"]
        # The open block starts after the last finished one ends: definitions between them stay
        # open too (a title on the line after a definition is still part of it).
        cut = parts[-2][1] if len(parts) > 1 else 0
        # Definitions above the new open block are finished, in the order they came.
        for label, ref in in_force.items():
            where = ref.get("map")
            if label not in self._refs and where is not None and where[1] <= cut:
                self._refs[label] = ref
        changed = _changed(self._in_force, in_force)
        if changed:
            self._in_force = dict(in_force)
            self._changes.append(changed)
            self.version += 1
        blocks = self._blocks(parts, lines, cut)
        if cut:
            keep = len(parts) - 1
            self.finished.extend(block for part in blocks[:keep] for block in part)
            self.open = blocks[keep]
            # The raw text is kept (cleaning is done on every parse, so a "\r" at the end of
            # one chunk still pairs with the "\n" of the next); clean keeps every "\n".
            offset = _after_newlines(self._tail, cut)
            self._done.append(self._tail[:offset])
            self._done_chars += offset
            self._tail = self._tail[offset:]
        else:
            self.open = blocks[0] if blocks else []
        self._refresh()

    def _blocks(
        self, parts: list[tuple[int, int, list[Token]]], lines: list[str], cut: int
    ) -> list[list[MarkdownBlock]]:
        """Each part's blocks: one, or a long code block's pieces."""
        blocks = []
        for index, (first, _end, tokens) in enumerate(parts):
            if len(tokens) == 1 and tokens[0].type == "fence":
                final = self.complete or index + 1 < len(parts)
                pieces = self._pieces(tokens[0], final=final)
                if pieces is not None:
                    blocks.append(pieces)
                    continue
            start = 0 if index == 0 else first
            if index + 2 == len(parts):
                start, end = start, cut
            elif index + 1 < len(parts):
                end = parts[index + 1][0]
            else:
                start, end = cut if index else 0, len(lines)
            source = "".join(lines[start:end])
            blocks.append([MarkdownBlock(tokens, source, self.version, _gap_after(tokens[-1]))])
        return blocks

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
        return pieces.blocks(fence, code, final=final)

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
            self.finished[index] = MarkdownBlock(
                tokens, block.source, self.version, block.gap_after
            )


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


class SafeMarkdown(Markdown):
    """Rich ``Markdown`` whose parsed tokens are cleaned (see the module docstring), its images
    shown as links (`openwop_tui.draw.markdown_images`)."""

    def __init__(self, markup: str, *args: Any, **kwargs: Any) -> None:
        # A boundary: renderers (a plugin's too) hand it whatever payload text they were given.
        super().__init__(clean(markup), *args, **kwargs)
        clean_tokens(self.parsed)
        images_as_links(self.parsed)
