"""Where no sound can play, the lab and the clip say so (issue 27: "the lab says "audio on"
under "no PortAudio""; "the audio alt says "played through your sound card" where none is").

An app whose machine has no PortAudio (the probe's own sentence): the lab's audio line reads
off with the badge's words for why, and so does its summary and the matrix view's; the demo
clip drawn there says it cannot play here and what can be done, and nothing claims a sound
card. Without `LabController.no_audio` the lab showed "audio on"; without the demo host's
`AUDIO_ALT` the clip's alt said it "was played through your sound card".
"""

from __future__ import annotations

import re

from app_support import (
    SIZE,
    all_rendered,
    connected,
    envelope_views,
    plain,
    select_item,
    settle,
    turn,
)

from openwop_tui.config import Config
from openwop_tui.demo_host import DemoHost
from openwop_tui.renderers import AudioSupport
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.capabilities import CapabilitiesScreen
from openwop_tui.ui.screens.matrix import MatrixScreen

NO_PORTAUDIO = AudioSupport(False, "PortAudio library not found")


async def test_without_portaudio_the_lab_and_the_clip_say_audio_is_off_and_why() -> None:
    app = ChatApp(
        Config(images="halfblock"),
        demo_host=DemoHost(pace=0, deterministic=True),
        audio_support=NO_PORTAUDIO,
    )
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "audio please")
        (clip,) = envelope_views(app)
        await select_item(pilot, app, clip)
        await settle(pilot, app, lambda: all_rendered(app), what="the clip drawn")
        drawn = app.view.text_of(clip.item_id)
        assert "cannot play here: PortAudio library not found" in drawn
        assert "sound card" not in drawn and "press s to save" in drawn

        await pilot.press("f4")
        await settle(pilot, app, lambda: isinstance(app.screen, CapabilitiesScreen), what="lab")
        screen = app.screen
        assert isinstance(screen, CapabilitiesScreen)
        lab = plain(screen.profile_table())
        assert re.search(r"audio +off: no PortAudio \(switch on\) +next: off", lab), lab
        assert "audio on" not in lab and "audio off (no PortAudio)" in lab
        await pilot.press("a")  # the switch off too: still off, still why
        await settle(pilot, app, lambda: not app.lab.profile.audio, what="switched off")
        assert re.search(r"audio +off: no PortAudio +next: on", plain(screen.profile_table()))
        await pilot.press("m")  # the matrix view of the clip: every profile says it
        await settle(pilot, app, lambda: isinstance(app.screen, MatrixScreen), what="matrix")
        await pilot.pause()
        shown = "\n".join(
            "".join(segment.text for segment in row)
            for row in app.screen._compositor.render_strips()
        )
        assert "audio off (no PortAudio)" in shown and "audio on" not in shown
