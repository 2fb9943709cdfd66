"""The degradation lab in the app: the active `Profile`, switched live, and what it draws.

Functions of the `openwop_tui.ui.app.ChatApp` they are given (its actions call these), kept apart so
the app module stays about composition and routing. A switch (a palette command, a key on the
capabilities screen) replaces ``app.profile`` and tells the transcript view, which draws every
item again and asks again for every envelope; `draw` draws each one through the one envelope
path (`openwop_tui.present.envelope`) under the profile, so the same renderers draw what a
terminal or a machine with that profile would show.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from openwop_tui.config import Config
from openwop_tui.core.conversation import check_link
from openwop_tui.core.fold import EnvelopeItem
from openwop_tui.devices.profile import PRESETS, Profile, preset
from openwop_tui.devices.terminal import ImageSupport
from openwop_tui.present import envelope as drawing
from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Rendered

if TYPE_CHECKING:
    from openwop_tui.ui.app import ChatApp


def initial(config: Config, support: ImageSupport | None) -> Profile:
    """The profile the app starts with: images as probed (or as set), everything else on."""
    mode = support.mode if support is not None else config.images
    if mode not in ("kitty", "sixel", "none"):
        mode = "halfblock"
    return Profile(images=mode)  # type: ignore[arg-type]


def source(app: ChatApp, profile: Profile) -> drawing.Source:
    """Where envelopes get their bytes under ``profile``: the conversation's store and host,
    or, with fetching off, nowhere (the lab shows what a client that does not fetch shows;
    inline bytes are not a fetch, and still show)."""
    conversation = app.conversation
    fetch: drawing.Fetch = conversation.asset_for
    if not profile.fetching:

        async def fetch(envelope: Envelope, _needs_bytes: drawing.NeedsBytes) -> Asset | None:
            return profile.asset(envelope, None)

    return drawing.Source(fetch, conversation.max_inline_bytes, check_link)


async def draw(
    app: ChatApp, envelope: Envelope, width: int, profile: Profile | None = None
) -> Rendered:
    """``envelope`` drawn at body ``width`` under ``profile`` (default: the active one)."""
    profile = profile or app.profile
    base = profile.context(replace(app._base_context, width=max(20, width)))
    return await drawing.draw(envelope, app.registry, base, source(app, profile), width=base.width)


def switch(app: ChatApp, name: str, value: str) -> None:
    """Set one switch of the active profile (``images``, ``none``) and redraw everything."""
    try:
        profile = app.profile.with_switch(name, value)
    except ValueError as error:
        app.notify(str(error), severity="error", markup=False)
        return
    apply(app, profile)


def apply(app: ChatApp, profile: Profile) -> None:
    """Make ``profile`` the active one: every item redraws at once, without a new run."""
    app.profile = profile
    app.view.set_profile(profile.colours, profile.width)
    app.notify(f"lab: {profile.describe()}", markup=False)
    from openwop_tui.ui.screens.capabilities import CapabilitiesScreen

    for screen in app.screen_stack:
        if isinstance(screen, CapabilitiesScreen):
            screen.show(profile)


def open_lab(app: ChatApp) -> None:
    """The capabilities screen: what the terminal was probed to support, the active profile and
    its switches."""
    from openwop_tui.ui.screens.capabilities import CapabilitiesScreen, Probed

    support = app._image_support
    machine = app._audio_support
    probed = Probed(
        images=support.mode if support is not None else app.config.images,
        images_reason=support.reason if support is not None else "not probed (set in the config)",
        cell_size=support.cell_size if support is not None else None,
        colours=app.console.color_system or "none",
        audio=machine.available if machine is not None else None,
        audio_reason=(machine.reason or "an output device is there")
        if machine is not None
        else "not probed yet",
        size=(app.size.width, app.size.height),
    )
    app.push_screen(CapabilitiesScreen(probed, app.profile))


def selected_envelope(app: ChatApp, item_id: str | None = None) -> EnvelopeItem | None:
    """The envelope the matrix view draws: ``item_id``'s, else the one under the view's cursor,
    else the newest envelope of the transcript."""
    view = app.view
    blocks = view.blocks()
    if item_id is not None:
        block = view.block_for(item_id)
        return block.item if block is not None and isinstance(block.item, EnvelopeItem) else None
    if view.cursor is not None and isinstance(blocks[view.cursor].item, EnvelopeItem):
        item = blocks[view.cursor].item
        assert isinstance(item, EnvelopeItem)
        return item
    for block in reversed(blocks):
        if isinstance(block.item, EnvelopeItem):
            return block.item
    return None


async def matrix(
    app: ChatApp, envelope: Envelope, width: int
) -> list[tuple[str, Profile, Rendered]]:
    """``envelope`` drawn under each preset profile (each one switch away from the active one)."""
    drawn = []
    for name, changes in PRESETS:
        profile = preset(app.profile, changes)
        drawn.append((name, profile, await draw(app, envelope, profile.cap(width), profile)))
    return drawn


async def open_matrix(app: ChatApp, item_id: str | None = None) -> None:
    """The matrix view of the selected envelope."""
    from openwop_tui.ui.screens.matrix import MatrixScreen

    item = selected_envelope(app, item_id)
    if item is None:
        app.notify("no envelope to draw: select one in the transcript", severity="warning")
        return
    width = max(20, app.size.width - 8)
    drawn = await matrix(app, item.envelope, width)
    app.push_screen(MatrixScreen(item.envelope, drawn))
