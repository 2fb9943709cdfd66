"""Rich drawing a reply's markdown tokens already parsed, block by block
(`openwop_tui.draw.markdown`), and Rich's ``Markdown`` for a whole text, cleaned.

`BlockMarkdown` draws one block's tokens as Rich's ``Markdown`` draws them inside a whole text:
the blank line before it decided by Rich's own loop, a code block highlighted once
(`KeptCodeBlock`), a long code block's or list's pieces drawn as the whole block would be
(`openwop_tui.draw.code_pieces`, `openwop_tui.draw.list_pieces`). `SafeMarkdown` is Rich's
``Markdown`` of a whole text, its tokens cleaned after parsing (a renderer's markdown).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from markdown_it.token import Token
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown, MarkdownElement, Paragraph
from rich.segment import Segment
from rich.syntax import Syntax, SyntaxTheme
from rich.text import Text

from openwop_tui.draw import list_pieces
from openwop_tui.draw.code_pieces import Piece
from openwop_tui.draw.list_pieces import NumberedList
from openwop_tui.draw.markdown_images import images_as_links
from openwop_tui.draw.open_paragraph import OpenParagraph
from openwop_tui.text.markdown import clean_tokens
from openwop_tui.text.sanitize import clean

__all__ = [
    "KEPT_HIGHLIGHTS",
    "BlockMarkdown",
    "Highlights",
    "KeptCodeBlock",
    "OpenParagraphMarkdown",
    "SafeMarkdown",
]

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


class _OpenParagraphElement(Paragraph):
    """Rich's paragraph, its text drawn by the `OpenParagraph` its markdown block keeps (a
    streaming paragraph: wrapped again from its last lines)."""

    drawing: OpenParagraph

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> Paragraph:
        assert isinstance(markdown, OpenParagraphMarkdown)  # (the one markdown using it)
        element = cls(justify=markdown.justify or "left")
        element.drawing = markdown.open_paragraph
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.text.justify = self.justify
        return self.drawing.render(self.text, console, options)


class KbdClosed(Markdown):
    """Rich ``Markdown`` that never closes a ``<kbd>`` it did not open.

    Rich's loop styles raw ``<kbd>`` … ``</kbd>`` by pushing a style at the one and popping at
    the other: a ``</kbd>`` more than the ``<kbd>`` s before it popped the paragraph's own
    style, and the next one an empty stack, whose ``IndexError`` stopped the app (a reply
    saying ``a </kbd></kbd> b`` was enough). Here a ``</kbd>`` that closes nothing in its
    paragraph (its inline text) is left out, as Rich leaves out every other tag; one left
    open only styles the rest of its paragraph.
    """

    def _flatten_tokens(self, tokens: Iterable[Token]) -> Iterable[Token]:
        for token in tokens:
            if token.children and not (token.type == "fence" or token.tag == "img"):
                yield from _kbd_closed(self._flatten_tokens(token.children))
            else:
                yield token


def _kbd_closed(tokens: Iterable[Token]) -> Iterator[Token]:
    """``tokens`` (one inline text's) without a ``</kbd>`` that closes no ``<kbd>``."""
    depth = 0
    for token in tokens:
        if token.type == "html_inline":
            if token.content == "<kbd>":
                depth += 1
            elif token.content == "</kbd>":
                if not depth:
                    continue
                depth -= 1
        yield token


class BlockMarkdown(KbdClosed):
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
        "ordered_list_open": NumberedList,
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
        self.goes_on = list_pieces.continues(tokens)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        drawn = super().__rich_console__(console, options)
        # (Returned, not yielded from: a block that is not a list's piece pays no generator.)
        return _without_blank(drawn) if self.goes_on else drawn


class OpenParagraphMarkdown(BlockMarkdown):
    """`BlockMarkdown` of a block that is a streaming paragraph, drawn by the `OpenParagraph`
    its markdown block keeps (`openwop_tui.draw.markdown.MarkdownBlock.paragraph`)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **BlockMarkdown.elements,
        "paragraph_open": _OpenParagraphElement,
    }

    def __init__(
        self, tokens: list[Token], paragraph: OpenParagraph, *, code_theme: Any, lead: bool
    ) -> None:
        """Draw a paragraph block's ``tokens``, its text by ``paragraph``.

        Args:
            tokens: The block's parsed (and cleaned) markdown tokens: one paragraph.
            paragraph: The drawing the block keeps from one parse to the next.
            code_theme: The Pygments theme inline code is drawn in.
            lead: True draws the block as after one that wants a blank line after it.
        """
        super().__init__(tokens, code_theme=code_theme, lead=lead)
        self.open_paragraph = paragraph


def _without_blank(drawn: RenderResult) -> RenderResult:
    """An item of a long list drawn under the items before it: Rich's loop writes a blank line
    before every list (its items' paragraphs closed last), which the list drawn whole has only
    above its first item."""
    results = iter(drawn)
    first = next(results, None)
    if first is not None and first != _BLANK:
        yield first
    yield from results


#: The blank line Rich's markdown writes between blocks.
_BLANK = Segment.line()


class SafeMarkdown(KbdClosed):
    """Rich ``Markdown`` whose parsed tokens are cleaned (see the module docstring), its images
    shown as links (`openwop_tui.draw.markdown_images`)."""

    def __init__(self, markup: str, *args: Any, **kwargs: Any) -> None:
        # A boundary: renderers (a plugin's too) hand it whatever payload text they were given.
        super().__init__(clean(markup), *args, **kwargs)
        clean_tokens(self.parsed)
        images_as_links(self.parsed)
