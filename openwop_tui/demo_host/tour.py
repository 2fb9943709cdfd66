"""The tour's items: one node per envelope family, plus the media a client must degrade on.

Each item is a function from the run context to steps (see `steps.py`), so ``demo.tour`` and
``demo.chat`` (when asked for ``image``, ``code``, ``everything``…) emit the very same nodes.
Node ids double as the item names a chat reply talks about.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from typing import Any

from openwop_tui.demo_host import media
from openwop_tui.demo_host.steps import (
    VENDOR,
    Emit,
    Pause,
    Step,
    WorkflowContext,
    envelope_node,
)
from openwop_tui.demo_host.steps import media_payload as _media

Item = Callable[[WorkflowContext], Iterator[Step]]

FIB_PY = '''\
"""Fibonacci numbers, two ways."""

from functools import cache


@cache
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fib_iter(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


if __name__ == "__main__":
    print([fib(i) for i in range(10)])
'''


def code(ctx: WorkflowContext) -> Iterator[Step]:
    """A code envelope: ``display: code``, python, titled ``fib.py``."""
    yield from envelope_node(
        ctx,
        "code",
        f"{VENDOR}.snippet",
        {"path": "fib.py", "lang": "python", "source": FIB_PY},
        {"display": "code", "lang": "python", "title": "fib.py"},
        completion=FIB_PY,
    )


def card(ctx: WorkflowContext) -> Iterator[Step]:
    """A card whose body is markdown, carried in ``outputs.completion``."""
    body = (
        "**Deploy succeeded** in `1m 42s`\n\n- 3 services updated\n- 0 errors, 1 warning\n"
        "- Next window: *Thursday 14:00 UTC*"
    )
    yield from envelope_node(
        ctx,
        "card",
        f"{VENDOR}.card",
        {"headline": "Deploy succeeded", "items": ["3 services updated", "0 errors, 1 warning"]},
        {"display": "card", "title": "Deployment summary"},
        completion=body,
    )


def status(ctx: WorkflowContext) -> Iterator[Step]:
    """A card whose payload is an object and which has no text: drawn as a key/value table."""
    payload = {
        "service": "openwop-tui demo host",
        "healthy": True,
        "uptimeSeconds": 42,
        "streams": {"open": 1, "modes": ["updates", "messages", "debug"]},
        "regions": ["loopback"],
    }
    yield from envelope_node(
        ctx, "status", f"{VENDOR}.status", payload, {"display": "card", "title": "Host status"}
    )


def chart(ctx: WorkflowContext) -> Iterator[Step]:
    """A PNG by URL on the host's own origin."""
    data = media.chart_png()
    url = ctx.store(data, "image/png")
    yield from _media_item(
        ctx,
        "chart",
        "image",
        "image/png",
        title="Demo revenue by region",
        alt="Bar chart of demo revenue by region: North 42, South 67, East 55, West 88",
        url=url,
        size=len(data),
    )


def badge(ctx: WorkflowContext) -> Iterator[Step]:
    """A small PNG carried inline as base64 (well under ``maxInlineMediaBytes``)."""
    data = media.badge_png()
    encoded = base64.b64encode(data).decode("ascii")
    yield from _media_item(
        ctx,
        "badge",
        "image",
        "image/png",
        title="Inline image",
        alt="A green badge with a tick and the word 'inline'",
        data=encoded,
        size=len(data),
    )


def speech(ctx: WorkflowContext) -> Iterator[Step]:
    """A real spoken clip by URL, with its measured duration."""
    data = media.audio_ogg()
    url = ctx.store(data, "audio/ogg")
    yield from _media_item(
        ctx,
        "speech",
        "audio",
        "audio/ogg",
        title="Spoken greeting",
        alt=media.AUDIO_ALT,
        url=url,
        size=len(data),
        duration=media.AUDIO_DURATION_SECONDS,
    )


