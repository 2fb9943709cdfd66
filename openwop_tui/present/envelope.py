"""The one way an envelope is drawn, for the app, the print commands and the export.

`draw` takes an envelope, where its bytes come from (`Source`: the conversation's
``asset_for``, given as a callable, so nothing here touches the network), the front end's own
renderer registry, the context it draws in and the columns it has, and returns the `Rendered`.
So the body width, which envelopes get their bytes fetched (the registry's answer), what an
offline transcript shows for a URL, and the fragment rule are decided here and nowhere else:

* width: the body is indented `INDENT` columns under its title (`body_width`);
* the fragment rule (RFC E1): an envelope that is still a fragment of a streamed emission may be
  drawn, but nothing may be done with it: no actions, and its title says it is a fragment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.media_policy import offline_asset
from openwop_tui.renderers import Registry, render
from openwop_tui.renderers.base import LinkCheck, RenderContext, Rendered

__all__ = [
    "FRAGMENT",
    "INDENT",
    "Drawer",
    "Fetch",
    "NeedsBytes",
    "Source",
    "body_width",
    "context_for",
    "draw",
    "export_drawer",
    "fragment_rule",
    "offline",
]

FRAGMENT = "a fragment: the emission is not complete"
"""Said in the title of a streamed envelope drawn before its completing fragment arrived."""

INDENT = 2
"""Columns an envelope's body is indented under its title (`openwop_tui.present.items`)."""


#: The spec's inline media cap, when no host told its own (protocol.md §4.5).
DEFAULT_INLINE_BYTES = 262144

NeedsBytes = Callable[[str | None], bool]
"""Whether the renderer for a display value draws bytes (the registry's `needs_bytes`)."""
Fetch = Callable[[Envelope, NeedsBytes], Awaitable[Asset | None]]
"""Where an envelope's bytes come from: stored, fetched, or why there are none."""


async def _offline(envelope: Envelope, needs_bytes: NeedsBytes) -> Asset | None:
    ref = envelope.bytes_ref(needs_bytes)
    if ref is None or not ref.url or ref.base64:
        return None
    # The policy's refusal first (a file: URL is refused whatever the network), then offline.
    return offline_asset(ref.url, None)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a sink's envelopes get their bytes, and the host's rules for them."""

    fetch: Fetch = _offline
    """The conversation's ``asset_for`` (the default fetches nothing and says so)."""
    max_inline_bytes: int = DEFAULT_INLINE_BYTES
    link_check: LinkCheck | None = None
    """The policy for links a renderer may offer to open (``None``: none is offered)."""


def offline() -> Source:
    """A source for a transcript drawn without its host: URLs are shown, not fetched."""
    return Source()


def body_width(columns: int) -> int:
    """The width an envelope's body is drawn at, in ``columns`` (never under 20)."""
    return max(20, columns - INDENT)


async def context_for(
    envelope: Envelope, registry: Registry, base: RenderContext, source: Source, width: int
) -> RenderContext:
    """``base`` at body ``width`` with the envelope's asset and the host's rules filled in.

    Args:
        envelope: The envelope about to be drawn.
        registry: The renderers, which say whether its bytes are needed.
        base: The drawing context shared by every envelope.
        source: Fetches the asset and gives the host's inline limit and link check.
        width: Columns for the body; at least 20 are used.
    """
    return replace(
        base,
        width=max(20, width),
        asset=await source.fetch(envelope, registry.needs_bytes),
        max_inline_bytes=source.max_inline_bytes,
        link_check=source.link_check,
    )


def fragment_rule(envelope: Envelope, rendered: Rendered) -> Rendered:
    """RFC E1: a fragment is drawn, with no actions and a title that says what it is."""
    if not envelope.partial:
        return rendered
    return replace(rendered, actions=(), title=f"{rendered.title} · {FRAGMENT}")


async def draw(
    envelope: Envelope,
    registry: Registry,
    base: RenderContext,
    source: Source,
    *,
    columns: int | None = None,
    width: int | None = None,
) -> Rendered:
    """Fetch ``envelope``'s asset, run its renderer (in a thread: decoding takes time) and apply the
    fragment rule.

    Args:
        envelope: The envelope to draw.
        registry: The renderers.
        base: The drawing context shared by every envelope.
        source: Fetches the asset and gives the host's rules.
        columns: Columns the item has, the indent included; None for the base width plus the indent.
        width: The body's width when the caller already knows it (a view asking for one); wins over
            ``columns``.
    """
    wanted = width if width is not None else body_width(columns or base.width + INDENT)
    context = await context_for(envelope, registry, base, source, wanted)
    rendered = await asyncio.to_thread(render, envelope, context, registry)
    return fragment_rule(envelope, rendered)


@dataclass(frozen=True, slots=True)
class Drawer:
    """`draw` with a registry and a context bound, for a sink that is handed its assets (the
    Markdown export: `openwop_tui.present.export.EnvelopeDrawer`)."""

    registry: Registry
    base: RenderContext

    def needs_bytes(self, display: str | None, /) -> bool:
        """Whether the registry's renderer for ``display`` draws bytes."""
        return self.registry.needs_bytes(display)

    async def __call__(
        self, envelope: Envelope, fetch: Fetch, max_inline_bytes: int, /
    ) -> Rendered:
        source = Source(fetch, max_inline_bytes)
        return await draw(envelope, self.registry, self.base, source, columns=self.base.width)


def export_drawer(registry: Registry) -> Drawer:
    """How the Markdown export draws envelopes: no pixels (it writes the bytes themselves)."""
    return Drawer(registry, RenderContext(images="none"))
