"""A streaming paragraph wrapped again from its last lines (`openwop_tui.draw.open_paragraph`):
the same lines Rich draws from the whole text, at every step of its streaming, at any width and
through a resize, to its end; and a redraw that wraps its last lines only."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
from markdown_it.token import Token
from rich.console import Console
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from streamed_support import CONSOLE, WIDTH, cells, streamed
from textual.strip import Strip

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw import open_paragraph
from openwop_tui.draw.markdown import ReplyMarkdown, parser
from openwop_tui.draw.open_inline import OpenInline
from openwop_tui.draw.open_paragraph import OpenParagraph
from openwop_tui.draw.palette import Palette, Themed
from openwop_tui.draw.rich_markdown import OpenParagraphMarkdown
from openwop_tui.present.dispatch import Part
from openwop_tui.ui.transcript.blocks import Block

PALETTE = Palette.default()

#: Paragraphs with what a paragraph's drawing depends on as a whole: inline markup that closes
#: after it opened (an unclosed ``**`` drawn as written until its closer arrives), hard and soft
#: breaks, words longer than a line (folded), wide characters, escapes and entities, and
#: paragraphs a later line turns into something else (a heading under ``===``, a table).
REPLIES = {
    "plain words": " ".join(f"w{n % 100}" for n in range(900)),
    "markup": " ".join(
        f"**bold {n}** and *em* with `code {n}` and [a link](https://e.org/{n})" for n in range(60)
    ),
    "closed late": "**" + " ".join("word" for _ in range(80)) + "** then *em " * 3 + "end*",
    "breaks": "".join(f"line {n} of a log  \nwith soft\nbreaks " for n in range(60)),
    "long words": " ".join(("x" * 130 if n % 7 == 0 else "short") for n in range(120)),
    "wide": " ".join("日本語のテキスト😀" * (n % 3 + 1) for n in range(120)),
    "escapes": " ".join(r"\*not em\* &amp; &copy; snake_case_name" for _ in range(60)),
    "keys": " ".join(f"press <kbd>Ctrl {n}</kbd> then <kbd>q</kbd> or" for n in range(50))
    + " <kbd>never closed and on "
    + " ".join("word" for _ in range(60)),
    "becomes a heading": " ".join("title word" for _ in range(40)) + "\n===\n\nAfter.",
    "becomes a table": "Some words here\na | b\n--|--\n1 | 2\n",
    "then more blocks": " ".join("para" for _ in range(200))
    + "\n\n- item\n\n"
    + " ".join("again" for _ in range(200)),
}


def _whole(
    text: str, width: int = WIDTH, *, final: bool = False, palette: Palette = PALETTE
) -> list[Strip]:
    """``text`` drawn as the reply's block draws it, every paragraph parsed, built and wrapped
    whole by markdown-it and Rich (no inline parse resumed: `openwop_tui.draw.open_inline`)."""

    def parse_whole(self: OpenInline, content: str, md: Any, env: Any) -> list[Token]:
        return md.inline.parse(content, md, env, [])  # type: ignore[no-any-return]

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(ReplyMarkdown, "_keep_paragraph", lambda self, *args: None)
        patched.setattr(OpenInline, "parse", parse_whole)
        item = AssistantTurn("reply", None, text, final=final)
        return Block(item).lines(CONSOLE, width, palette)


@pytest.mark.parametrize("name", list(REPLIES))
def test_a_streamed_paragraph_draws_what_rich_draws_from_the_whole_text_at_every_step(
    name: str,
) -> None:
    text = REPLIES[name]
    block = item = None
    for block, item, drawn in streamed(text, random.Random(name), 17):  # noqa: B007
        assert cells(drawn) == cells(_whole(item.text)), f"{name} at {len(item.text)}"
    assert block is not None and item is not None
    item.final = True
    block.cache.clear()
    block.appended()
    assert cells(block.lines(CONSOLE, WIDTH, PALETTE)) == cells(_whole(text, final=True))


#: What random paragraphs are made of: words, markup whole and in halves, breaks, long and wide
#: words, and lines that may begin another block.
_ATOMS = [
    "word", "lorem", "ipsum", "x", "**bold**", "*em*", "_u_", "`code`", "`a b`",
    "[link](https://e.org/a)", "**", "*", "`", "[", "](", "y" * 70, "日本語のテキスト", "😀",
    "&amp;", "\\*", "snake_case", "  \n", "\n", "   ", "<b>", "~~s~~", "1.", "-", "#", "a|b",
    "===", "<kbd>", "</kbd>",
]  # fmt: skip


def _paragraph(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(5, 120)):
        out.append(rng.choice(_ATOMS) if rng.random() < 0.3 else rng.choice(_ATOMS[:4]))
        out.append(rng.choice([" ", " ", " ", "", "\n", "  "]))
    return "".join(out)


@pytest.mark.parametrize("seed", range(40))
def test_random_paragraphs_streamed_and_resized_draw_what_rich_draws_whole(seed: int) -> None:
    rng = random.Random(seed)
    text = _paragraph(rng)
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    width = rng.choice([12, 20, 33, 60, 100])
    at = 0
    while at < len(text):
        step = rng.randint(1, 15)
        item.body.append(text[at : at + step])
        at += step
        if rng.random() < 0.05:
            width = rng.choice([12, 20, 33, 60, 100])  # (a resize while it streams)
        block.cache.clear()
        block.appended()
        drawn = block.lines(CONSOLE, width, PALETTE)
        assert cells(drawn) == cells(_whole(item.text, width)), (seed, at, width)
    item.final = True
    block.cache.clear()
    block.appended()
    assert cells(block.lines(CONSOLE, width, PALETTE)) == cells(_whole(text, width, final=True))


def _rich(text: Text, console: Console, width: int) -> list[list[Segment]]:
    """Rich's drawing of ``text``, line by line (as the lines a view is given: the segments
    Rich joins across a newline are split there)."""
    return list(Segment.split_lines(console.render(text, console.options.update(width=width))))


def _ours(drawing: OpenParagraph, text: Text, console: Console, width: int) -> list[list[Segment]]:
    return list(
        Segment.split_lines(drawing.render(text, console, console.options.update(width=width)))
    )


def test_a_change_before_the_end_draws_again_from_the_line_it_reaches() -> None:
    """Characters changed inside the text (an opener drawn as written until its closer came),
    and styles changed over characters that did not (a span over text drawn already)."""
    console = Console(width=40, color_system="truecolor")
    words = " ".join(f"word{n}" for n in range(60))
    before = Text("**" + words)
    after = Text(words, spans=[])
    after.stylize(Style(bold=True), 0, len(words))
    restyled = Text(words)
    restyled.stylize(Style(italic=True), 200, 260)
    drawing = OpenParagraph()
    for text in (before, after, Text(words), restyled, Text(words + " more words")):
        assert _ours(drawing, text, console, 40) == _rich(text, console, 40)


def test_what_rich_wraps_its_own_way_is_drawn_by_rich() -> None:
    """Tabs (Rich expands them), full justification (every line but the last spread), no
    wrapping: drawn by Rich whole, and nothing kept from them."""
    console = Console(width=30, color_system="truecolor")
    drawing = OpenParagraph()
    cases = [
        Text("a\tb " * 40),
        Text("spread words " * 20, justify="full"),
        Text("unwrapped " * 20, no_wrap=True),
    ]
    for text in cases:
        assert _ours(drawing, text, console, 30) == _rich(text, console, 30)
        assert drawing._drawn is None


def test_a_redraw_of_a_long_streaming_paragraph_wraps_and_renders_its_last_lines_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wrapped: list[int] = []
    divide = open_paragraph.divide_line

    def counted(text: str, width: int, fold: bool = True) -> list[int]:
        wrapped.append(len(text))
        return divide(text, width, fold)

    monkeypatch.setattr(open_paragraph, "divide_line", counted)
    text = " ".join(f"w{n % 100}" for n in range(4000))  # (about 15,000 characters)
    yielded = []
    for block, _item, drawn in streamed(text, random.Random(1), 40, 20):
        assert block.markdown is not None
        [paragraph] = block.markdown.open
        assert paragraph.paragraph is not None
        yielded.append((paragraph.paragraph.yielded, len(drawn)))
    assert len(yielded) > 100
    # Each of the last redraws wrapped a line or two of the text, not the text so far, and
    # only those lines went through the block's drawing: the rest are the block's own.
    assert max(wrapped[-100:]) < 3 * WIDTH, max(wrapped[-100:])
    assert all(lines <= 3 for lines, _ in yielded[-100:]), yielded[-100:]
    assert yielded[-1][1] > 100


def _fed(text: str, step: int) -> Iterator[tuple[Block, AssistantTurn, list[Strip]]]:
    """``text`` fed to a reply's block ``step`` characters at a time, drawn after each."""
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    for at in range(0, len(text), step):
        item.body.append(text[at : at + step])
        block.cache.clear()
        block.appended()
        yield block, item, block.lines(CONSOLE, WIDTH, PALETTE)


