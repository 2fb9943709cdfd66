"""One draw path: the app's transcript view and the printer draw a reply alike, construct by
construct, while it streams and once it is done, and no screen ever shows a chunk twice.

The oracle is Rich drawing the whole text at once (what ``render`` printed before streaming was
split on tokens): the view's lines after every streamed chunk must be that drawing of the text
so far, at the same width, cut anywhere. The recording in ``tests/data/captures`` (a reference
link defined after its use, a setext heading, a table) is replayed through the app with speed 0
and must read as ``render`` prints it.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from app_support import NO_AUDIO, settle
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import TESTS
from patience import PATIENCE
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.padding import Padding
from test_streamed_envelopes import Stream
from test_streamed_envelopes import rendered as streamed_render
from textual.app import App, ComposeResult

from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.config import Config
from openwop_tui.core.fold import AssistantTurn, EnvelopeItem, Transcript
from openwop_tui.draw.markdown import ReplyMarkdown
from openwop_tui.draw.palette import Palette, Themed
from openwop_tui.draw.rich_markdown import BlockMarkdown, SafeMarkdown
from openwop_tui.present.dispatch import reply_body
from openwop_tui.present.envelope import FRAGMENT
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import RenderContext
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.options import AppOptions, Replay
from openwop_tui.ui.transcript.view import TranscriptView

CAPTURE = TESTS / "data" / "captures" / "reference-setext-table.sse"
WIDTH = 60
"""The view's content width in `ViewHost` (its 65 columns less the gutter and the scrollbar)."""

CORPUS = {
    "reference after use": "See [the docs][1] and [more].\n\n[1]: https://example.org/d\n"
    '[more]: <https://example.org/m> "M"\n',
    "reference before use": "[x]: https://example.org/x\n\nA [x] link, and [y][x].\n",
    "setext headings": "Title\n=====\n\ntext\n\nSub\n---\nafter\n",
    "setext or rule": "para\n---\n\n---\n\nend\n",
    "table": "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nafter\n",
    "html block": "<div>\nhi *there*\n</div>\n\n<!-- note -->\ntext\n",
    "footnote": "A claim[^1].\n\n[^1]: the source\n",
    "list across chunks": "- one\n- two\n\n  still two\n- three\n\n3. three\n4. four\n",
    "fence": "```python\nx = 1\n\ny = 2\n```\n\n~~~\nraw\n~~~\n",
    "quote with lazy line": "> quoted\nlazy\n\n> again\n",
    "inline across chunks": "**bold** and *em* and `code` and ~~gone~~ and &amp; &#x202e;x\n",
    "indented code": "    code\n    more\n\ntext\n",
    "hard break": "line one  \nline two\\\nline three\n",
    "lazy line or heading under a list": "- a\n#foo\n- b\n#\n--- c\n",
    "a list across blank lines": "1. a\n\n1. b\n\n10. c\n- d\n- e\n- f\n",
}


def oracle(text: str) -> list[str]:
    """Rich drawing the whole text at once, as the printer's body is indented."""
    palette = Palette.default()
    body = Themed(SafeMarkdown(text, code_theme=palette.syntax_theme(), hyperlinks=False), palette)
    return lines_of(Padding(body, (0, 0, 0, 2)), WIDTH)


def lines_of(renderable: Any, width: int) -> list[str]:
    console = Console(width=width, color_system=None, file=io.StringIO())
    drawn = console.render_lines(renderable, console.options.update(width=width), pad=False)
    return trimmed(["".join(segment.text for segment in line) for line in drawn])


def trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def chunk(text: str, seq: int) -> RunEvent:
    payload = {"chunk": text, "nodeId": "n"}
    return normalize({"type": "output.chunk", "sequence": seq, "nodeId": "n", "payload": payload})


def completed(text: str, seq: int) -> RunEvent:
    payload = {"nodeId": "n", "outputs": {"completion": text}}
    return normalize({"type": "node.completed", "sequence": seq, "nodeId": "n", "payload": payload})