def report(ctx: WorkflowContext) -> Iterator[Step]:
    """A CSV file by URL with a name, and the ``artifact.created`` that records it."""
    data = media.report_csv()
    url = ctx.store(data, "text/csv")
    name = "tour-report.csv"
    yield from _media_item(
        ctx,
        "report",
        "file",
        "text/csv",
        title=name,
        alt="A CSV report listing every envelope family in the tour",
        url=url,
        size=len(data),
        name=name,
    )
    yield Emit(
        "artifact.created",
        {
            "artifactId": f"art_report_{ctx.run_id}",
            "artifactType": f"{VENDOR}.report",
            "nodeId": "report",
            "version": "1",  # a string in the artifact.created schema
            "summary": f"{name} (CSV, {len(data)} bytes)",
            "registered": False,
        },
        "report",
        ctx.correlation_id("report"),
    )


SETUP_SH = b"""#!/bin/sh
# A demo shell script: a client must ask before handing it to the desktop opener.
set -eu
echo "hello from the openwop-tui demo host"
"""


def script(ctx: WorkflowContext) -> Iterator[Step]:
    """A shell script offered as a file: previewed as text, and opening it asks first."""
    url = ctx.store(SETUP_SH, "application/x-sh")
    name = "setup.sh"
    yield from _media_item(
        ctx,
        "script",
        "file",
        "application/x-sh",
        title=name,
        alt="A shell script: opening it could run it",
        url=url,
        size=len(SETUP_SH),
        name=name,
    )


def hologram(ctx: WorkflowContext) -> Iterator[Step]:
    """An unknown ``display`` value: a client falls back to the text in the completion.

    The envelope's ``meta.rendering`` is closed (an unknown ``display`` fails its schema), so
    the unknown hint rides where a host's own outputs may carry anything: ``outputs.rendering``,
    the lifted hint the reference app reads when the envelope has none (protocol.md §6)."""
    text = "If you can read this, the client fell back to text for `display: hologram`."
    yield from envelope_node(
        ctx,
        "hologram",
        f"{VENDOR}.hologram",
        {"text": text},
        None,
        completion=text,
        lifted={"display": "hologram"},
    )


def raw(ctx: WorkflowContext) -> Iterator[Step]:
    """An envelope with no rendering hint and no text: only raw JSON can show it."""
    payload = {
        "latencyMs": {"p50": 12, "p95": 31, "p99": 77},
        "requests": 1024,
        "errors": [],
        "sampledAt": ctx.run_id,
    }
    yield from envelope_node(ctx, "raw", f"{VENDOR}.metrics", payload, None)


def oversized(ctx: WorkflowContext) -> Iterator[Step]:
    """A 48 MiB PNG by URL: a client should refuse to fetch it and say why."""
    token = ctx.assets.put_lazy(media.OVERSIZED_BYTES, "image/png", media.oversized_png_chunks)
    yield from _media_item(
        ctx,
        "oversized",
        "image",
        "image/png",
        title="Oversized image",
        alt="A 48 MiB picture: far too large to fetch by default",
        url=ctx.asset_url(token),
        size=media.OVERSIZED_BYTES,
    )


def undecodable(ctx: WorkflowContext) -> Iterator[Step]:
    """Bytes labelled image/png that are not an image: the decoder must fail gracefully."""
    data = media.undecodable_bytes()
    url = ctx.store(data, "image/png")
    yield from _media_item(
        ctx,
        "undecodable",
        "image",
        "image/png",
        title="Undecodable image",
        alt="A picture whose bytes are not an image at all",
        url=url,
        size=len(data),
    )


def missing_audio(ctx: WorkflowContext) -> Iterator[Step]:
    """An audio clip whose asset the host does not have: fetching it answers 404."""
    yield from _media_item(
        ctx,
        "missing-audio",
        "audio",
        "audio/ogg",
        title="Missing audio",
        alt="An audio clip the host no longer has",
        url=ctx.missing_asset_url(),
        size=81234,
        duration=4.2,
    )


