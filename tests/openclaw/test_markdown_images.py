"""A Markdown image in a reply (an OpenClaw agent's ``![alt](url)``, read without
``--markdown-images``) is shown as what it is and where it is, in place: never ``🌆 alt`` with
the URL lost (issue 23 item 10).

Measured before: ``render`` printed ``🌆 Q3 revenue Here is the chart:`` (the placeholder
before its paragraph, the address nowhere); the app drew the same tokens the same way.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from installed import printing_env, run_installed
from rich.console import Console

from openwop_tui.draw.markdown import ReplyMarkdown
from openwop_tui.draw.palette import Palette
from openwop_tui.draw.rich_markdown import SafeMarkdown
from openwop_tui.present.dispatch import reply_body
from openwop_tui.text.sanitize import HostText

URL = "https://cdn.example.com/charts/q3.png"
CHUNKS = [
    "Here is the chart: ![Q3 rev",
    f"enue]({URL}) and",
    " more.\n\n![](https://cdn.example.com/a/b/pie.svg)\n",
]


def _frame(seq: int, type_: str, payload: dict[str, object]) -> str:
    doc = {
        "eventId": f"e{seq}",
        "runId": "run_IMG",
        "type": type_,
        "payload": payload,
        "timestamp": f"2026-11-30T10:00:{seq:02d}.000Z",
        "sequence": seq,
    }
    return f"id: {seq}\nevent: {type_}\ndata: {json.dumps(doc)}\n\n"


def _capture(path: Path) -> Path:
    frames = [_frame(0, "run.started", {"workflowId": "openclaw.bridge"})]
    frames.append(_frame(1, "node.started", {"nodeId": "respond", "typeId": "openclaw.agent"}))
    for index, chunk in enumerate(CHUNKS):
        payload = {"nodeId": "respond", "chunk": chunk, "isLast": index == len(CHUNKS) - 1}
        frames.append(_frame(2 + index, "output.chunk", payload))
    frames.append(_frame(9, "node.completed", {"nodeId": "respond"}))
    frames.append(_frame(10, "run.completed", {}))
    path.write_text("".join(frames), encoding="utf-8")
    return path


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_render_shows_an_images_alt_and_url_in_place(tmp_path: Path) -> None:
    done = run_installed(["render", str(_capture(tmp_path / "image.sse"))], printing_env(tmp_path))
    out = _flat(done.stdout)
    assert f"Here is the chart: 🌆 image: Q3 revenue, not drawn in text ({URL}) and more." in out
    # No alt: the file name says what it is.
    assert "🌆 image: pie.svg, not drawn in text (https://cdn.example.com/a/b/pie.svg)" in out


def _drawn(renderable: object) -> str:
    console = Console(width=120, color_system=None, record=True, file=io.StringIO())
    console.print(renderable)
    return _flat(console.export_text())


def test_every_markdown_sink_keeps_the_url() -> None:
    text = HostText(f'See ![a chart]({URL} "Q3").')
    expected = f"See 🌆 image: a chart, not drawn in text ({URL})."
    # A reply (the app's transcript, `run`, `render`), block by block.
    palette = Palette.default()
    parts = reply_body(ReplyMarkdown.whole(text), palette)
    assert expected in " ".join(_drawn(part.renderable) for part in parts)
    # A markdown envelope (the renderer's SafeMarkdown).
    assert expected in _drawn(SafeMarkdown(text, hyperlinks=False))


def test_an_image_inside_a_link_keeps_both_addresses() -> None:
    text = HostText("[![build](https://ci.example.com/b.svg)](https://ci.example.com/run/7)")
    drawn = _drawn(SafeMarkdown(text, hyperlinks=False))
    assert "https://ci.example.com/b.svg" in drawn and "https://ci.example.com/run/7" in drawn