class ViewHost(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


async def printed(text: str) -> list[str]:
    """What the printer (``render``) prints for a reply of ``text``, at the view's width."""
    out = io.StringIO()
    console = Console(file=out, width=WIDTH, color_system=None)
    printer = TranscriptPrinter(
        console, RenderContext(), verbose=False, registry=Registry(plugins=False).load()
    )
    transcript = Transcript()
    await printer.feed(transcript.apply(chunk(text, 1)))
    await printer.feed(transcript.apply(completed(text, 2)))
    await printer.flush()
    return trimmed(out.getvalue().splitlines())


async def streamed_through_the_view(
    view: TranscriptView, pieces: list[str]
) -> list[tuple[str, list[str]]]:
    """The reply's text and its body lines on screen after each piece (each coalesced redraw),
    then its lines once completed."""
    transcript = Transcript()
    screens = []
    for seq, piece in enumerate(pieces, 1):
        await view.apply(transcript.apply(chunk(piece, seq)))
        view.flush_streamed()  # the coalesced redraw, now (its timer would do it within 40 ms)
        [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
        # Below the heading: the body.
        screens.append((turn.text, trimmed(view.text_of(turn.id).split("\n"))[1:]))
    await view.apply(transcript.apply(completed("".join(pieces), len(pieces) + 1)))
    screens.append((turn.text, trimmed(view.text_of(turn.id).split("\n"))))
    await view.clear()
    return screens


@pytest.mark.parametrize("name", sorted(CORPUS))
async def test_the_view_draws_every_cut_as_the_whole_text_is_drawn(name: str) -> None:
    """Two chunks, cut at every position, and one chunk per character: after every redraw the
    view shows exactly the text so far (no chunk twice, no construct read differently), and
    the finished reply reads as the printer prints it."""
    text = CORPUS[name]
    app = ViewHost()
    async with app.run_test(size=(65, 24)):
        view = app.query_one(TranscriptView)
        assert view.content_width == WIDTH
        final = await printed(text)
        cuts: list[list[str]] = [[text[:i], text[i:]] for i in range(1, len(text))]
        for pieces in [*cuts, list(text)]:
            screens = await streamed_through_the_view(view, pieces)
            for count, (shown, screen) in enumerate(screens[:-1], 1):
                # What the fold shows so far (an OpenClaw directive may be held back while it
                # could still be one), drawn as a whole text is drawn.
                assert "".join(pieces[:count]).startswith(shown)
                # Nothing to draw yet (no text, blank lines, a definition): the reply says it waits.
                drawable = bool(ReplyMarkdown.whole(shown).blocks())
                wanted = oracle(shown) if drawable else ["  …"]
                assert screen == wanted, (pieces, count)
            assert screens[-1][1] == final, pieces


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(CORPUS)),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=12),
)
def test_streamed_blocks_match_the_whole_parse_at_any_cuts(name: str, cuts: list[int]) -> None:
    """The token split itself, at arbitrary cut points: every state is the whole parse."""
    text = CORPUS[name]
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    markdown = ReplyMarkdown()
    palette = Palette.default()
    for start, end in itertools.pairwise(points):
        markdown.feed(text[start:end])
        drawn = lines_of(Group(*(part.renderable for part in reply_body(markdown, palette))), WIDTH)
        assert drawn == oracle(text[:end])
    assert markdown.text == text


async def test_the_first_chunk_is_drawn_once_while_the_reply_streams() -> None:
    """The demo's slow reply read ``Coming ## Coming right up`` until it completed: the view was
    given the first chunk twice (the item held it when added, and the change repeated it)."""
    app = ViewHost()
    async with app.run_test(size=(65, 24)):
        view = app.query_one(TranscriptView)
        transcript = Transcript()
        await view.apply(transcript.apply(chunk("Coming ", 1)))
        await view.apply(transcript.apply(chunk("right up", 2)))
        view.flush_streamed()
        [turn] = transcript.items
        assert view.text_of(turn.id).split("\n")[1].strip() == "Coming right up"


