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
from dataclasses import dataclass
from typing import Any, ClassVar

from markdown_it.token import Token
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import CodeBlock, Markdown, MarkdownContext, MarkdownElement, Paragraph
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
    streaming paragraph: wrapped again from its last lines), begun with the text of its
    settled tokens where that was built before."""

    drawing: OpenParagraph
    begun: Text | None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> Paragraph:
        assert isinstance(markdown, OpenParagraphMarkdown)  # (the one markdown using it)
        element = cls(justify=markdown.justify or "left")
        element.drawing = markdown.open_paragraph
        element.begun, markdown.begun = markdown.begun, None
        return element

    def on_enter(self, context: MarkdownContext) -> None:
        super().on_enter(context)
        if self.begun is not None:
            self.text = self.begun

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
    return (token for token, _depth in _kbd_depths(tokens) if token is not None)


def _kbd_depths(tokens: Iterable[Token]) -> Iterator[tuple[Token | None, int]]:
    """Each of ``tokens`` with the ``<kbd>`` styles Rich's loop has open after it; ``None`` in
    place of a ``</kbd>`` that closes none (`KbdClosed` leaves it out)."""
    depth = 0
    for token in tokens:
        if token.type == "html_inline" and token.content == "<kbd>":
            depth += 1
        elif token.type == "html_inline" and token.content == "</kbd>":
            if not depth:
                yield None, depth
                continue
            depth -= 1
        yield token, depth


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
    its markdown block keeps (`openwop_tui.draw.markdown.MarkdownBlock.paragraph`).

    Rich builds the paragraph's text token by token at every drawing (a 540 KB paragraph of
    prose: most of its redraw). The text of its settled tokens
    (`openwop_tui.draw.open_inline`: the same objects from one parse to the next) is kept with
    the drawing, grown as more settle, and Rich builds only the rest onto a copy of it: the
    same characters and spans, since a settled part closes every style it opens. Kept while the
    styles it was built in are the ones the console gives now (a theme changed builds it again),
    and only up to where Rich's ``<kbd>`` style, which raw HTML opens and closes, is closed.
    """

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **BlockMarkdown.elements,
        "paragraph_open": _OpenParagraphElement,
    }

    def __init__(
        self,
        tokens: list[Token],
        paragraph: OpenParagraph,
        *,
        code_theme: Any,
        lead: bool,
        settled: int = 0,
    ) -> None:
        """Draw a paragraph block's ``tokens``, its text by ``paragraph``.

        Args:
            tokens: The block's parsed (and cleaned) markdown tokens: one paragraph.
            paragraph: The drawing the block keeps from one parse to the next.
            code_theme: The Pygments theme inline code is drawn in.
            lead: True draws the block as after one that wants a blank line after it.
            settled: How many of its first inline tokens are settled
                (`openwop_tui.draw.markdown.MarkdownBlock.settled`).
        """
        super().__init__(tokens, code_theme=code_theme, lead=lead)
        self.open_paragraph = paragraph
        self.settled = settled
        self.begun: Text | None = None
        """The text its paragraph begins with (its settled tokens'), for the element."""
        self._whole = self.parsed

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # (A generator: the tokens are chosen when the drawing is, not when it is asked for.)
        self.parsed, self.begun = self._whole, None
        inline = next((token for token in self._whole if token.type == "inline"), None)
        if self.settled and inline is not None and inline.children:
            built = self._built(console, options, inline.children)
            if built.count:
                self.begun = built.text.copy()
                rest = inline.copy(children=inline.children[built.count :])
                self.parsed = [rest if token is inline else token for token in self._whole]
        yield from super().__rich_console__(console, options)

    def _built(self, console: Console, options: ConsoleOptions, children: list[Token]) -> _Built:
        """The text of the first settled ``children``, kept or grown from the one kept."""
        key = (
            tuple(console.get_style(name, default="none") for name in _TEXT_STYLES),
            console.get_style(self.style, default="none"),
            self.hyperlinks,
            self.inline_code_lexer,
        )
        built = self.open_paragraph.built
        if not (
            isinstance(built, _Built)
            and built.key == key
            and built.count <= self.settled
            and (not built.count or children[built.count - 1] is built.last)
        ):
            built = _Built(key, 0, None, Text(justify="left"))
        end = _closed_up_to(children, built.count, self.settled)
        if end > built.count:
            # (The kept text is never handed out, only copies of it: grown in place.)
            built.text.append_text(self._text_of(console, options, children[built.count : end]))
            built.count, built.last = end, children[end - 1]
        self.open_paragraph.built = built
        return built

    def _text_of(self, console: Console, options: ConsoleOptions, children: list[Token]) -> Text:
        """The text Rich's loop builds from ``children`` in a paragraph of their own."""
        tokens = [
            Token("paragraph_open", "p", 1),
            Token("inline", "", 0, children=children),
            Token("paragraph_close", "p", -1),
        ]
        capture = _Capture(tokens, code_theme=self.code_theme, lead=False)
        capture.hyperlinks, capture.style = self.hyperlinks, self.style
        capture.inline_code_lexer = self.inline_code_lexer
        capture.captured = Text(justify="left")  # (what the paragraph replaces with its own)
        for _ in capture.__rich_console__(console, options):
            pass
        return capture.captured


#: Rich's named styles a paragraph's text is built in (beside the markdown's own).
_TEXT_STYLES = (
    "markdown.paragraph",
    "markdown.em",
    "markdown.strong",
    "markdown.code",
    "markdown.s",
    "markdown.link",
    "markdown.link_url",
    "markdown.kbd",
)


@dataclass(slots=True)
class _Built:
    """The text Rich built from a streaming paragraph's first settled inline tokens."""

    key: tuple[object, ...]
    """The styles it was built in (`_TEXT_STYLES`, the markdown's), links and inline code."""
    count: int
    last: Token | None
    """The last token it was built from: the same object while the tokens are the same."""
    text: Text


def _closed_up_to(children: list[Token], start: int, end: int) -> int:
    """The furthest point up to ``end`` where the ``<kbd>`` styles opened since ``start`` are
    all closed (`_kbd_depths`)."""
    closed = start
    for index, (_token, depth) in enumerate(_kbd_depths(children[start:end]), start):
        if not depth:
            closed = index + 1
    return closed


class _CapturedParagraph(Paragraph):
    """A paragraph that hands its text to the `_Capture` drawing it and draws nothing."""

    owner: _Capture

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> Paragraph:
        assert isinstance(markdown, _Capture)
        element = cls(justify=markdown.justify or "left")
        element.owner = markdown
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.owner.captured = self.text
        return iter(())


class _Capture(BlockMarkdown):
    """Rich's markdown loop run for the text of one paragraph (`captured`), not a drawing."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **BlockMarkdown.elements,
        "paragraph_open": _CapturedParagraph,
    }
    captured: Text
    """The paragraph's text, once the loop has run (`_CapturedParagraph`)."""


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

    def __init__(
        self, markup: str, *, code_theme: Any = "monokai", hyperlinks: bool = True
    ) -> None:
        """Rich's ``Markdown`` of ``markup`` (cleaned here), with what renderers set of it.

        Args:
            markup: The text: a renderer's, whatever payload it was given.
            code_theme: The Pygments theme its code is drawn in (a name or a theme: Rich's
                code takes either, its annotation says a name).
            hyperlinks: Whether links are terminal hyperlinks (renderers say no).
        """
        # A boundary: renderers (a plugin's too) hand it whatever payload text they were given.
        super().__init__(clean(markup), code_theme=code_theme, hyperlinks=hyperlinks)
        clean_tokens(self.parsed)
        images_as_links(self.parsed)
