"""The statistics and doctor screens: what they show, gathered from the chat and the machine.

Statistics are the chat's inspector's (`TimelineController.inspector`, folded as events
arrived), drawn as ``openwop-tui stats`` draws them. The doctor runs the checks of
`openwop_tui.doctor` off the event loop (the audio device, the store and log paths touch the
disk): the machine as the app found it (the image protocol probed before the app took the
terminal, the sound probe's answer), then the host the chat is connected to, with its key.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, cast, get_args

from openwop_tui.config import default_config_path
from openwop_tui.devices.audio import probe
from openwop_tui.devices.terminal import ImageProtocol, ImageSupport
from openwop_tui.logs import default_log_path
from openwop_tui.store.database import default_path
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.connection import ConnectionController
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.timeline import TimelineController
from openwop_tui.ui.workers import Deferred

if TYPE_CHECKING:
    from openwop_tui import doctor  # (imported when the doctor is first asked: `machine`)


class DiagnosticsController:
    """Opens the statistics and doctor screens."""

    def __init__(
        self,
        chat: Chat,
        timeline: TimelineController,
        lab: LabController,
        connection: ConnectionController,
    ) -> None:
        """Keep what the statistics and doctor screens read.

        Args:
            chat: What every controller works on.
            timeline: Its inspector's statistics fill the statistics screen.
            lab: The image and audio support the doctor reports.
            connection: The embedded host, if one runs, for the doctor.
        """
        self.chat = chat
        self.timeline = timeline
        self.lab = lab
        self.connection = connection

    def open_stats(self) -> None:
        from openwop_tui.ui.screens.stats import StatsScreen

        self.chat.app.push_screen(StatsScreen(lambda: self.timeline.inspector.stats()))

    def open_doctor(self) -> None:
        from openwop_tui.ui.screens.doctor import DoctorScreen

        screen = DoctorScreen()
        self.chat.app.push_screen(screen)
        self.chat.app.run_worker(
            Deferred(lambda: self._check(screen)), group="doctor", exclusive=True
        )

    def machine(self) -> doctor.Machine:
        """This machine as the app found it."""
        from openwop_tui import doctor

        app = self.chat.app
        config = self.chat.config
        mode = cast(ImageProtocol, config.images)
        if mode not in get_args(ImageProtocol):
            mode = "none"
        images = self.lab.image_support or ImageSupport(
            mode, "not probed (the app was started without a terminal)"
        )
        return doctor.Machine(
            environ=os.environ,
            size=os.terminal_size((app.size.width, app.size.height)),
            images=images,
            requested_images=config.images,
            audio=config.audio,
            config_path=default_config_path(os.environ),
            config_given=False,
            store_path=self.chat.store.path if self.chat.store is not None else default_path(),
            log_path=getattr(app, "log_file", None) or default_log_path(),
        )

    async def checks(self) -> list[doctor.Check]:
        """Every check, the host's last."""
        from openwop_tui import doctor

        known = self.lab.audio_support
        machine = self.machine()
        checks = await asyncio.to_thread(
            doctor.local_checks, machine, probe=(lambda: known) if known is not None else probe
        )
        config = self.chat.config
        demo = self.connection.demo_host
        if config.host is not None:
            checks += await doctor.host_checks(config.host, config.api_key)
        elif demo is not None and self.chat.client is not None:
            checks += await doctor.host_checks(demo.url, demo.api_key)
        return checks

    async def _check(self, screen: object) -> None:
        from openwop_tui.ui.screens.doctor import DoctorScreen

        found = await self.checks()
        if isinstance(screen, DoctorScreen) and screen.is_attached:
            screen.show(found)
