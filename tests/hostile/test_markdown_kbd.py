"""Raw ``<kbd>`` tags in a reply's markdown: Rich styles a pair, and a ``</kbd>`` that closes
nothing, which popped Rich's style stack empty and stopped the app, is left out
(`openwop_tui.draw.rich_markdown.KbdClosed`), in a reply and in a renderer's markdown."""

from __future__ import annotations

import pytest
from rich.console import Console
from streamed_support import CONSOLE, WIDTH

from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw.palette import Palette
from openwop_tui.draw.rich_markdown import SafeMarkdown
from openwop_tui.ui.transcript.blocks import Block

#: Markdown with ``</kbd>`` s that close nothing, and a word of it that must be drawn.
TEXTS = {
    "a </kbd> b": "b",
    "a </kbd></kbd></kbd> b": "b",
    "</kbd>": "",
    "- item </kbd></kbd>\n- <kbd>two</kbd></kbd></kbd>": "two",
    "> quoted </kbd></kbd> and **bold </kbd>**": "bold",
    "<kbd>open and never closed\n\nnext </kbd></kbd> paragraph": "paragraph",
    "| a </kbd></kbd> | b |\n|---|---|\n| </kbd></kbd> | c |": "c",
    "# heading </kbd></kbd>": "heading",
}


@pytest.mark.parametrize("text", list(TEXTS))
def test_a_reply_with_kbd_tags_that_close_nothing_is_drawn(text: str) -> None:
    for streamed in (False, True):
        item = AssistantTurn("reply", None, text, final=not streamed)
        lines = Block(item).lines(CONSOLE, WIDTH, Palette.default())
        drawn = "\n".join(line.text for line in lines)
        assert "kbd" not in drawn  # (a tag is never shown, as Rich shows none)
        assert TEXTS[text] in drawn


@pytest.mark.parametrize("text", list(TEXTS))
def test_a_renderer_s_markdown_with_kbd_tags_that_close_nothing_is_drawn(text: str) -> None:
    console = Console(width=60, record=True, file=None, color_system=None)
    with console.capture():
        console.print(SafeMarkdown(text))


def test_a_pair_is_still_styled_as_rich_styles_it() -> None:
    item = AssistantTurn("reply", None, "press <kbd>Ctrl</kbd> now </kbd>", final=True)
    lines = Block(item).lines(CONSOLE, WIDTH, Palette.default())
    [line] = [line for line in lines if "Ctrl" in line.text]
    styles = {segment.text: segment.style for segment in line if segment.text.strip()}
    assert styles["Ctrl"] is not None and styles["Ctrl"].bold
    assert "now" in line.text
