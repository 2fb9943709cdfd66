"""Code lexed a part at a time, resuming where the last part left off: how a long code block
that is still streaming is highlighted without lexing all of it again at every redraw.

Pygments lexes a text from its start. A reply's open code block grows a line or two between two
redraws, and highlighting it whole each time cost with its length (a 200-line block, 70 ms of
Pygments on a 2-core machine, at every redraw; `openwop_tui.draw.code_pieces` says what the
drawing cost besides). A regular-expression lexer (Pygments' ``RegexLexer``, what nearly every
language's lexer is) is a state machine: where it stands in a text is a position and a stack of
states, so lexing can stop at a position and go on from it later, the stack kept. `Resumable`
runs that machine, the same rules in the same order as ``RegexLexer.get_tokens_unprocessed``,
over the whole text (so a rule that looks behind its position sees what Pygments would), from
a `Place` to a position, and says where it stopped.

What it gives equals a whole lexing's tokens as long as no rule's match reaches further ahead
than the text at hand: `openwop_tui.draw.code_pieces` settles a part only once several lines
follow it. A lexer of any other kind (a hand-written scanner such as JSON's, or one that
post-processes its tokens) is not resumable: `resumable` says ``None``, and the block is
highlighted whole as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pygments.lexer import Lexer, RegexLexer  # type: ignore[import-untyped]
from pygments.token import Error, Text, Whitespace, _TokenType  # type: ignore[import-untyped]

__all__ = ["PLAIN", "Place", "Resumable", "Token", "plain", "resumable"]

#: A token as Rich's ``Syntax`` takes it: (Pygments token type, text).
Token = tuple[Any, str]


@dataclass(frozen=True, slots=True)
class Place:
    """Where lexing stopped: a position in the text and the lexer's stack of states there."""

    position: int = 0
    stack: tuple[str, ...] = ("root",)


class Resumable:
    """A regular-expression lexer's state machine, run over a text from a `Place`."""

    def __init__(self, lexer: RegexLexer) -> None:
        self.lexer = lexer

    def run(self, text: str, start: Place, stop: int) -> tuple[list[Token], Place]:
        """The tokens of ``text`` from ``start`` until a rule's match ends at or past ``stop``
        (or the text does), and the place after it. A token that crosses ``stop`` is given
        whole: the caller splits it where it needs to.

        The loop is ``RegexLexer.get_tokens_unprocessed``'s, the same rules tried in the same
        order, each match's tokens (a callback's several) taken whole.

        Args:
            text: The whole text being lexed (earlier parts included: rules may look behind).
            start: Where the last run stopped (`Place()` for the text's start).
            stop: The position to lex up to.
        """
        lexer = self.lexer
        definitions = lexer._tokens
        tokens: list[Token] = []
        position = start.position
        stack = list(start.stack)
        rules = definitions[stack[-1]]
        length = len(text)
        while position < stop and position < length:
            for match_at, action, new_state in rules:
                match = match_at(text, position)
                if not match:
                    continue
                if type(action) is _TokenType:
                    tokens.append((action, match.group()))
                elif action is not None:  # (a callback; None: the match draws nothing)
                    tokens.extend((kind, value) for _, kind, value in action(lexer, match))
                if new_state is not None:
                    _transition(stack, new_state)
                    rules = definitions[stack[-1]]
                position = match.end()
                break
            else:
                # No rule matched: a newline resets the machine to its root state; anything else
                # is one character of error (Pygments' own recovery).
                character = text[position]
                position += 1
                if character == "\n":
                    stack = ["root"]
                    rules = definitions["root"]
                    tokens.append((Whitespace, "\n"))
                else:
                    tokens.append((Error, character))
        return tokens, Place(position, tuple(stack))


def _transition(stack: list[str], new_state: Any) -> None:
    """Apply a rule's state change to ``stack`` (as Pygments' loop does)."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif state == "#push":
                stack.append(stack[-1])
            else:
                stack.append(state)
    elif isinstance(new_state, int):
        # Pop, but keep at least one state (as Pygments does: odd code must not fail).
        if abs(new_state) >= len(stack):
            del stack[1:]
        else:
            del stack[new_state:]
    elif new_state == "#push":
        stack.append(stack[-1])


def resumable(lexer: Lexer | None) -> Resumable | None:
    """A `Resumable` for ``lexer`` when its tokens come from ``RegexLexer``'s own loop alone
    (no override of it, no filters); ``None`` otherwise (highlight the text whole)."""
    if not isinstance(lexer, RegexLexer) or lexer.filters:
        return None
    if type(lexer).get_tokens_unprocessed is not RegexLexer.get_tokens_unprocessed:
        return None
    return Resumable(lexer)


def plain(lexer: Lexer | None) -> bool:
    """Whether ``lexer`` gives a text as one plain token (Pygments' ``text`` lexer, or none):
    any part of it can be drawn on its own."""
    from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]

    return lexer is None or (type(lexer) is TextLexer and not lexer.filters)


#: The token type of plain text (for `plain` lexers' parts).
PLAIN = Text