def test_references_defined_later_relink_finished_blocks_only_when_they_can() -> None:
    markdown = ReplyMarkdown()
    markdown.feed("Plain words.\n\nSee [a][Docs].\n\nSee [b][other].\n\nMore words.\n\n")
    markdown.update()
    plain, linked, elsewhere = markdown.finished[:3]
    markdown.feed("[docs]: https://example.org/a\n\nend\n")
    blocks = markdown.blocks()
    assert blocks[0] is plain  # no "]": the new definition cannot change it, it stays drawn
    assert blocks[2] is elsewhere  # uses another label: stays drawn
    assert blocks[1] is not linked  # parsed again: now a link (labels match case-folded)
    assert any(t.type == "link_open" for t in blocks[1].tokens[1].children or [])


def render_command(path: Path, width: int, *flags: str) -> list[str]:
    env = {**os.environ, "COLUMNS": str(width), "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "openwop_tui", "render", str(path), *flags],
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENCE,
        check=True,
    )
    return done.stdout.splitlines()


async def test_a_replayed_recording_is_drawn_in_the_app_as_render_prints_it() -> None:
    """``replay FILE --speed 0`` of a reply with a reference-style link defined after its use,
    a setext heading and a table: the app's lines are ``render``'s."""
    app = ChatApp(
        Config(audio=False, images="none"),
        AppOptions(replay=Replay(path=CAPTURE, speed=0)),
        audio_support=NO_AUDIO,
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app, lambda: app.status.connection == "replayed", what="end")
        [turn] = [i for i in app.transcript.items if isinstance(i, AssistantTurn)]
        assert turn.final
        width = app.view.content_width
        in_app = trimmed(app.view.text_of(turn.id).split("\n"))
    printed_lines = render_command(CAPTURE, width)
    start = printed_lines.index(in_app[0])
    assert trimmed(printed_lines[start : start + len(in_app)]) == in_app
    shown = "\n".join(in_app)
    assert "See the docs (https://example.org/docs)" in shown
    assert "[the docs][1]" not in shown and "=====" not in shown and "|---|" not in shown


#: The lint marks the app adds to an envelope's badge (the inspector is an app feature).
_MARKS = re.compile(" · [\u2716\u26a0\u2139] OW\\d+( OW\\d+)*$")


def unmarked(lines: list[str]) -> list[str]:
    """The app's lines without the lint marks: the drawing itself is the same as printed."""
    return [_MARKS.sub("", line) for line in lines]


async def test_envelopes_are_drawn_in_the_app_as_render_prints_them() -> None:
    """One envelope path: the same body width (the columns less the indent), the same offline
    asset for a URL, the same renderers, so a code block, a card and an image that was not
    fetched read alike in the app and in ``render`` (the app adds only its buttons)."""
    capture = CAPTURE.with_name("example-rich-envelopes.sse")
    config = Config(audio=False, images="halfblock")
    app = ChatApp(config, AppOptions(replay=Replay(path=capture, speed=0)), audio_support=NO_AUDIO)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, app, lambda: app.status.connection == "replayed", what="end")
        width = app.view.content_width
        wanted = [
            item
            for item in app.transcript.items
            if isinstance(item, EnvelopeItem)
            and (
                item.envelope.display in ("code", "card")
                or "Q3 revenue" in (item.envelope.rendering.title or "")
            )
        ]
        drawn = {}
        for item in wanted:
            block = app.view.block_for(item.id)
            assert block is not None
            app.view.show_at_top(app.view.blocks().index(block))  # drawn once it is seen
            await settle(pilot, app, lambda b=block: b.rendered is not None, what="drawn")
            drawn[item.id] = trimmed(app.view.text_of(item.id).split("\n"))
    printed_lines = render_command(capture, width)
    assert len(drawn) == 3
    for display, lines in drawn.items():
        shown = [line for line in lines if not line.lstrip().startswith("[")]  # the buttons
        start = printed_lines.index(shown[0])
        assert trimmed(printed_lines[start : start + len(shown)]) == unmarked(shown), display


