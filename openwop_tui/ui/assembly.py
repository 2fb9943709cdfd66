"""The chat the app opens with and the controllers the app has once, made (`assemble`).

Apart from `openwop_tui.ui.app` so that importing the app's class imports none of the
controllers, the conversation pipeline, the store or the renderers: the program draws its first
frame before this runs (`openwop_tui.ui.first_frame`), and everything imported here is then
paid for after the prompt is on screen. Tests that read the app's parts at once have it run in
the app's ``__init__``, as it always ran.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from openwop_tui.config import Config, default_config_path
from openwop_tui.renderers import Registry
from openwop_tui.ui import heap
from openwop_tui.ui.controllers.chat import Common
from openwop_tui.ui.controllers.connection import ConnectionController
from openwop_tui.ui.controllers.leaving import Leaving
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.recall import RecallController
from openwop_tui.ui.controllers.search_all import SearchAllController
from openwop_tui.ui.controllers.sessions import open_chat
from openwop_tui.ui.controllers.tab import Kit
from openwop_tui.ui.controllers.tabs import OnePlayer, TabsController

if TYPE_CHECKING:
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.renderers.base import AudioSupport
    from openwop_tui.ui.app import ChatApp
    from openwop_tui.ui.controllers.reopening import Newest
    from openwop_tui.ui.first_frame import FirstPane
    from openwop_tui.ui.options import AppOptions

__all__ = ["Assembled", "assemble"]


@dataclass
class Assembled:
    """What `assemble` made, for the app to keep."""

    tabs: TabsController
    """The open chats, one per tab, and the one on screen."""
    lab: LabController
    connection: ConnectionController
    recall: RecallController
    leaving: Leaving
    search_all: SearchAllController
    newest: Newest | None
    """A long reopened session's newest items, shown first (`ChatApp.on_mount`)."""
    warnings: list[str] = field(default_factory=list)
    """What went wrong while opening (a store that cannot be written, a recording file)."""


def assemble(
    app: ChatApp,
    config: Config,
    options: AppOptions,
    *,
    demo_host: DemoHost | None,
    audio_support: AudioSupport | None,
    first: FirstPane | None,
) -> Assembled:
    """Open the chat (stored, new or replayed) and make the first tab and the controllers the
    app has once.

    Args:
        app: The app they are made for.
        config: The configuration it runs with.
        options: How it starts (a stored session, a recording to replay or write, a run to
            attach to, the image protocol).
        demo_host: An embedded host in place of the default one; None makes the default.
        audio_support: What the sound card can play, already known; None probes.
        first: The first frame's widgets, on screen already, for the first tab; None makes
            them (`openwop_tui.ui.first_frame`).
    """
    conversation, store, problem, newest = open_chat(
        config, options.session_id, options.record, replaying=options.replay is not None
    )
    # A reopened session's hundreds of thousands of objects live as long as the chat, and
    # were made with the collector paused: frozen now, before the app's start-up makes
    # more, or its first pass walks them all (60-80 ms at 3,000 turns) before any frame.
    heap.settle(collect=False)
    common = Common(
        app=app,
        config=config,
        registry=Registry(override=config.renderer_override).load(),
        redact=app.redact,
        store=store,
        replaying=options.replay,
    )
    tabs = TabsController(common, first)
    lab = LabController(common, tabs, options.image_support, audio_support, app.palette)
    connection = ConnectionController(common, tabs, lab, demo_host)
    recall = RecallController(common, tabs)
    leaving = Leaving(common, tabs)
    config_file = options.config_path or default_config_path(os.environ)
    kit = Kit(lab, connection, OnePlayer(), config_file, *tabs.openers())
    tabs.begin(conversation, kit, recall.prime, attach_to=options.attach)
    return Assembled(
        tabs,
        lab,
        connection,
        recall,
        leaving,
        SearchAllController(tabs),
        newest,
        [problem] if problem else [],
    )
