"""The degradation lab in the app: the active `Profile`, switched live, and every envelope drawn
under it.

`LabController` owns what envelopes are drawn with, once for every tab: the terminal's probed
image support, the machine's audio support, the theme's palette and the lab's switches (images,
colours, audio, fetching, width). A switch (a palette command, a key on the capabilities screen)
replaces the profile and tells every tab's transcript view, which draws every item again and
asks again for every envelope; each is then drawn through the one envelope path
(`openwop_tui.present.envelope`) under the profile, so the same renderers draw what a terminal or
a machine with that profile would show.
"""

from __future__ import annotations

from dataclasses import replace

from openwop_tui.config import Config
from openwop_tui.core.assets import check_link
from openwop_tui.core.fold import EnvelopeItem
from openwop_tui.devices.profile import PRESETS, Profile, preset
from openwop_tui.devices.terminal import ImageSupport
from openwop_tui.draw.palette import Palette
from openwop_tui.present import envelope as drawing
from openwop_tui.protocol.asset import Asset
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.audio import no_audio_cause
from openwop_tui.renderers.base import AudioSupport, RenderContext, Rendered
from openwop_tui.ui.controllers.chat import Chat, Common, OpenChats
from openwop_tui.ui.messages import LoadingChanged


def initial(config: Config, support: ImageSupport | None) -> Profile:
    """The profile the app starts with: images as probed (or as set), everything else on."""
    mode = support.mode if support is not None else config.images
    if mode not in ("kitty", "sixel", "none"):
        mode = "halfblock"
    return Profile(images=mode)  # type: ignore[arg-type]


