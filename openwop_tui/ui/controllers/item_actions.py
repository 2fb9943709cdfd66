"""What the user asks of one transcript item (`ActionRequested`): copy, inspect, the matrix view,
play and the player keys, save and open, an embed's browser, and a plugin renderer's own actions.

`ItemActionsController` routes each action to the part that carries it out (`Playback`,
`FilesController`, `LabController`) and turns their failures into one notification each.
"""

from __future__ import annotations

import asyncio

from openwop_tui.core.fold import AssistantTurn, EnvelopeItem
from openwop_tui.devices import clipboard
from openwop_tui.devices import desktop as actions
from openwop_tui.devices.audio import PlaybackError
from openwop_tui.ui.controllers.browser import open_embed
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.files import NAMES as FILE_ACTIONS
from openwop_tui.ui.controllers.files import FilesController
from openwop_tui.ui.controllers.playback import CONTROLS, Playback
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.resend import ResendController
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.transcript.blocks import code_blocks


class ItemActionsController:
    """Carries out the actions of transcript items."""

    def __init__(
        self,
        chat: Chat,
        playback: Playback,
        files: FilesController,
        lab: LabController,
        timeline: TimelineController | None = None,
        resend: ResendController | None = None,
    ) -> None:
        """Keep the controllers that carry out item actions.

        Args:
            chat: What every controller works on.
            playback: Plays, pauses and stops audio items.
            files: Opens, saves and copies what an item holds.
            lab: Opens the matrix view of an envelope.
            timeline: Where the inspector finds the lint findings about an envelope's event; None
                for no findings.
            resend: Edits and regenerates the last message (``E``, ``r`` on it); None when it
                cannot.
        """
        self.chat = chat
        self.playback = playback
        self.files = files
        self.lab = lab
        self.timeline = timeline
        """Where the inspector finds the lint findings about an envelope's event."""
        self.resend = resend
        """Edits and regenerates the last message (``E``, ``r`` on it)."""

    async def act(self, item_id: str, name: str) -> None:
        """Carry out action ``name`` on item ``item_id``."""
        chat = self.chat
        app = chat.app
        block = chat.parts.view.block_for(item_id)
        if block is None:
            return
        item = block.item
        if name == "matrix":
            app.run_worker(self.lab.open_matrix(item.id), group="matrix")
            return
        if name in ("edit", "regenerate") and self.resend is not None:
            if name == "edit":
                self.resend.edit(item.id)
            else:
                await self.resend.regenerate(item.id)
            return
        if not isinstance(item, EnvelopeItem):
            text = block.copy_text()
            if name == "copy-code":
                found = code_blocks(item.text) if isinstance(item, AssistantTurn) else []
                if not found:
                    app.notify("no code block in this item", severity="warning")
                    return
                text = found[-1]
            app.copy_to_clipboard(text)
            app.notify("copied to the clipboard")
            return
        rendered = block.rendered
        if rendered is None:
            return
        if name == "inspect":
            from openwop_tui.ui.screens.inspect import InspectScreen

            downloads = chat.download_folder()
            source = item.envelope.source
            findings = self.timeline.findings_for(source) if self.timeline is not None else []
            app.push_screen(
                InspectScreen(item.envelope, rendered, downloads=downloads, findings=findings)
            )
            return
        try:
            if name in CONTROLS:
                await self.playback.act(item, name, rendered)
            elif name == "open" and rendered.renderer == "embed":
                message = await asyncio.to_thread(open_embed, rendered)
                app.notify(message, markup=False)  # `ChatApp.notify` cleans every one
            elif name in FILE_ACTIONS:
                await self.files.carry_out(name, rendered)
            elif name == "copy":
                # What the renderer kept is what was shown: code as sent, the full JSON.
                data = rendered.data
                text = (
                    data.decode("utf-8", "replace")
                    if data is not None
                    else item.envelope.text or ""
                )
                folder = chat.download_folder()
                outcome = await clipboard.copy_text(app, text, folder, what="the text")
                app.notify(outcome.message, severity=outcome.severity, markup=False)
            else:  # a renderer's own action (a plugin's): its handler says what it did
                message = await asyncio.to_thread(
                    chat.registry.run_action, rendered.renderer, name, item.envelope, rendered
                )
                app.notify(message, markup=False)
        except (actions.ActionError, PlaybackError) as error:
            app.notify(str(error), severity="error", timeout=8, markup=False)
