"""Markdown is cleaned after parsing: character references cannot decode into controls."""

from __future__ import annotations

import io
import re

import pytest
from render_helpers import envelope, render
from rich.console import Console

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw.palette import Palette
from openwop_tui.draw.rich_markdown import SafeMarkdown
from openwop_tui.present import dispatch
from openwop_tui.renderers.base import RenderContext
from openwop_tui.text.markdown import markdown_parser
from openwop_tui.ui.transcript.blocks import Block

BAD = re.compile(
    "[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
REFERENCES = ["&#x202e;", "&#8238;", "&rlm;", "&lrm;", "&#x2066;", "&#x61c;", "&#27;", "&#x9b;"]
PLACES = [
    "invoice_{}fdp.exe",
    "`code {}`",
    "[link{}](http://example.com/{})",
    '![alt{}](http://example.com/a.png "title{}")',
    "```py{}\nx = 1{}\n```",
    "| a{} |\n|---|\n| b{} |",
    "# heading {}",
]


def printed(renderable: object) -> str:
    sink = io.StringIO()
    Console(file=sink, force_terminal=True, color_system="truecolor", width=100).print(renderable)
    # Rich's own styling is SGR only; anything else (or a bidi control) came from the host.
    return re.sub(r"\x1b\[[0-9;]*m", "", sink.getvalue())


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("place", PLACES)
def test_rich_markdown_tokens_are_cleaned_after_parsing(reference: str, place: str) -> None:
    source = place.replace("{}", reference)
    assert BAD.search(printed(SafeMarkdown(source, hyperlinks=False))) is None
    turn = AssistantTurn("a-1", None, text=source, final=True)
    assert BAD.search(printed(dispatch.renderable(turn, Palette.default()))) is None
    rendered = render(
        envelope("vendor.x", {"markdown": source}, {"display": "markdown"}), RenderContext()
    )
    assert BAD.search(printed(rendered.body)) is None


@pytest.mark.parametrize("reference", REFERENCES)
@pytest.mark.parametrize("place", PLACES)
def test_the_textual_parser_cleans_tokens_and_children(reference: str, place: str) -> None:
    stack = list(markdown_parser().parse(place.replace("{}", reference)))
    while stack:
        token = stack.pop()
        for text in [token.content, token.info, *map(str, (token.attrs or {}).values())]:
            assert BAD.search(text) is None, (token.type, text)
        stack.extend(token.children or [])


@pytest.mark.parametrize("reference", REFERENCES)
def test_the_streaming_reply_is_cleaned_after_parsing(reference: str) -> None:
    turn = AssistantTurn("a-1", None)
    block = Block(turn)
    console = Console(width=80, color_system=None, file=io.StringIO())
    for piece in ("A file: invoice_", reference, "fdp.exe\n\nnext ", reference, " block"):
        turn.body.append(piece)  # streamed: the reference is split from its text
        block.appended()
        block.changed()
        drawn = "\n".join(line.text for line in block.lines(console, 80, Palette.default()))
    assert "invoice_" in drawn and BAD.search(drawn) is None