def test_lines_are_kept_only_from_the_drawing_the_view_holds() -> None:
    """Drawn elsewhere meanwhile (another width, another sink), the paragraph's drawing is
    not the one the block holds the lines of: the block's next drawing is whole."""
    for step, (block, item, drawn) in enumerate(_fed(" ".join("word" for _ in range(400)), 60)):
        assert block.markdown is not None
        [paragraph] = block.markdown.open
        drawing = paragraph.paragraph
        assert drawing is not None
        if step % 4 == 0:  # (another text, at the width the block draws it at)
            options = CONSOLE.options.update(width=WIDTH - 2)
            list(drawing.render(Text("other " + item.text), CONSOLE, options))
        assert cells(drawn) == cells(_whole(item.text)), step


def test_a_finished_paragraph_keeps_nothing_once_drawn() -> None:
    *_, (block, item, _drawn) = _fed(REPLIES["markup"], 50)
    markdown = block.reply_markdown(item)
    [open_block] = markdown.blocks()
    drawing = open_block.paragraph
    assert drawing is not None and drawing._drawn is not None
    item.final = True
    block.cache.clear()
    block.appended()
    block.lines(CONSOLE, WIDTH, PALETTE)
    [finished] = markdown.blocks()
    assert finished.paragraph is drawing  # (its last drawing made from what was kept)
    assert drawing._drawn is None and drawing.built is None