async def test_an_image_is_scaled_to_the_same_body_width_in_the_app_and_render() -> None:
    """An image wider than the terminal is drawn at the body width: the width is decided in
    one place (`openwop_tui.present.envelope.body_width`), for both sinks."""
    capture = CAPTURE.with_name("wide-image.sse")
    config = Config(audio=False, images="halfblock")
    app = ChatApp(config, AppOptions(replay=Replay(path=capture, speed=0)), audio_support=NO_AUDIO)
    async with app.run_test(size=(90, 40)) as pilot:
        await settle(pilot, app, lambda: app.status.connection == "replayed", what="end")
        [item] = [i for i in app.transcript.items if isinstance(i, EnvelopeItem)]
        block = app.view.block_for(item.id)
        assert block is not None
        await settle(pilot, app, lambda: block.rendered is not None, what="drawn")
        width = app.view.content_width
        lines = trimmed(app.view.text_of(item.id).split("\n"))
    shown = [line for line in lines if not line.lstrip().startswith("[")]
    pixels = [line for line in shown if "▄" in line]
    assert pixels and all(len(line) == width for line in pixels)  # the indent and the body
    printed_lines = render_command(capture, width, "--images", "halfblock")
    start = printed_lines.index(shown[0])
    assert trimmed(printed_lines[start : start + len(shown)]) == unmarked(shown)


def test_a_printed_fragment_says_so_in_its_title_as_in_the_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fragment rule (RFC E1) is applied where envelopes are drawn, for every sink: the
    printer's last fragment of an emission that never completed is titled as the app's is."""
    stream = Stream().fragment("em", 0, "first_fragment = 1", partial=True).log("after")
    out = streamed_render(stream, monkeypatch, capsys)
    [title] = [line for line in out.splitlines() if FRAGMENT in line]
    assert title.startswith("code")


def test_a_block_drawing_carries_every_attribute_rich_markdown_sets() -> None:
    """`BlockMarkdown` skips ``Markdown.__init__`` (it parses, and a redraw makes one per
    block): if Rich's constructor grows an attribute, this says so."""
    made = BlockMarkdown([], code_theme="monokai", lead=False)
    assert set(vars(Markdown(""))) <= set(vars(made))


async def test_a_reply_past_its_cap_is_not_drawn_again_as_its_cut_grows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past its cap a reply's text stops growing, but each chunk still grows the count its
    marker says was cut: its redraw draws the marker, not the text again (a flood's reply is a
    megabyte of one paragraph: most of a second a redraw, at its end too)."""
    from openwop_tui.core.limits import Limits
    from openwop_tui.ui.transcript import blocks

    app = ViewHost()
    async with app.run_test(size=(65, 24)):
        view = app.query_one(TranscriptView)
        transcript = Transcript(limits=Limits(reply_bytes=200))
        await view.apply(transcript.apply(chunk("word " * 60, 1)))  # past the cap at once
        view.flush_streamed()
        [turn] = transcript.items
        before = view.text_of(turn.id)
        drawn: list[object] = []
        original = blocks.render_lines

        def counted(console: Console, renderable: Any, width: int) -> Any:
            drawn.append(renderable)
            return original(console, renderable, width)

        monkeypatch.setattr(blocks, "render_lines", counted)
        await view.apply(transcript.apply(chunk("more " * 60, 2)))  # cut, counted
        view.flush_streamed()
        after = view.text_of(turn.id)
        assert after != before  # the marker says more was cut
        assert after.split("\n")[:3] == before.split("\n")[:3]  # the text is as it was
        bodies = [r for r in drawn if isinstance(r, Padding) and isinstance(r.renderable, Themed)]
        assert not bodies, drawn  # its markdown was not drawn again
