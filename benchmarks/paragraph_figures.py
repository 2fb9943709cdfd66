"""A long paragraph streaming: what one redraw of the reply costs (issue 26, part 5: a growing
reply drawn again from its last lines).

``paragraph``: a reply that is one paragraph (the flood's words ``w0 w1 …``, and prose with bold,
inline code and links every few words) streamed into the app's own transcript block in chunks
of 40 characters, each chunk followed by the redraw the view makes of a streaming reply; the
median of the last 20 redraws at about 26 KB and 540 KB. Beside each, in the same run, the same
redraws with the open paragraph parsed, built and drawn by Rich whole (what the app did before
`openwop_tui.draw.open_paragraph` and `openwop_tui.draw.open_inline`): its inline text is parsed,
its text built, wrapped and rendered again from its first word.
"""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console

from benchmarks.figures import Figure, figure
from openwop_tui.core.items import AssistantTurn
from openwop_tui.draw.markdown import ReplyMarkdown
from openwop_tui.draw.open_inline import OpenInline
from openwop_tui.draw.palette import Palette
from openwop_tui.ui.transcript.blocks import Block

#: The transcript's width, and the console the block is drawn with.
WIDTH = 118
CONSOLE = Console(width=120, file=io.StringIO(), color_system="truecolor")
#: Characters a chunk adds, and the redraws timed (the last ones, at the text's full size).
CHUNK = 40
TIMED = 20
#: A redraw within a frame at 60 frames a second leaves the loop its keys.
TARGET_MS = 16.0


def _words(count: int) -> str:
    return " ".join(f"w{n % 100}" for n in range(count))


def _prose(count: int) -> str:
    rng = random.Random(26)
    out = []
    for n in range(count):
        word = rng.choice(["lorem", "ipsum", "dolor", "sit", "amet", "adipiscing", "elit"])
        if n % 17 == 0:
            word = f"**{word}**"
        elif n % 23 == 0:
            word = f"`{word}`"
        elif n % 41 == 0:
            word = f"[{word}](https://example.org/{n})"
        out.append(word)
    return " ".join(out)


@contextmanager
def _drawn_whole() -> Iterator[None]:
    """The open paragraph parsed and drawn by Rich whole, as before (no drawing kept between
    parses, no inline parse resumed)."""
    keep, resume = ReplyMarkdown._keep_paragraph, OpenInline.parse

    def parse_whole(self: OpenInline, content: str, md: Any, env: Any) -> list[Any]:
        return md.inline.parse(content, md, env, [])  # type: ignore[no-any-return]

    ReplyMarkdown._keep_paragraph = lambda self, *args: None  # type: ignore[method-assign]
    OpenInline.parse = parse_whole  # type: ignore[method-assign]
    try:
        yield
    finally:
        ReplyMarkdown._keep_paragraph = keep  # type: ignore[method-assign]
        OpenInline.parse = resume  # type: ignore[method-assign]


def _redraw_ms(text: str) -> float:
    """The median redraw (ms) of the last `TIMED` chunks of ``text`` streamed into a block."""
    palette = Palette.default()
    item = AssistantTurn("reply", None, "")
    block = Block(item)
    head = len(text) - CHUNK * TIMED
    # (The text up to the timed chunks streamed too, in bigger steps: what is kept between
    # redraws is there as it is in the app, whatever its size.)
    for at in range(0, head, max(CHUNK, head // 50)):
        item.body.append(text[at : min(head, at + max(CHUNK, head // 50))])
        block.cache.clear()
        block.appended()
        block.lines(CONSOLE, WIDTH, palette)
    times = []
    for at in range(head, len(text), CHUNK):
        item.body.append(text[at : at + CHUNK])
        block.cache.clear()
        block.appended()
        start = time.perf_counter()
        block.lines(CONSOLE, WIDTH, palette)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


@figure("paragraph")
async def paragraph() -> list[Figure]:
    """One redraw of a reply whose open block is a long paragraph, against drawing it whole."""
    figures = []
    for name, text in (
        ("paragraph_words_26kb_redraw_ms", _words(7_000)[:26_000]),
        ("paragraph_words_540kb_redraw_ms", _words(140_000)[:540_000]),
        ("paragraph_prose_26kb_redraw_ms", _prose(4_000)[:26_000]),
        ("paragraph_prose_540kb_redraw_ms", _prose(80_000)[:540_000]),
    ):
        ours = _redraw_ms(text)
        with _drawn_whole():
            whole = _redraw_ms(text)
        figures.append(
            Figure(
                name,
                ours,
                "ms",
                "the same redraws, the paragraph parsed, built, wrapped and drawn whole (ms)",
                whole,
                f"<= {TARGET_MS:g} ms",
                ours <= TARGET_MS,
                note=f"{len(text) / 1000:.0f} KB of one paragraph, median of the last {TIMED}",
            )
        )
    return figures
