"""The live widget for one envelope: its title, the rendered body, and action buttons.

The view mounts at once with a "loading" body; the app fetches the asset and runs the renderer
off the event loop, then calls `show`. Buttons post `EnvelopeView.ActionRequested` for the app
to carry out (play, stop, save, open, copy): the view itself does no I/O. A streamed envelope
(protocol.md §4.3) is drawn again for each later fragment; the view is settled only once what it
shows is the item's current envelope. When the terminal speaks
kitty graphics or sixel, a drawn image is shown as a textual-image picture above its caption
(`openwop_tui.widgets.pixel_image`) instead of the renderer's half-blocks.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from openwop_tui import present
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers.base import Action, Rendered
from openwop_tui.sanitize import safe_text
from openwop_tui.screens.inspect import InspectScreen
from openwop_tui.terminal import ImageSupport
from openwop_tui.transcript import EnvelopeItem

FRAGMENT = "a fragment: the emission is not complete"
"""Said in the title of a streamed envelope drawn before its completing fragment arrived."""


class EnvelopeView(Vertical, can_focus=True):
    """One envelope in the transcript. Focus it (Tab) to use its keys: s save, o open, p play,
    x stop, c copy."""

    DEFAULT_CSS = """
    EnvelopeView { height: auto; margin: 0 0 1 0; padding: 0 1; border-left: tall $primary; }
    EnvelopeView.-degraded { border-left: tall $warning; }
    EnvelopeView:focus { background: $boost; border-left: thick $accent; }
    EnvelopeView > .title { text-style: bold; }
    EnvelopeView > .body { padding: 0 0 0 1; }
    EnvelopeView > .pixels { margin: 0 0 0 1; }
    EnvelopeView > Horizontal { height: auto; }
    EnvelopeView > .playback { color: $accent; padding: 0 0 0 1; display: none; }
    EnvelopeView > .playback.-active { display: block; }
    EnvelopeView Button { min-width: 8; height: 1; border: none; margin: 0 1 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "request('save')", "Save"),
        Binding("o", "request('open')", "Open"),
        Binding("p", "request('play')", "Play"),
        Binding("x", "request('stop')", "Stop"),
        Binding("c", "request('copy')", "Copy"),
        Binding("i", "inspect", "Inspect"),
        Binding("up,k", "step(-1)", "Previous", show=False),
        Binding("down,j", "step(1)", "Next", show=False),
    ]

    @dataclass
    class ActionRequested(Message):
        """The user pressed one of the envelope's action buttons."""

        view: EnvelopeView
        action: Action

    def __init__(self, item: EnvelopeItem) -> None:
        super().__init__()
        self.item = item
        self.rendered: Rendered | None = None
        self._drawn: Envelope | None = None
        """The envelope `rendered` was drawn from (the item's may since be a later fragment)."""

    def compose(self) -> ComposeResult:
        envelope = self.item.envelope
        kind = envelope.display or "json"
        yield Static(safe_text(f"{kind} · {envelope.kind}"), classes="title")
        yield Static(Text("loading…", style="dim italic"), classes="body")
        yield Static(classes="playback")
        yield Horizontal()

    @property
    def settled(self) -> bool:
        """True once the item's current envelope is drawn: a later fragment of a streamed
        envelope unsettles the view until it is drawn too, so the history never keeps an older
        fragment's drawing."""
        return self.rendered is not None and self._drawn is self.item.envelope

    async def show(
        self,
        rendered: Rendered,
        *,
        pixels: ImageSupport | None = None,
        envelope: Envelope | None = None,
    ) -> None:
        """Draw the renderer's result and its action buttons.

        ``envelope`` is the one ``rendered`` was drawn from (default: the item's current one).
        With ``pixels`` saying kitty or sixel, a drawn image's pixels are a textual-image
        picture, its caption text under it; anything else is the renderer's body as it is.
        """
        drawn = envelope or self.item.envelope
        picture = None
        if pixels is not None and pixels.pixels and rendered.cells is not None:
            from openwop_tui.widgets import pixel_image  # textual-image only in these modes

            picture = await asyncio.to_thread(pixel_image.prepare, rendered, pixels)
            if not self.is_attached:
                return  # cleared or retired while the picture was being prepared
        self.rendered = rendered
        self._drawn = drawn
        title = safe_text(rendered.title)
        if rendered.degraded:
            title.append("  (not shown in full)", style="yellow")
        self.set_class(bool(rendered.degraded), "-degraded")  # a later fragment may be whole
        self.query_one(".title", Static).update(title)
        body = self.query_one(".body", Static)
        await self.query(".pixels").remove()  # drawn for an earlier width
        if picture is None:
            body.update(rendered.body)
        else:
            await self.mount(pixel_image.picture_widget(*picture), before=body)
            body.update(rendered.caption or "")
        bar = self.query_one(Horizontal)
        await bar.remove_children()
        await bar.mount_all(_button(action) for action in rendered.actions)

    def show_playback(self, text: str | None) -> None:
        """Show where playback is (``None`` hides the line)."""
        if not self.is_attached:
            return  # cleared or retired while a clip played: nothing left to update
        line = self.query_one(".playback", Static)
        line.set_class(text is not None, "-active")
        line.update(text or "")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Translate a button into an app-level request."""
        event.stop()
        if event.button.name:
            self.action_request(event.button.name)

    def action_step(self, direction: int) -> None:
        """Focus the previous or next envelope, scrolling it into view."""
        views = list(self.screen.query(EnvelopeView))
        index = views.index(self) + direction
        if 0 <= index < len(views):
            views[index].focus()
            views[index].scroll_visible(animate=False)

    def action_inspect(self) -> None:
        """Show the envelope beside the run event it came in."""
        self.app.push_screen(InspectScreen(self.item.envelope, self.rendered))

    def action_request(self, name: str) -> None:
        """Ask the app to carry out one of this envelope's actions, if it has it."""
        if self.rendered is None:
            return
        for action in self.rendered.actions:
            if action.name == name:
                self.post_message(self.ActionRequested(self, action))
                return
        self.notify(f"nothing to {name} here", severity="warning")

    def to_renderable(self) -> RenderableType:
        """What the history keeps of this envelope."""
        if self.rendered is None:
            return Text(f"{self.item.envelope.kind} (not rendered)")
        return present.envelope(self.rendered)


def _button(action: Action) -> Button:
    # Clickable, but not a Tab stop: the envelope itself takes focus and has a key for each
    # action, so Tab and Shift+Tab move between envelopes, not between their buttons.
    button = Button(action.label, name=action.name, compact=True)
    button.can_focus = False
    return button
