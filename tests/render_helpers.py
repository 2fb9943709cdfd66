"""Helpers for the renderer tests: build envelopes the way a host sends them, and read back what a
renderer draws as plain text (imported by the ``test_renderers_*`` modules)."""

from __future__ import annotations

import base64
import functools
import io
import wave
from array import array
from typing import Any

from PIL import Image
from rich.console import Console, RenderableType

from openwop_tui import renderers
from openwop_tui.protocol.envelopes import Envelope, extract_envelopes
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers import Registry, RenderContext, Rendered, Renderer

#: An escape-sequence salad: OSC 52 (clipboard write), CSI (clear screen), BEL, 8-bit CSI, RLO.
NASTY = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\u202e"


def envelope(
    kind: str,
    payload: Any,
    rendering: dict[str, Any] | None = None,
    completion: str | None = None,
) -> Envelope:
    """The one envelope a ``node.completed`` event carries, through the real extraction."""
    obj: dict[str, Any] = {"type": kind, "envelopeId": "env_1", "payload": payload, "meta": {}}
    if rendering is not None:
        obj["meta"]["rendering"] = rendering
    outputs: dict[str, Any] = {"envelope": obj}
    if completion is not None:
        outputs["completion"] = completion
    doc = {
        "type": "node.completed",
        "runId": "run_1",
        "sequence": 3,
        "nodeId": "n1",
        "payload": {"nodeId": "n1", "outputs": outputs},
    }
    (found,) = extract_envelopes(normalize(doc))
    return found


def media(
    family: str,
    data: bytes | None = None,
    *,
    url: str | None = None,
    mime: str,
    rendering: dict[str, Any] | None = None,
    **extra: Any,
) -> Envelope:
    """A ``media.<family>`` envelope with inline ``data`` (base64) or a ``url``."""
    payload: dict[str, Any] = {"mimeType": mime, **extra}
    if data is not None:
        payload["base64"] = base64.b64encode(data).decode()
        payload.setdefault("bytes", len(data))
    if url is not None:
        payload["url"] = url
    hint = {"display": family, "mimeType": mime, **(rendering or {})}
    return envelope(f"media.{family}", payload, hint)


def terminal_output(*renderables: RenderableType | str, width: int = 80) -> tuple[str, str]:
    """(what went to the terminal, the plain text) for ``renderables`` on an 80-column console."""
    sink = io.StringIO()
    console = Console(width=width, record=True, color_system=None, file=sink)
    for renderable in renderables:
        console.print(renderable)
    return sink.getvalue(), console.export_text()


def shown(rendered: Rendered, width: int = 80) -> str:
    """The title and body as the user would read them; asserts nothing raw reached the terminal."""
    raw, text = terminal_output(rendered.title, rendered.body, width=width)
    assert "\x1b" not in raw and "\x9b" not in raw and "\x07" not in raw
    return text


def png(width: int = 4, height: int = 4, mode: str = "RGB", color: Any = (255, 0, 0)) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (width, height), color).save(out, format="PNG")
    return out.getvalue()


def wav(seconds: float = 0.5, rate: int = 16000, channels: int = 1) -> bytes:
    """A 16-bit PCM WAV of a sawtooth, built with the standard library only."""
    frames = int(seconds * rate)
    ramp = array("h", [(i % 200) * 100 - 10000 for i in range(200)])
    samples = (ramp * (frames * channels // 200 + 1))[: frames * channels]
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(samples.tobytes())
    return out.getvalue()


@functools.cache
def builtins() -> Registry:
    """The built-in renderers, loaded once for the test session: the renderer tests' own
    registry (the application builds its own; there is no process-wide one)."""
    return Registry(plugins=False).load()


def render(
    envelope: Envelope, context: RenderContext, registry: Registry | None = None
) -> Rendered:
    """`openwop_tui.renderers.render` with the built-ins' registry unless one is given."""
    return renderers.render(envelope, context, registry or builtins())


def resolve(display: str | None) -> Renderer:
    """The built-in renderer for ``display`` (the JSON fallback for an unknown one)."""
    return builtins().resolve(display)


def registered() -> list[str]:
    """The display values the built-ins draw."""
    return builtins().registered()
