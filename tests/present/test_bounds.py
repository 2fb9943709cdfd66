"""Bounded by design: replies, reasoning, tool calls and the events panel have caps that show;
what is past a cap is kept and saved; audio and image decoding are budgeted (issue #5, part 5).

No timing anywhere: each protection is checked by what it leaves behind (the parts a buffer
keeps, the source Textual's markdown re-reads, the reservations a decode runs inside, the
allocation the audio decoder never made).
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from app_support import SIZE, connected, demo_app, items_of, plain, run_over, settle
from render_helpers import media, render
from rich.console import Console

from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.config import Config, ConfigError
from openwop_tui.core import overflow
from openwop_tui.core.fold import (
    AssistantTurn,
    Limits,
    Reasoning,
    ToolCall,
    Transcript,
    Updated,
)
from openwop_tui.devices.audio import PlaybackError, Player
from openwop_tui.draw.markdown import ReplyMarkdown
from openwop_tui.draw.palette import Palette
from openwop_tui.present import dispatch
from openwop_tui.present import items as present
from openwop_tui.protocol.events import RunEvent, normalize
from openwop_tui.renderers import Registry
from openwop_tui.renderers import image as image_renderer
from openwop_tui.renderers.base import RenderContext

SMALL = Limits(reply_bytes=100, reasoning_bytes=50, tool_bytes=40, events_shown=5)


def event(kind: str, payload: dict[str, Any], seq: int, node: str | None = "n") -> RunEvent:
    doc: dict[str, Any] = {"type": kind, "sequence": seq, "payload": payload}
    if node is not None:
        doc["nodeId"] = node
        payload.setdefault("nodeId", node)
    return normalize(doc)


def chunk(text: str, seq: int) -> RunEvent:
    return event("output.chunk", {"chunk": text}, seq)


def completed(seq: int, completion: str | None = None) -> RunEvent:
    outputs = {"completion": completion} if completion is not None else {}
    return event("node.completed", {"outputs": outputs}, seq)


# ------------------------------------------------------------------ text that grows


def test_streamed_reply_keeps_its_deltas_as_parts_not_one_growing_string() -> None:
    transcript = Transcript()
    for seq in range(1, 1001):
        transcript.apply(chunk("tok ", seq))
    [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
    # 1,000 parts, none joined yet: `str +=` per token would copy the whole reply each time.
    assert len(turn.body._parts) == 1000
    assert turn.text == "tok " * 1000  # joined once, when read
    assert len(turn.body._parts) == 1  # and the join is kept


def test_a_reply_past_its_cap_stops_growing_keeps_the_rest_and_says_by_how_much() -> None:
    transcript = Transcript(limits=SMALL)
    deltas: list[str | None] = []
    for seq in range(1, 21):
        for change in transcript.apply(chunk("x" * 9 + "\n", seq)):
            if isinstance(change, Updated):
                deltas.append(change.delta)
    [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
    assert turn.text == ("x" * 9 + "\n") * 10  # exactly 100 bytes drawn
    assert turn.full_text == ("x" * 9 + "\n") * 20  # everything kept
    assert turn.body.cut_bytes == 100
    assert deltas[10:] == [""] * 10  # past the cap nothing more reaches the view
    shown = plain(dispatch.renderable(turn, Palette.default()))
    assert "reply cut at 100 bytes: 100 bytes more not shown" in shown


def test_the_cut_never_splits_a_character() -> None:
    transcript = Transcript(limits=Limits(reply_bytes=5))
    transcript.apply(chunk("ééé", 1))  # 6 bytes: the third é does not fit
    [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
    assert turn.text == "éé"
    assert turn.full_text == "ééé"
    assert turn.body.cut_bytes == 2


def test_a_completion_that_replaces_the_text_is_capped_the_same_way() -> None:
    transcript = Transcript(limits=SMALL)
    transcript.apply(chunk("draft", 1))
    transcript.apply(completed(2, "y" * 1000))
    [turn] = [i for i in transcript.items if isinstance(i, AssistantTurn)]
    assert turn.final
    assert turn.text == "y" * 100
    assert turn.full_text == "y" * 1000
    assert turn.body.cut_bytes == 900


def test_reasoning_is_capped_streamed_and_authoritative() -> None:
    transcript = Transcript(limits=SMALL)
    transcript.apply(event("agent.reasoning.delta", {"agentId": "a", "delta": "r" * 80}, 1))
    [item] = [i for i in transcript.items if isinstance(i, Reasoning)]
    assert item.text == "r" * 50 and item.body.cut_bytes == 30
    transcript.apply(event("agent.reasoned", {"agentId": "a", "reasoning": "z" * 70}, 2))
    assert item.done and item.text == "z" * 50 and item.full_text == "z" * 70
    assert "reasoning cut at 50 bytes: 20 bytes more not shown" in plain(present.reasoning(item))


def test_streaming_reasoning_is_drawn_from_its_tail_only() -> None:
    item = Reasoning("r-1", "agent")
    for _ in range(1000):
        item.body.append("thinking hard ")
    # (Each line's padding to the width aside: the text is indented as a block.)
    drawn = "\n".join(
        line.rstrip() for line in plain(present.reasoning(item), width=10_000).splitlines()
    )
    # A token redraws at most the tail, not everything thought so far...
    assert len(drawn) < present.REASONING_TAIL + 100
    item.done = True
    # ...and once done, all of it shows.
    assert len(plain(present.reasoning(item), width=100_000)) > 14_000


def test_tool_inputs_and_results_past_the_cap_say_so_and_are_serialised_once() -> None:
    transcript = Transcript(limits=SMALL)
    transcript.apply(
        event("agent.toolCalled", {"callId": "c", "toolName": "t", "inputs": {"q": "i" * 100}}, 1)
    )
    transcript.apply(
        event("agent.toolReturned", {"callId": "c", "outcome": {"rows": ["o" * 50] * 4}}, 2)
    )
    [call] = [i for i in transcript.items if isinstance(i, ToolCall)]
    assert len(call.inputs_json.encode()) <= 40 and call.inputs_cut > 0
    assert len(call.outcome_json.encode()) <= 40 and call.outcome_cut > 0
    assert call.inputs == {"q": "i" * 100}  # the value itself is kept whole
    line = plain(present.tool_call(call), width=300)
    assert "tool inputs cut at 40 bytes" in line and "tool result cut at 40 bytes" in line


# -------------------------------------------------------------- what is cut is saved


def test_a_cut_item_is_saved_only_once_final(tmp_path: Path) -> None:
    turn = AssistantTurn("assistant-1", "n", "a" * 300, limit=100)
    assert not overflow.needs_saving(turn)  # still streaming: it may grow
    turn.final = True
    assert overflow.needs_saving(turn)
    path = overflow.save(turn, tmp_path)
    assert path.read_text() == "a" * 300
    assert turn.saved_to == str(path) and not overflow.needs_saving(turn)
    assert f"saved to {path}" in plain(dispatch.renderable(turn, Palette.default()), width=300)


async def test_the_printer_writes_the_full_reply_and_prints_its_path(tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, width=300, color_system=None)
    printer = TranscriptPrinter(
        console, RenderContext(), overflow_dir=tmp_path, registry=Registry().load()
    )
    transcript = Transcript(limits=SMALL)
    for seq in range(1, 11):
        await printer.feed(transcript.apply(chunk("w" * 49 + "\n", seq)))
    await printer.feed(transcript.apply(completed(11)))
    await printer.flush()
    [saved] = list(tmp_path.iterdir())
    assert saved.read_text() == ("w" * 49 + "\n") * 10
    assert f"reply cut at 100 bytes: 400 bytes more not shown · saved to {saved}" in out.getvalue()


async def test_the_app_saves_a_cut_reply_and_its_widget_says_where(tmp_path: Path) -> None:
    app = demo_app(download_dir=str(tmp_path), max_reply_bytes=40)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press(*"hello", "enter")
        await settle(pilot, app, lambda: run_over(app), what="the run ended")
        [reply] = items_of(app, AssistantTurn)
        assert reply.final and reply.body.cut and len(reply.text.encode()) <= 40
        [saved] = list(tmp_path.iterdir())
        assert saved.read_text() == reply.full_text
        drawn = " ".join(app.view.text_of(reply.id).split())
        assert f"saved to {saved}" in drawn


# ------------------------------------------------------------- the streaming widget


def test_a_streamed_reply_redraws_only_its_open_block() -> None:
    markdown = ReplyMarkdown()
    text = "".join(f"Paragraph {n} with some words.\n\n" for n in range(200))
    text += "```\ncode\n\nstill code\n```\n\n  indented continuation\n"
    for line in text.splitlines(keepends=True):
        markdown.feed(line)
        markdown.update()
    # What is drawn again on the next token: the open block only; the rest is cached.
    assert len(markdown.finished) == 201  # the 200 paragraphs and the fence (never cut)
    [fence] = [b for b in markdown.finished if b.tokens[0].type == "fence"]
    assert "still code" in fence.tokens[0].content
    assert [b.tokens[0].type for b in markdown.open] == ["paragraph_open"]
    assert markdown.text == text


# --------------------------------------------------------------------------- config


def test_the_caps_are_settings() -> None:
    config = Config().merged(
        {"max_reply_bytes": 10, "max-reasoning-bytes": 20, "max_tool_bytes": 30}, source="t"
    )
    assert config.limits == Limits(10, 20, 30, Limits().events_shown)
    with pytest.raises(ConfigError, match="max_events_shown must be a positive integer"):
        Config().merged({"max_events_shown": 0}, source="t")
    with pytest.raises(ConfigError, match="max_reply_bytes must be a positive integer"):
        Config().merged({"max_reply_bytes": "1MB"}, source="t")


# ---------------------------------------------------------------------------- audio


def flac(seconds: float, channels: int, rate: int) -> bytes:
    out = io.BytesIO()
    frames = np.zeros((int(seconds * rate), channels), dtype="int16")
    soundfile.write(out, frames, rate, format="FLAC", subtype="PCM_16")
    return out.getvalue()


def test_audio_past_the_decoded_byte_budget_is_refused_before_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = flac(2.0, 8, 48_000)  # a few KB of FLAC, 1.5 MB decoded
    assert len(data) < 100_000

    def no_decoding(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("decoded a sound past the budget")

    monkeypatch.setattr(soundfile.SoundFile, "read", no_decoding)
    with pytest.raises(PlaybackError) as refused:
        Player(max_decoded_bytes=1_000_000)._decode(data)
    message = str(refused.value)
    assert "8 channels at 48,000 Hz for 0:02.0" in message
    assert "1.5 MB decoded, over the 1.0 MB allowed" in message
    assert "FLAC" in message


def test_audio_within_the_budget_decodes() -> None:
    samples, rate = Player(max_decoded_bytes=1_000_000)._decode(flac(1.0, 2, 8_000))
    assert rate == 8_000 and samples.shape == (8_000, 2)


# --------------------------------------------------------------------------- images


def test_the_decode_budget_admits_by_count_and_by_pixels() -> None:
    budget = image_renderer.DecodeBudget(max_concurrent=2, max_pixels=100)
    assert budget.fits(1_000)  # alone, even an image past the budget may go
    with budget.admit(60):
        assert not budget.fits(60)  # 120 > 100 pixels in flight
        assert budget.fits(40)
        with budget.admit(10):
            assert not budget.fits(1)  # two decodes already
        assert budget.fits(40)
    assert budget.active == 0 and budget.pixels == 0


def test_images_rendered_at_once_decode_inside_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 30)).save(buffer, "PNG")
    envelope = media("image", buffer.getvalue(), mime="image/png")
    budget = image_renderer.DecodeBudget(max_concurrent=2, max_pixels=100_000)
    monkeypatch.setattr(image_renderer, "DECODES", budget)
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()
    scale = image_renderer._pixels

    def recording(image: Any, size: tuple[int, int], background: str) -> Any:
        with lock:
            seen.append((budget.active, budget.pixels))
        return scale(image, size, background)

    monkeypatch.setattr(image_renderer, "_pixels", recording)
    threads = [
        threading.Thread(target=render, args=(envelope, RenderContext(width=80))) for _ in range(12)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 12
    # Every decode ran holding a place in the budget, and the budget held.
    assert all(1 <= active <= 2 for active, _ in seen)
    assert all(pixels >= 60_000 for _, pixels in seen)
    assert all(pixels <= 100_000 for active, pixels in seen if active > 1)