def unsafe_url(ctx: WorkflowContext) -> Iterator[Step]:
    """An image pointing at a local file: a client must refuse the URL, not open it."""
    yield from _media_item(
        ctx,
        "unsafe-url",
        "image",
        "image/png",
        title="Unsafe URL",
        alt="An image whose URL points at a local file; it must not be loaded",
        url="file:///etc/passwd",
        size=2048,
    )


def bitmap(ctx: WorkflowContext) -> Iterator[Step]:
    """A real image in a format that is not a web image format (BMP): decoded only by a
    client that decodes more than the web formats; else degraded as unsupported."""
    data = media.bitmap_bmp()
    url = ctx.store(data, "image/bmp")
    yield from _media_item(
        ctx,
        "bitmap",
        "image",
        "image/bmp",
        title="Windows bitmap",
        alt="A small teal rectangle with a yellow frame, as a BMP file",
        url=url,
        size=len(data),
    )


def animated(ctx: WorkflowContext) -> Iterator[Step]:
    """An animated GIF: a terminal draws its first frame and says so."""
    data = media.animated_gif()
    url = ctx.store(data, "image/gif")
    yield from _media_item(
        ctx,
        "animated",
        "image",
        "image/gif",
        title="Animated GIF",
        alt="A dot moving from left to right in three frames",
        url=url,
        size=len(data),
    )


def huge_pixels(ctx: WorkflowContext) -> Iterator[Step]:
    """A PNG of a few kilobytes and 48 million pixels: fetched, never decoded (pixel cap)."""
    data = media.huge_pixels_png()
    url = ctx.store(data, "image/png")
    width, height = media.HUGE_PIXELS
    yield from _media_item(
        ctx,
        "huge-pixels",
        "image",
        "image/png",
        title="Pixel bomb",
        alt=f"An {width}x{height} black picture: small to download, too big to decode",
        url=url,
        size=len(data),
    )


def private_url(ctx: WorkflowContext) -> Iterator[Step]:
    """An image on plain ``http:`` at a private address: refused, with the reason."""
    yield from _media_item(
        ctx,
        "private-url",
        "image",
        "image/png",
        title="Private address",
        alt="An image on a private network address, over plain http",
        url="http://10.20.30.40/chart.png",
        size=4096,
    )


def no_media(ctx: WorkflowContext) -> Iterator[Step]:
    """A media hint without media: ``display: image`` on a payload with neither url nor bytes."""
    yield from envelope_node(
        ctx,
        "no-media",
        f"{VENDOR}.snapshot",
        {"caption": "the snapshot was never attached"},
        {
            "display": "image",
            "title": "Image without an image",
            "alt": "A snapshot the agent meant to attach",
        },
    )


def _media_item(
    ctx: WorkflowContext,
    node: str,
    family: str,
    mime_type: str,
    *,
    title: str,
    alt: str,
    **ref: Any,
) -> Iterator[Step]:
    """One ``media.<family>`` envelope at ``node``, with a hint naming the family, type, title and
    alt.

    Args:
        ctx: The run's context.
        node: The node.
        family: ``image``, ``audio``, ``video`` or ``file``.
        mime_type: The media type.
        title: The hint's title.
        alt: The hint's alt text.
        **ref: The payload's other fields (`media_payload`): ``url`` or ``data``, ``size``,
            ``name``, ``duration``.
    """
    yield from envelope_node(
        ctx,
        node,
        f"media.{family}",
        _media(mime_type=mime_type, **ref),
        {"display": family, "mimeType": mime_type, "title": title, "alt": alt},
    )


#: Every tour item after the intro, in tour order: families first, then degradations.
ITEMS: tuple[Item, ...] = (
    code,
    card,
    status,
    chart,
    badge,
    speech,
    report,
    hologram,
    raw,
    oversized,
    undecodable,
    missing_audio,
    unsafe_url,
    bitmap,
    animated,
    huge_pixels,
    private_url,
    no_media,
)


def tour(ctx: WorkflowContext, *, gap: float = 0.15) -> Iterator[Step]:
    """Every item of the tour, with a short pause before each."""
    for item in ITEMS:
        yield Pause(gap)
        yield from item(ctx)
