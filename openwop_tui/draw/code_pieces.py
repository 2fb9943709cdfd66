"""A long fenced code block drawn as pieces of `PIECE_LINES` lines, so a block that is still
streaming costs its last lines at each redraw, not all of them.

A reply's open markdown block is drawn again at every streamed redraw (`openwop_tui.draw.markdown`).
For a fenced code block that was all of its code, highlighted by Pygments and laid out line by
line by Rich: a 200-line block took 220 ms a redraw on a 2-core machine, 800 lines 900 ms, the
event loop held throughout (keys waited) and the next redraw spaced six times as far.

Rich draws a code block's lines one by one (each wrapped on its own, padded by a column, a blank
padding row above and below), so the block's lines are the lines of its pieces one after the
other when the first piece keeps the padding row above and the last the one below. A piece is
*settled* once `SLACK_LINES` more lines follow it: its tokens come from lexing on from where the
piece before it ended (`openwop_tui.draw.code_lexing`: the lexer's position and stack of states
kept), so each line is lexed once, and its lines are drawn once and kept by the view (a settled
piece is the same `MarkdownBlock` at every redraw). Only the lines after the last settled piece
(fewer than `PIECE_LINES` + `SLACK_LINES`) are lexed and drawn at each redraw.

The pieces draw what the whole block draws (the same tokens, the same lines), with one
exception while the block streams: a few rules match a construct whole only once its end has
come, however far below (a ``/* … */`` comment in JavaScript, Java or Go, a heredoc), and the
pieces settled before it came keep the tokens lexed without it. So when the block is finished
(`CodePieces.blocks` with ``final``: the reply went on past it, or ended) it is lexed whole once
and each piece whose tokens differ is drawn again (`CodePieces.check`): a finished block draws
exactly what the whole block draws. That lexing is a third of what drawing the whole block
costs (91 ms for 600 lines on a 2-core machine, the event loop held), so it goes `CHECK_LINES`
at a time, a step at each update of the reply while it streams on past the block, and the rest
at once when the reply ends. `tests/present/test_code_pieces.py` compares them. A code block in
a language whose lexer cannot resume (`openwop_tui.draw.code_lexing.resumable`) is drawn whole,
and so is one first seen finished (a reply read whole: pieces would be no cheaper).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from markdown_it.token import Token as MarkdownToken
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]

from openwop_tui.draw.code_lexing import PLAIN, Place, Resumable, Token, plain, resumable

__all__ = [
    "CHECK_LINES",
    "PIECE_LINES",
    "SLACK_LINES",
    "TAB_SIZE",
    "CodePieces",
    "Piece",
    "code_of",
    "lexer_named",
]

#: Lines of code a piece holds (the last piece of a finished block, what is left).
PIECE_LINES = 8
#: Lines that must follow a piece before it is settled: a rule of the lexer may look ahead past
#: the line it is on (a closing quote, a heredoc's end), and the piece's tokens must be the ones
#: the whole block's lexing gives.
SLACK_LINES = 4
#: Lines of a finished block checked against its whole lexing at one update of the reply.
CHECK_LINES = 3 * PIECE_LINES
#: Columns a tab takes in a code block (Rich's ``Syntax`` default, which a code block keeps).
TAB_SIZE = 4


@dataclass(frozen=True, slots=True, eq=False)
class Piece:
    """Some lines of a code block, lexed: what `openwop_tui.draw.rich_markdown.KeptCodeBlock`
    draws for a piece (a fence token's ``meta["piece"]``)."""

    code: str
    """Its lines (tabs expanded), without the last line's newline."""
    tokens: tuple[Token, ...]
    """Its tokens, as lexing the whole block gives them (ending with the last newline)."""
    top: bool
    """Whether it begins the block (the padding row above is its)."""
    bottom: bool
    """Whether it ends the block (the padding row below is its)."""


@dataclass(slots=True, eq=False)
class _Checking:
    """How far a finished block's pieces were checked against its whole lexing."""

    code: str
    """The block's code, whole."""
    fence: MarkdownToken
    """Its fence token as finished."""
    index: int = 0
    """The next piece to check."""
    offset: int = 0
    """Where that piece begins in the code."""
    lines: int = 0
    """The lines checked (before that piece)."""
    place: Place = field(default_factory=Place)
    """Where the whole lexing stopped."""
    carry: list[Token] = field(default_factory=list)
    """Tokens it lexed past the last piece checked."""


def code_of(content: str) -> str:
    """A fence's code as Rich's ``Syntax`` lexes and draws it: trailing white space gone, a
    newline at the end, tabs expanded."""
    return (content.rstrip() + "\n").expandtabs(TAB_SIZE)


def lexer_named(name: str) -> Lexer | None:
    """The lexer Rich's ``Syntax`` would use for a fence whose info names ``name``."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=TAB_SIZE)
    except ClassNotFound:
        return None  # (Rich draws it as plain text)


#: What a piece is drawn as (a markdown block).
B = TypeVar("B")


class CodePieces(Generic[B]):
    """One fenced code block's pieces, kept while the block streams and after it is finished.

    ``make`` turns a piece's fence token into the markdown block the view draws and caches
    (`openwop_tui.draw.markdown.MarkdownBlock`): once for a settled piece (the view keeps its
    lines), at each update for the open last lines.
    """

    def __init__(
        self,
        start: int,
        fence: MarkdownToken,
        make: Callable[[MarkdownToken, bool], B],
    ) -> None:
        """``start``: where the fence begins in the reply (characters); ``fence``: its token as
        first parsed."""
        self.start = start
        self.info = fence.info
        self.markup = fence.markup
        self._make = make
        name = (fence.info or "").partition(" ")[0] or "text"
        lexer = lexer_named(name)
        self._plain = plain(lexer)
        self._machine: Resumable | None = None if self._plain else resumable(lexer)
        self._settled: list[tuple[B, Piece]] = []
        """The settled pieces, in order: the markdown block each is drawn as, and what it holds
        (checked as the block ends)."""
        self._lines = 0
        """Lines of code the settled pieces hold."""
        self._chars = 0
        """Characters of code the settled pieces hold."""
        self._carry: list[Token] = []
        """Tokens lexed past the last settled piece's end (the next piece's first)."""
        self._place = Place()
        """Where the lexer stopped (past the carried tokens)."""
        self._read = ""
        """The code lexed so far: a later text that does not begin with it is another block."""
        self._finished = False
        """Whether the block was finished and every piece settled."""
        self._checking: _Checking | None = None
        """The check of a finished block's pieces, while it goes on (`check`)."""

    @property
    def drawable(self) -> bool:
        """Whether this block's language can be drawn in pieces."""
        return self._plain or self._machine is not None

    def follows(self, start: int, fence: MarkdownToken, code: str) -> bool:
        """Whether ``fence`` (at ``start``, its code ``code``) is this block, grown."""
        return (
            start == self.start
            and fence.info == self.info
            and fence.markup == self.markup
            and code.startswith(self._read)
        )

    def blocks(self, fence: MarkdownToken, code: str, *, final: bool) -> list[B] | None:
        """The block's pieces as markdown blocks (the settled ones the same objects each
        time), or ``None`` when it is short or cannot be drawn in pieces (draw it whole).

        Args:
            fence: The block's fence token, as parsed now.
            code: Its code (`code_of`).
            final: No line will be added (the block is finished): every piece settles.
        """
        if self._finished:
            return self._blocks()
        lines = code.count("\n")
        if not self.drawable or (not self._settled and lines <= PIECE_LINES + SLACK_LINES):
            return None
        base = self._lines
        starts = _line_starts(code, self._chars)

        def offset(line: int) -> int:
            return starts[line - base] if line - base < len(starts) else len(code)

        # Settled while a line follows (a finished block), or `SLACK_LINES` whole ones do.
        limit = lines - 1 if final else lines - SLACK_LINES - 1
        while self._lines + PIECE_LINES <= limit:
            end = self._lines + PIECE_LINES
            within = None if final else offset(end + SLACK_LINES)
            if not self._settle(fence, code, offset(end), end, within):
                break
        if final:
            self._settle(fence, code, len(code), lines, None, last=True)
            if self._machine is not None and len(self._settled) > 1:
                self._checking = _Checking(code, fence)
            self._finished = True
            return self._blocks()
        tail, _ = self._tokens(code, len(code))
        block, _ = self._piece(fence, code[self._chars :], tail, top=not self._settled, last=True)
        return [*self._blocks(), block]

    def _blocks(self) -> list[B]:
        """The settled pieces' markdown blocks, in order."""
        return [block for block, _ in self._settled]

    def _settle(
        self,
        fence: MarkdownToken,
        code: str,
        stop: int,
        line: int,
        within: int | None,
        *,
        last: bool = False,
    ) -> bool:
        """Settle the next lines as a piece if their tokens are final; whether it did.

        Args:
            fence: The block's fence token, as parsed now.
            code: Its code (`code_of`).
            stop: Where the piece ends (the offset after its last newline).
            line: The line it ends before.
            within: Where the lexer must have stopped (past it, a token runs into lines that
                may still change); ``None``: anywhere (the block is finished).
            last: Whether the piece ends the block.
        """
        tokens, place = self._tokens(code, stop)
        if within is not None and place.position > within:
            return False
        piece, carry = _split(tokens, line - self._lines)
        text = code[self._chars : stop]
        self._settled.append(self._piece(fence, text, piece, top=not self._settled, last=last))
        self._carry, self._place = carry, place
        self._lines, self._chars = line, stop
        self._read = code[: max(place.position, stop)]
        return True

    def _tokens(self, code: str, stop: int) -> tuple[list[Token], Place]:
        """The tokens from the last settled piece's end up to ``stop`` (the carried ones
        first), and where the lexer stopped."""
        if self._machine is None:  # (plain text: one token, cut anywhere)
            return [(PLAIN, code[self._chars : stop])], Place(stop)
        tokens, place = self._machine.run(code, self._place, stop)
        return [*self._carry, *tokens], place

    @property
    def checking(self) -> bool:
        """Whether the finished block's check goes on (`check`)."""
        return self._checking is not None

    @property
    def lines_left(self) -> int:
        """Lines of the finished block its check has still to go through."""
        checking = self._checking
        if checking is None:
            return 0
        return self._lines - checking.lines

    def check(self, lines: int | None = CHECK_LINES) -> dict[B, B]:
        """Go on checking the finished block against one whole lexing: its next ``lines`` lines
        (``None``: all the rest), each piece whose tokens are not the ones that lexing gives
        drawn again. Returns the blocks made again, by the block each replaces.

        A piece settles once `SLACK_LINES` lines follow it, but a few rules match a construct
        whole only once its end has come, however far below (a ``/* … */`` comment in
        JavaScript, Java or Go, a heredoc, a Go raw string): until then its first line lexes
        as something else, and the pieces settled meanwhile keep that. The whole lexing is
        what the block drawn whole shows. It is the lexing of `openwop_tui.draw.code_lexing`
        run on from where the last step stopped, so its steps give the tokens one lexing would.
        """
        checking = self._checking
        if checking is None or self._machine is None:
            return {}
        made: dict[B, B] = {}
        until = None if lines is None else checking.lines + lines
        while checking.index < len(self._settled) and (until is None or checking.lines < until):
            block, piece = self._settled[checking.index]
            text = piece.code + "\n"
            count = text.count("\n")
            stop = checking.offset + len(text)
            tokens, checking.place = self._machine.run(checking.code, checking.place, stop)
            mine, checking.carry = _split([*checking.carry, *tokens], count)
            if tuple(mine) != piece.tokens:
                again = self._piece(checking.fence, text, mine, top=piece.top, last=piece.bottom)
                self._settled[checking.index] = again
                made[block] = again[0]
            checking.index += 1
            checking.offset = stop
            checking.lines += count
        if checking.index == len(self._settled):
            self._checking = None
        return made

    def _piece(
        self, fence: MarkdownToken, lines: str, tokens: list[Token], *, top: bool, last: bool
    ) -> tuple[B, Piece]:
        """A piece's markdown block (a fence token holding the piece in ``meta["piece"]``),
        and the piece.

        Args:
            fence: The block's fence token (its info string and markup are the piece's).
            lines: The piece's lines, each with its newline.
            tokens: Their tokens.
            top: Whether the piece begins the block.
            last: Whether the piece ends the block.
        """
        token = MarkdownToken("fence", "code", 0)
        token.info, token.markup, token.map = fence.info, fence.markup, fence.map
        token.content = lines
        piece = Piece(lines[:-1], tuple(tokens), top, last)
        token.meta = {"piece": piece}
        return self._make(token, last), piece


def _line_starts(code: str, begin: int) -> list[int]:
    """The offset of each line from ``begin`` on (the first is ``begin``); the last is the
    code's end (it ends with a newline)."""
    starts = [begin]
    at = begin
    while (at := code.find("\n", at) + 1) > 0:
        starts.append(at)
    return starts


def _split(tokens: list[Token], lines: int) -> tuple[list[Token], list[Token]]:
    """``tokens`` cut after their ``lines``-th newline (a token holding it is cut in two)."""
    seen = 0
    for index, (kind, value) in enumerate(tokens):
        if seen == lines:
            return tokens[:index], tokens[index:]
        count = value.count("\n")
        if seen + count < lines:
            seen += count
            continue
        at = -1
        for _ in range(lines - seen):
            at = value.index("\n", at + 1)
        head, rest = value[: at + 1], value[at + 1 :]
        before = [*tokens[:index], (kind, head)]
        after = ([(kind, rest)] if rest else []) + tokens[index + 1 :]
        return before, after
    return list(tokens), []
