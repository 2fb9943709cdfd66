"""A long code block drawn in pieces (`openwop_tui.draw.code_pieces`): the same lines as drawn
whole, at every step of its streaming, and a redraw that costs its last lines only."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from pygments.lexers import get_lexer_by_name
from rich.console import Console
from streamed_support import CONSOLE, cells, streamed

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw import code_pieces, rich_markdown
from openwop_tui.draw.code_lexing import Place, resumable
from openwop_tui.draw.code_pieces import PIECE_LINES, SLACK_LINES
from openwop_tui.draw.palette import Palette
from openwop_tui.present.dispatch import renderable
from openwop_tui.ui.transcript.blocks import Block

PYTHON = '''\
import re


class Example:
    """A docstring
    over three lines,\twith a tab."""

    pattern = re.compile(r"^\\s*(a|b)+$")

    def run(self, items: list[str]) -> str:
        text = f"""{len(items)} items:
{', '.join(items)}"""
        # a comment with 'quotes' and "more"
        return text  # trailing comment

'''

#: Code in several languages, with what resumes badly if anything does: strings and comments
#: over several lines, tabs, blank lines, a heredoc, an unknown language, plain text.
SAMPLES = {
    "python": PYTHON * 6,
    "javascript": "function f(a) {\n\tconst s = `x ${a}\n y`;\n  /* multi\n line */\n"
    "  return s.replace(/a+/g, 'b');\n}\n\n" * 10,
    "bash": "for f in *.py; do\n  cat <<EOF\nhello $f\n\nEOF\ndone\n" * 12,
    "rust": 'fn main() {\n    let s = r#"raw\nstring"#;\n    println!("{}", s); // c\n}\n' * 12,
    "sql": "SELECT a, b FROM t -- c\nWHERE x = 'y\nz'\n/* z\n */ ORDER BY 1;\n" * 12,
    "nosuchlanguage": "plain text line\n   indented\n\n" * 20,
    "": "no language named\n\tat all\n" * 30,
    "json": '{\n  "a": [1, 2,\n 3]\n}\n' * 20,
}


@contextmanager
def _drawn_whole() -> Iterator[None]:
    """Every code block drawn as one block (as before pieces), for reference."""
    real = code_pieces.CodePieces.blocks
    code_pieces.CodePieces.blocks = lambda self, *args, **kwargs: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        code_pieces.CodePieces.blocks = real  # type: ignore[method-assign]


def _reply(language: str, code: str) -> str:
    return f"Intro paragraph.\n\n```{language}\n{code}```\n\nAfter the code.\n"


@pytest.mark.parametrize("language", list(SAMPLES))
def test_a_streamed_code_block_draws_what_the_whole_block_draws_at_every_step(
    language: str,
) -> None:
    palette = Palette.default()
    text = _reply(language, SAMPLES[language])
    block = None
    for block, item, drawn in streamed(text, random.Random(language), 90):  # noqa: B007
        # (Each step compared as it is drawn: the item grows with the next.)
        with _drawn_whole():
            whole = Block(AssistantTurn("reply", None, item.text)).lines(CONSOLE, 100, palette)
        assert cells(drawn) == cells(whole), f"{language} after {len(item.text)} characters"
    assert block is not None
    pieces = [part for part in block.reply_markdown(item).blocks() if part.piece]
    if language == "json":
        assert pieces == []  # (its lexer cannot resume: drawn whole, as before)
    else:
        assert len(pieces) > 4


@pytest.mark.parametrize("width", [100, 37])
@pytest.mark.parametrize("ends_with_code", [True, False])
def test_a_finished_reply_prints_its_long_code_as_drawn_whole(
    width: int, ends_with_code: bool
) -> None:
    # (A reply that ends with its code block has it open when read whole: drawn in pieces.)
    palette = Palette.default()
    text = _reply("python", PYTHON * 4)
    text = text[: text.rindex("After")] if ends_with_code else text
    item = AssistantTurn("reply", None, text, final=True)
    printed = Console(width=width, file=io.StringIO(), color_system="truecolor", record=True)
    printed.print(renderable(item, palette))
    with _drawn_whole():
        whole = Console(width=width, file=io.StringIO(), color_system="truecolor", record=True)
        whole.print(renderable(item, palette))
    assert printed.export_text(styles=True) == whole.export_text(styles=True)


def test_a_redraw_of_a_long_streaming_block_highlights_and_draws_its_last_lines_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    highlighted: list[int] = []
    real = rich_markdown._KeptSyntax.highlight

    def counting(self: Any, code: str, line_range: Any = None) -> Any:
        highlighted.append(code.count("\n"))
        return real(self, code, line_range)

    monkeypatch.setattr(rich_markdown._KeptSyntax, "highlight", counting)
    palette = Palette.default()
    line = "    total = compute(items[index], scale=2) + offset  # a step\n"
    text = "```python\ndef main():\n" + line * 400
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    settled: dict[int, object] = {}
    for at in range(0, len(text), 200):
        item.body.append(text[at : at + 200])
        block.cache.clear()
        block.measured = False
        block.appended()
        highlighted.clear()
        block.lines(CONSOLE, 100, palette)
        # The settled pieces drawn before are the same blocks (their lines kept by the view);
        # what is highlighted is the open tail and any piece settled by this redraw.
        assert sum(highlighted) <= 2 * (PIECE_LINES + SLACK_LINES) + 8, at
        pieces = [part for part in block.reply_markdown(item).blocks() if part.piece]
        for index, piece in enumerate(pieces[:-1]):
            assert settled.setdefault(index, piece) is piece
    assert len(settled) > 40


@pytest.mark.parametrize("language", ["python", "javascript", "bash", "rust", "sql", "html"])
def test_lexing_resumed_anywhere_gives_the_tokens_of_one_whole_lexing(language: str) -> None:
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=True, tabsize=4)
    machine = resumable(lexer)
    assert machine is not None
    code = SAMPLES.get(language, "<div>\n<script>var x = '<';\n</script>\n</div>\n" * 20)
    code = (code.rstrip() + "\n").expandtabs(4)
    whole = [(kind, value) for _, kind, value in lexer.get_tokens_unprocessed(code)]
    rng = random.Random(language)
    tokens: list[Any] = []
    place = Place()
    while place.position < len(code):
        made, place = machine.run(code, place, place.position + rng.randint(1, 200))
        tokens.extend(made)
    assert tokens == whole


@pytest.mark.parametrize("language", ["json", "yaml", "ruby", "c"])
def test_a_lexer_that_cannot_resume_is_said_so(language: str) -> None:
    # (A hand-written scanner, a lexer with a context object, one that rewrites its tokens.)
    assert resumable(get_lexer_by_name(language)) is None


def test_a_reply_ended_with_its_text_grown_is_not_parsed_and_drawn_again_whole() -> None:
    # The run's end replaces a reply's text with the same text, often grown since the last
    # redraw: its markdown (and every block's lines) stay; only what was added is parsed.
    palette = Palette.default()
    text = _reply("python", PYTHON * 4)
    item = AssistantTurn("reply", None, text[:-40])
    block = Block(item)
    block.lines(CONSOLE, 100, palette)
    markdown_before = block.markdown
    pieces_before = [part for part in block.reply_markdown(item).blocks() if part.piece]
    item.body.append(text[-40:])
    block.replace_text()
    drawn = block.lines(CONSOLE, 100, palette)
    assert block.markdown is markdown_before
    pieces = [part for part in block.reply_markdown(item).blocks() if part.piece]
    assert pieces[: len(pieces_before) - 1] == pieces_before[:-1]
    with _drawn_whole():
        whole = Block(AssistantTurn("reply", None, text)).lines(CONSOLE, 100, palette)
    assert cells(drawn) == cells(whole)
    # A replaced text that is not the same text grown is parsed again, whole.
    item.text = "A different answer."
    block.replace_text()
    block.lines(CONSOLE, 100, palette)
    assert block.markdown is not markdown_before


_BODY = "".join(f"line {n} with 'quotes', a # hash and a * star\n" for n in range(12))

#: Constructs a rule of the lexer matches whole only once their end has come, however far below
#: (longer than the slack a piece waits for): drawn otherwise until then.
SPANNING = {
    "javascript": "/**\n" + _BODY + " */\nvar a = 1;\n" + "a++;\n" * 20,
    "bash": "cat <<END\n" + _BODY + "END\necho done\n" + "ls -la\n" * 20,
    "go": "s := `\n" + _BODY + "`\n" + "x := 1\n" * 20,
    "html": "<script>\n" + "var x = '<b>';\n" * 12 + "</script>\n" + "<p>hi</p>\n" * 20,
    "python": 'x = """\n' + _BODY + '"""\nprint(x)\n' + "y = 2\n" * 20,
}


@pytest.mark.parametrize("language", list(SPANNING))
@pytest.mark.parametrize("ends_with_code", [True, False])
def test_a_finished_streamed_block_draws_what_the_whole_block_draws_whatever_spans_its_lines(
    language: str, ends_with_code: bool
) -> None:
    palette = Palette.default()
    text = _reply(language, SPANNING[language])
    text = text[: text.rindex("After")] if ends_with_code else text
    block, item, _ = list(streamed(text, random.Random(language), 40, 5))[-1]
    item.final = True  # the reply's end
    block.replace_text()
    drawn = block.lines(CONSOLE, 100, palette)
    with _drawn_whole():
        ended = AssistantTurn("reply", None, text, final=True)
        whole = Block(ended).lines(CONSOLE, 100, palette)
    assert cells(drawn) == cells(whole)
    assert sum(part.piece for part in block.reply_markdown(item).blocks()) > 4


@pytest.mark.parametrize("language", ["javascript", "python"])
def test_a_finished_block_is_checked_a_few_lines_an_update_while_the_reply_goes_on(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[int] = []
    real = code_pieces.CodePieces.check

    def counting(self: Any, lines: int | None = code_pieces.CHECK_LINES) -> Any:
        before = self.lines_left
        made = real(self, lines)
        checked.append(before - self.lines_left)
        return made

    monkeypatch.setattr(code_pieces.CodePieces, "check", counting)
    palette = Palette.default()
    code = SPANNING[language] * 3
    prose = "".join(f"Sentence {n} about the code above, at some length.\n\n" for n in range(60))
    text = _reply(language, code) + prose
    block, item, _ = list(streamed(text, random.Random(language), 40, 5))[-1]
    # While the prose streamed after the block, its check went a few lines at each update
    # (a piece may end past the budget), never all at once, and got through the whole block.
    assert checked
    assert max(checked) <= code_pieces.CHECK_LINES + PIECE_LINES
    assert sum(checked) == code.count("\n")
    item.final = True
    block.replace_text()
    drawn = block.lines(CONSOLE, 100, palette)
    with _drawn_whole():
        whole = Block(AssistantTurn("reply", None, text, final=True)).lines(CONSOLE, 100, palette)
    assert cells(drawn) == cells(whole)
