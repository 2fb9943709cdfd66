"""What a renderer declares decides what the client does: a plugin ``video`` renderer that needs
bytes gets its file fetched from the host (the embedded demo host, over loopback HTTP), and a
renderer that redraws on resize is drawn again at a new width; neither is a family list."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from registry_support import VIDEO_PLUGIN, install_plugin
from render_helpers import builtins, envelope

from openwop_tui.core.conversation import Conversation
from openwop_tui.core.fold import EnvelopeItem, Transcript
from openwop_tui.core.session import Session
from openwop_tui.demo_host import DemoHost
from openwop_tui.present.envelope import Source, context_for, draw
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.envelopes import Envelope, Rendering
from openwop_tui.protocol.events import RunEvent
from openwop_tui.renderers import RenderContext, Rendered, RendererSpec
from openwop_tui.renderers.registry import Registry
from openwop_tui.ui.transcript.blocks import Block


def as_video(image: Envelope) -> Envelope:
    """A vendor envelope hinted ``video`` whose payload points at the host's asset."""
    assert image.media is not None and image.media.url is not None
    payload = {"url": image.media.url, "mimeType": "video/mp4", "bytes": image.media.bytes}
    return replace(
        image, kind="vendor.acme.clip", media=None, payload=payload,
        rendering=Rendering(display="video"),
    )  # fmt: skip


async def test_a_plugin_video_renderer_gets_its_bytes_from_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path, monkeypatch, dist="acme-video", entry="acme", module="acme_video_fetch",
        source=VIDEO_PLUGIN,
    )  # fmt: skip
    registry = Registry()
    with DemoHost(pace=0) as demo:
        async with HostClient(demo.url, demo.api_key) as client:
            session = Session(client, workflow_id="demo.chat")
            transcript = Transcript()
            inputs = {"messages": [{"role": "user", "content": "image please"}]}
            async for item in session.start(inputs):
                if isinstance(item, RunEvent):
                    transcript.apply(item)
            [image] = [
                i.envelope
                for i in transcript.items
                if isinstance(i, EnvelopeItem) and i.envelope.display == "image"
            ]
            video = as_video(image)
            conversation = Conversation(session)

            # Asked of the registry that has the plugin: fetched, and drawn from the bytes.
            source = Source(conversation.asset_for, conversation.max_inline_bytes)
            context = await context_for(video, registry, RenderContext(), source, 80)
            assert context.asset is not None and context.asset.data is not None
            assert context.asset.data[:4] == b"\x89PNG"
            drawn = await draw(video, registry, RenderContext(), source)
            assert drawn.renderer == "video"
            assert drawn.title == f"video · {len(context.asset.data)} bytes"

            # Without the plugin (the built-ins only), a ``video`` is JSON: nothing fetched.
            builtins = Registry(plugins=False).load()
            plain = await context_for(video, builtins, RenderContext(), source, 80)
            assert plain.asset is None


async def test_a_renderer_that_draws_no_bytes_gets_none_fetched() -> None:
    """A vendor kind with a URL hinted for a renderer that draws no bytes: none are asked of
    the host (the URL alone does not decide). A ``media.image`` is another matter: its type
    wins over the hint (RFC 0055 §C), so the image renderer draws it, and it needs its bytes."""

    def card(envelope: Envelope, context: RenderContext) -> Rendered:
        return Rendered(title="card", body="card")

    registry = Registry(plugins=False)
    registry.add(RendererSpec("video", card))  # declares no need for bytes
    vendor = envelope("vendor.acme.pic", {"url": "https://cdn.example/a.png"}, {"display": "video"})
    conversation = Conversation()  # offline: a fetch would say "not fetched"
    source = Source(conversation.asset_for, conversation.max_inline_bytes)
    context = await context_for(vendor, registry, RenderContext(), source, 80)
    assert context.asset is None

    image = envelope("media.image", {"url": "https://cdn.example/a.png"}, {"display": "video"})
    assert image.display == "image" and image.hint_set_aside == "video"
    context = await context_for(image, builtins(), RenderContext(), source, 80)
    assert context.asset is not None and context.asset.failure == "not-fetched"


def _block(display: str) -> Block:
    return Block(EnvelopeItem(id="e1", envelope=envelope("vendor.x", {}, {"display": display})))


def _drawn(block: Block, resizes: Registry, width: int) -> Block:
    block.resizes = resizes.redraw_on_resize
    assert isinstance(block.item, EnvelopeItem)
    block.rendered = Rendered(title="x", body="x")
    block.drawn = block.item.envelope
    block.drawn_width = width
    return block


def test_redraw_on_resize_asks_the_registry() -> None:
    def draw(envelope: Envelope, context: RenderContext) -> Rendered:
        return Rendered(title="x", body="x")

    registry = Registry(plugins=False)
    registry.add(RendererSpec("video", draw, redraw_on_resize=True))
    registry.add(RendererSpec("chart", draw))
    assert _drawn(_block("video"), registry, 80).needs_render(100)
    assert not _drawn(_block("video"), registry, 80).needs_render(80)
    assert not _drawn(_block("chart"), registry, 80).needs_render(100)
    # The built-in declaration: an image redraws, a card does not.
    assert _drawn(_block("image"), registry, 80).needs_render(100)
    assert not _drawn(_block("card"), registry, 80).needs_render(100)
