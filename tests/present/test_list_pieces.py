"""A long list drawn in pieces (`openwop_tui.draw.list_pieces`): the same lines as drawn whole,
at every step of its streaming, and a redraw that parses and draws its last item only; and the
text's unfinished last line kept open with the block it may still join
(`openwop_tui.draw.markdown._settled`)."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from rich.console import Console, Group
from rich.markdown import ListItem
from streamed_support import CONSOLE, WIDTH, cells, streamed
from textual.strip import Strip

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw import list_pieces, markdown
from openwop_tui.draw.markdown import ReplyMarkdown
from openwop_tui.draw.palette import Palette
from openwop_tui.draw.rich_markdown import BlockMarkdown
from openwop_tui.present.dispatch import reply_body
from openwop_tui.ui.transcript.blocks import Block


def _bullets(count: int) -> str:
    return "".join(f"- item {n} with **bold** and `code`, a few words more\n" for n in range(count))


def _numbered(first: int, count: int) -> str:
    return "".join(
        f"{first + n}. step {n}: *emphasis* and [a link](https://e.org/{n})\n" for n in range(count)
    )


#: Replies whose lists stream in pieces, with what a list's drawing depends on as a whole: its
#: numbering (from 7 past 10, from 95 past 100: the numbers padded to the last one's width),
#: loose items, nested lists and lazy lines, code in an item, references defined below the
#: items that use them, a list ending in a paragraph, a rule or another list.
REPLIES = {
    "bullets": "Intro.\n\n" + _bullets(30) + "\nAfter the list.\n",
    "numbered past 10": _numbered(7, 12) + "\nAfter.\n",
    "numbered past 100": "Steps:\n\n" + _numbered(95, 9),
    "paren numbers": "".join(f"{n + 1}) item {n}\n" for n in range(12)),
    "loose": "".join(f"* loose item {n}\n\n" for n in range(10)) + "para\n",
    "nested and lazy": "- outer\n  - inner a\n  - inner b\n- outer two\n  more\nlazy line\n" * 5,
    "code in items": "- run this:\n\n  ```python\n  x = 1\n  print(x)\n  ```\n- then that\n" * 5,
    "references below": "- see [the docs]\n- and [Docs][r]\n" * 4
    + "\n[the docs]: https://e.org/d\n[r]: https://e.org/r\n",
    "ends in a rule": _bullets(6) + "---\n" + _bullets(3),
    "another list after": _bullets(5) + "\n" + _numbered(1, 5) + "+ plus\n+ plus again\n",
    "empty and task items": "-\n  starts on its second line\n- [ ] task\n- [x] done\n-\n" * 3,
}


def _drawn_whole(text: str, monkeypatch: pytest.MonkeyPatch) -> list[Strip]:
    """``text`` drawn as the streaming reply's block draws it, its lists drawn whole."""
    with monkeypatch.context() as patched:
        patched.setattr(ReplyMarkdown, "_settle_items", lambda self, *args: args[-1])
        return Block(AssistantTurn("reply", None, text)).lines(CONSOLE, WIDTH, Palette.default())


@pytest.mark.parametrize("name", list(REPLIES))
def test_a_streamed_list_draws_what_the_whole_list_draws_at_every_step(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = REPLIES[name]
    block = item = None
    for block, item, drawn in streamed(text, random.Random(name), 12):  # noqa: B007
        # (Each step compared as it is drawn: the item grows with the next.)
        whole = _drawn_whole(item.text, monkeypatch)
        assert cells(drawn) == cells(whole), f"{name} at {len(item.text)}"
    assert block is not None and item is not None
    pieces = [b for b in block.reply_markdown(item).blocks() if list_pieces.continues(b.tokens)]
    assert len(pieces) >= 3


def test_a_redraw_of_a_long_streaming_list_parses_and_draws_its_last_item_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed: list[str] = []
    parser = markdown._SHARED_PARSER
    real_parse = parser.parse

    def parse(text: str, env: Any = None) -> Any:
        parsed.append(text)
        return real_parse(text, env)

    drawn: list[int] = []
    real_bullet = ListItem.render_bullet

    def bullet(self: ListItem, console: Any, options: Any) -> Any:
        drawn.append(1)
        return real_bullet(self, console, options)

    made: list[int] = []
    real_init = BlockMarkdown.__init__

    def init(self: BlockMarkdown, *args: Any, **kwargs: Any) -> None:
        made.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(parser, "parse", parse)
    monkeypatch.setattr(ListItem, "render_bullet", bullet)
    monkeypatch.setattr(BlockMarkdown, "__init__", init)
    text = "Intro.\n\n" + _bullets(300)
    settled: dict[int, object] = {}
    steps = 0
    for block, item, _ in streamed(text, random.Random(1), 30, 10):
        steps += 1
        # Each redraw parses the last items and what came after them, and draws the items
        # settled by this chunk (a chunk is shorter than an item: two at most, the one left
        # open while the next one's first line was unfinished) and the open one; the items
        # above are the same blocks, drawn before.
        assert all(len(text) < 200 for text in parsed), parsed
        assert len(drawn) <= 3, (len(item.text), len(drawn))
        # (And only what is drawn is made: the kept items' markdown is not built again.)
        assert len(made) <= 3, (len(item.text), len(made))
        pieces = [
            b for b in block.reply_markdown(item).blocks() if b.tokens[0].type.startswith("bullet")
        ]
        for index, piece in enumerate(pieces[:-1]):
            assert settled.setdefault(index, piece) is piece
        parsed.clear()
        drawn.clear()
        made.clear()
    assert len(settled) > 290
    assert steps > 300


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("- a\n#", "foo\n"),  # a heading, then a lazy line of the item
        ("- a\n---", " b\n"),  # a rule, then a lazy line
        ("Words\n#", "foo\n"),  # a heading under a paragraph, then more of it
        ("1. a\n\n1", ". b\n"),  # a paragraph under the list, then its next item
        ("- a\n- b\n\n-", "- x\n"),  # the list's next item, then a rule (- - x is not)
        ("1. a\n2. b\n3", "0. c\n"),  # a lazy line, then the 30th item (Rich: numbered 3)
    ],
)
def test_an_unfinished_last_line_stays_open_with_the_block_it_may_join(
    first: str, then: str
) -> None:
    reply = ReplyMarkdown()
    reply.feed(first)
    reply.update()
    reply.feed(then)
    assert _text(reply) == _text(ReplyMarkdown.whole(first + then))


def test_a_settled_item_is_linked_by_a_definition_below_and_keeps_its_number() -> None:
    reply = ReplyMarkdown()
    for line in [*(f"{n + 8}. see [docs]\n" for n in range(4)), "\n", "[docs]: https://e.org\n"]:
        reply.feed(line)
        reply.update()
    drawn = _text(reply)
    assert drawn.count("see docs (https://e.org)") == 4
    assert [line.split()[0] for line in drawn.splitlines() if "see" in line] == [
        "8",
        "9",
        "10",
        "11",
    ]


def _text(reply: ReplyMarkdown) -> str:
    """The reply's markdown as the app draws it, in plain text."""
    drawn = Group(*(part.renderable for part in reply_body(reply, Palette.default())))
    console = Console(width=80, color_system=None, file=io.StringIO())
    lines = console.render_lines(drawn, console.options, pad=False)
    return "\n".join("".join(s.text for s in line).rstrip() for line in lines).strip("\n")