def test_a_part_whose_lines_above_the_paragraph_changed_is_drawn_again_whole() -> None:
    """The block holds a paragraph's lines drawn under a blank line (the block above wanted
    one), and the next drawing has none: the lines it would keep are not the block's, so the
    part is drawn again, whole, rather than spliced."""
    drawing = OpenParagraph()
    block = Block(AssistantTurn("reply", None, ""))

    def part(text: str, lead: bool, growing: OpenParagraph | None = drawing) -> Part:
        tokens = parser().parse(text)
        made = OpenParagraphMarkdown(
            tokens, growing or OpenParagraph(), code_theme="monokai", lead=lead
        )
        make = partial(Padding, Themed(made, PALETTE), (0, 0, 0, 2))
        return Part(key=object(), make=make, growing=growing)

    words = " ".join(f"word{n}" for n in range(300))
    block._part_lines(CONSOLE, part(words, True), WIDTH, PALETTE)
    drawn = block._part_lines(CONSOLE, part(words + " more", False), WIDTH, PALETTE)
    fresh = OpenParagraph()
    whole = block._part_lines(CONSOLE, part(words + " more", False, fresh), WIDTH, PALETTE)
    assert cells(drawn) == cells(whole)
    assert len(drawn) > 20


def test_the_text_of_settled_words_is_built_once_and_again_in_another_theme() -> None:
    """Rich's loop builds the text of what settled once (`OpenParagraphMarkdown`), then only the
    last words at each redraw; drawn in another theme, the kept text is built again in it."""
    text = REPLIES["markup"]
    flattened: list[int] = []
    built: list[int] = []
    flatten = OpenParagraphMarkdown._flatten_tokens
    text_of = OpenParagraphMarkdown._text_of

    def counted(self: OpenParagraphMarkdown, tokens: list[Token]) -> Iterator[Token]:
        listed = list(flatten(self, tokens))
        flattened.append(len(listed))
        return iter(listed)

    def building(self: OpenParagraphMarkdown, *args: Any) -> Text:
        built.append(len(args[-1]))
        return text_of(self, *args)

    other = Palette.from_colours({"primary": "#FF00FF", "secondary": "#00FFFF"}, dark=False)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(OpenParagraphMarkdown, "_flatten_tokens", counted)
        patched.setattr(OpenParagraphMarkdown, "_text_of", building)
        *_, (block, item, drawn) = _fed(text, 40)
        assert block.markdown is not None
        [paragraph] = block.markdown.open
        tokens = paragraph.tokens[1].children or []
        # Every settled token built into text once; each redraw's loop ran over a few words.
        assert paragraph.settled > 0.9 * len(tokens)
        assert sum(built) <= len(tokens)
        assert max(flattened[len(flattened) // 2 :]) < 40
        block.cache.clear()  # (what the view does when the theme changes: `redraw_all`)
        block.parts.clear()
        block.appended()
        themed = block.lines(CONSOLE, WIDTH, other)
    assert cells(drawn) == cells(_whole(item.text))
    whole = _whole(item.text, palette=other)
    assert [list(line) for line in themed] == [list(line) for line in whole]


def test_a_theme_changed_while_a_paragraph_streams_draws_all_of_it_in_the_new_theme() -> None:
    """The paragraph's drawing may keep its lines (the theme's text colour is not in its text),
    but the block's kept lines have the old colour in them: not used in another theme."""
    other = Palette.from_colours({"foreground": "#AA0000"}, dark=True)
    *_, (block, item, _drawn) = _fed(REPLIES["plain words"], 60)
    block.cache.clear()  # (what the view does when the theme changes: `redraw_all`)
    block.parts.clear()
    block.appended()
    themed = block.lines(CONSOLE, WIDTH, other)
    whole = _whole(item.text, palette=other)
    assert [list(line) for line in themed] == [list(line) for line in whole]


#: Replies of every block kind (headings, quotes, lists, fences, tables, rules, raw HTML,
#: definitions), with the inline constructs among them: the open block is any of them.
_BLOCK_ATOMS = [
    "# ", "## ", "> ", "- ", "* ", "1. ", "2) ", "```", "```python", "~~~", "`", "|",
    "| a | b |", "|---|---|", "---", "***", "===", "<kbd>", "</kbd>", "<div>", "</div>",
    "<!--", "-->", "<b>", "[x]: http://e.org", "[x]", "![a](b)", "[a](b)", "    ", "  ", "\n",
    "\n\n", "word", "lorem ipsum", "**", "*", "_", "~~", "\\", "&amp;", "&#x1b;", "- [ ] ",
    "<http://e.org>", "日本", "😀",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(30))
def test_random_replies_of_every_block_kind_streamed_draw_what_rich_draws_whole(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(
        rng.choice(_BLOCK_ATOMS) + rng.choice(["", " ", "\n", "  ", "\n\n"])
        for _ in range(rng.randint(5, 60))
    )
    width = rng.choice([20, 40, 80, 120])
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    at = 0
    while at < len(text):
        step = rng.randint(1, 20)
        item.body.append(text[at : at + step])
        at += step
        block.cache.clear()
        block.appended()
        drawn = block.lines(CONSOLE, width, PALETTE)
        assert cells(drawn) == cells(_whole(item.text, width)), (seed, at, width)