class LabController:
    """The profile envelopes are drawn under, and the drawing itself."""

    def __init__(
        self,
        common: Common,
        tabs: OpenChats,
        image_support: ImageSupport | None,
        audio_support: AudioSupport | None,
        palette: Palette,
    ) -> None:
        """Start the lab's switches from the config and what the terminal can do.

        Args:
            common: What every tab shares (the app, the config, the renderers).
            tabs: The open chats: each tab's view draws under the profile.
            image_support: What ``__main__`` probed before the app took the terminal; None when not
                probed.
            audio_support: The sound card's answer; None until the connection controller probes it.
            palette: The theme's colours envelopes are drawn in.
        """
        self.common = common
        self.tabs = tabs
        self.image_support = image_support
        """What ``__main__`` probed before the app took the terminal (``None``: not probed)."""
        self.audio_support = audio_support
        """The sound card's answer (``None`` until the connection controller probed it)."""
        self.profile = initial(common.config, image_support)
        """The lab's switches."""
        self.code_theme = common.config.code_theme
        """The Pygments style code is highlighted in (``None``: the theme's own choice)."""
        self._base = replace(
            app_image_context(image_support, common.config.images),
            palette=palette.with_code_theme(self.code_theme),
        )
        if audio_support is not None:
            # Known already: what is drawn before the host is reached (a reopened session's
            # clips, drawn with the first frame) offers to play too.
            self._base = replace(self._base, audio=audio_support)

    def set_palette(self, palette: Palette) -> None:
        """A theme was chosen: envelopes drawn from now on take its colours."""
        self._base = replace(self._base, palette=palette.with_code_theme(self.code_theme))

    def set_code_theme(self, name: str | None, palette: Palette) -> None:
        """Highlight code in the Pygments style ``name`` (``None``: the theme's own choice),
        from now on and in everything on screen: every item is drawn again, envelopes too.

        Args:
            name: The style, as Pygments names it.
            palette: The active theme's colours (the style goes on top).
        """
        self.code_theme = name
        self.set_palette(palette)
        # Every tab's view forgets its drawings and asks again for every envelope, drawn with
        # the palette just set.
        for chat in self.tabs.chats():
            chat.parts.view.code_theme = name

    def set_audio(self, support: AudioSupport) -> None:
        self.audio_support = support
        self._base = replace(self._base, audio=support)

    def no_audio(self) -> str | None:
        """Why this machine plays no sound, in the few words the items' badges use (``no
        PortAudio``, ``no audio device``, ``switched off`` for --no-audio); ``None`` when it
        can, or is not probed yet. The lab's audio line reads off with this, whatever its
        switch."""
        support = self.audio_support
        if support is None or support.available:
            return None
        cause = no_audio_cause(support.reason or "")
        return "switched off" if cause == "audio off" else cause

    def source(self, profile: Profile, chat: Chat | None = None) -> drawing.Source:
        """Where envelopes get their bytes under ``profile``: the conversation's store and
        host (``chat``'s, else the chat on screen), or, with fetching off, nowhere (the lab
        shows what a client that does not fetch shows; inline bytes are not a fetch, and still
        show)."""
        conversation = (chat or self.tabs.chat).conversation
        fetch: drawing.Fetch = conversation.asset_for
        if not profile.fetching:

            async def fetch(envelope: Envelope, _needs_bytes: drawing.NeedsBytes) -> Asset | None:
                return profile.asset(envelope, None)

        return drawing.Source(fetch, conversation.max_inline_bytes, check_link)

    async def rendered(
        self,
        envelope: Envelope,
        width: int,
        profile: Profile | None = None,
        chat: Chat | None = None,
    ) -> Rendered:
        """``envelope`` drawn at body ``width`` under ``profile`` (default: the active one),
        through the one envelope path (`openwop_tui.present.envelope`): stored bytes first (a
        reopened session draws without its host), then the host.

        Args:
            envelope: What to draw.
            width: The body's columns.
            profile: The lab's switches to draw under; None: the active ones.
            chat: The chat whose store and host have its bytes; None: the one on screen.
        """
        profile = profile or self.profile
        base = profile.context(replace(self._base, width=max(20, width)))
        source = self.source(profile, chat)
        return await drawing.draw(envelope, self.common.registry, base, source, width=base.width)

    async def draw(self, item_id: str, width: int, chat: Chat | None = None) -> None:
        """Draw the envelope of item ``item_id`` at ``width`` and hand it to the view of
        ``chat`` (the tab whose view asked; None: the one on screen)."""
        chat = chat or self.tabs.chat
        view = chat.parts.view
        block = view.block_for(item_id)
        if block is None or not isinstance(block.item, EnvelopeItem):
            return
        envelope = block.item.envelope
        rendered = await self.rendered(envelope, width, chat=chat)
        view.set_rendered(item_id, rendered, envelope=envelope, width=width)
        self.tell_loading(chat)

    def tell_loading(self, chat: Chat | None = None) -> None:
        """Tell ``chat``'s status line (else the one on screen) how many of its items are
        still loading (being drawn)."""
        parts = (chat or self.tabs.chat).parts
        parts.status.post_message(LoadingChanged(parts.view.pending_renders))

    def switch(self, name: str, value: str) -> None:
        """Set one switch of the active profile (``images``, ``none``) and redraw everything."""
        try:
            profile = self.profile.with_switch(name, value)
        except ValueError as error:
            self.common.app.notify(str(error), severity="error", markup=False)
            return
        self.apply(profile)

    def apply(self, profile: Profile) -> None:
        """Make ``profile`` the active one: every item redraws at once, without a new run."""
        app = self.common.app
        self.profile = profile
        for chat in self.tabs.chats():
            chat.parts.view.set_profile(profile.colours, profile.width)
        app.notify(f"lab: {profile.describe(self.no_audio())}", markup=False)
        from openwop_tui.ui.screens.capabilities import CapabilitiesScreen

        for screen in app.screen_stack:
            if isinstance(screen, CapabilitiesScreen):
                screen.show(profile)

    def open_lab(self) -> None:
        """The capabilities screen: what the terminal was probed to support, the active profile
        and its switches."""
        from openwop_tui.ui.screens.capabilities import CapabilitiesScreen, Probed

        app = self.common.app
        support = self.image_support
        machine = self.audio_support
        probed = Probed(
            images=support.mode if support is not None else self.common.config.images,
            images_reason=support.reason
            if support is not None
            else "not probed (set in the config)",
            cell_size=support.cell_size if support is not None else None,
            colours=app.console.color_system or "none",
            audio=machine.available if machine is not None else None,
            audio_reason=(machine.reason or "an output device is there")
            if machine is not None
            else "not probed yet",
            size=(app.size.width, app.size.height),
            host_takes=self._host_takes(),
        )
        app.push_screen(CapabilitiesScreen(probed, self.profile, self.no_audio()))

    def _host_takes(self) -> str | None:
        """What the connected host takes from a person (``None``: not connected yet)."""
        from openwop_tui.doctor import attachments_check

        session = self.tabs.chat.session
        discovery = session.discovery if session is not None else None
        return attachments_check(discovery).detail if discovery is not None else None

    def selected_envelope(self, item_id: str | None = None) -> EnvelopeItem | None:
        """The envelope the matrix view draws: ``item_id``'s, else the one under the view's
        cursor, else the newest envelope of the transcript."""
        view = self.tabs.chat.parts.view
        blocks = view.blocks()
        if item_id is not None:
            block = view.block_for(item_id)
            found = block.item if block is not None else None
            return found if isinstance(found, EnvelopeItem) else None
        if view.cursor is not None:
            under = blocks[view.cursor].item
            if isinstance(under, EnvelopeItem):
                return under
        for block in reversed(blocks):
            if isinstance(block.item, EnvelopeItem):
                return block.item
        return None

    async def matrix(self, envelope: Envelope, width: int) -> list[tuple[str, Profile, Rendered]]:
        """``envelope`` drawn under each preset profile (each one switch away from the active
        one)."""
        drawn = []
        for name, changes in PRESETS:
            profile = preset(self.profile, changes)
            drawn.append(
                (name, profile, await self.rendered(envelope, profile.cap(width), profile))
            )
        return drawn

    async def open_matrix(self, item_id: str | None = None) -> None:
        """The matrix view of the selected envelope."""
        from openwop_tui.ui.screens.matrix import MatrixScreen

        app = self.common.app
        item = self.selected_envelope(item_id)
        if item is None:
            app.notify("no envelope to draw: select one in the transcript", severity="warning")
            return
        width = max(20, app.size.width - 8)
        drawn = await self.matrix(item.envelope, width)
        app.push_screen(MatrixScreen(item.envelope, drawn, self.no_audio()))


def app_image_context(support: ImageSupport | None, requested: str) -> RenderContext:
    """The app's render context for images: the probe's protocol, its cell size, tmux.
    ``support`` is ``None`` in tests: half-blocks (or none, when ``requested``)."""
    if support is None:
        return RenderContext(images="none" if requested == "none" else "halfblock")
    if support.mode == "none":  # why pictures are described: the setting, or NO_COLOR
        return RenderContext(images="none", images_off_reason=support.reason)
    return RenderContext(images=support.mode, graphics=support.graphics())
