"""The degradation lab in the app: switches from the palette and the capabilities screen redraw
every item of the tour at once, without a new run; the matrix view draws one envelope under
each profile."""

from __future__ import annotations

import re
from typing import Any

from app_support import (
    SIZE,
    all_rendered,
    connected,
    demo_app,
    draw_everything,
    envelope_views,
    items_of,
    plain,
    select_item,
    settle,
    turn,
)
from rich.color import ColorType
from textual.command import CommandList, CommandPalette
from textual.containers import VerticalScroll
from textual.pilot import Pilot

from openwop_tui.core.fold import UserTurn
from openwop_tui.devices.profile import AUDIO_OFF_REASON, FETCH_OFF_REASON, IMAGES_OFF_REASON
from openwop_tui.renderers.base import Code
from openwop_tui.ui import keys
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.command_palette import COMMANDS, LAB_COMMANDS
from openwop_tui.ui.screens.capabilities import CapabilitiesScreen
from openwop_tui.ui.screens.matrix import MatrixPanel, MatrixScreen


async def palette_command(pilot: Pilot[Any], app: ChatApp, name: str) -> None:
    """Run a palette command by typing its name, as a person would."""
    await pilot.press("ctrl+p")
    await settle(pilot, app, lambda: isinstance(app.screen, CommandPalette), what="palette")
    await pilot.press(*name)
    commands = app.screen.query_one(CommandList)
    await settle(pilot, app, lambda: commands.option_count > 0, what=f"hits for {name}")
    first = str(commands.get_option_at_index(0).prompt)
    assert name in first, (name, first)
    await pilot.press("enter")
    await settle(pilot, app, lambda: not isinstance(app.screen, CommandPalette), what="ran")


async def redrawn(pilot: Pilot[Any], app: ChatApp) -> None:
    """Every envelope drawn again under the new profile (the view draws what it shows)."""
    await draw_everything(pilot, app)
    await settle(
        pilot,
        app,
        lambda: all(not block.stale for block in envelope_views(app)),
        what="every envelope redrawn",
    )


async def tour(pilot: Pilot[Any], app: ChatApp) -> int:
    """The tour, every item drawn; returns the number of runs so far."""
    await connected(pilot, app)
    await turn(pilot, app, "show me everything")
    await draw_everything(pilot, app)
    return len(items_of(app, UserTurn))


async def test_images_off_describes_every_drawn_image_and_half_blocks_bring_them_back() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        runs = await tour(pilot, app)
        drawn = [b for b in envelope_views(app) if b.rendered and b.rendered.cells is not None]
        assert len(drawn) >= 3  # the chart, the inline badge, the animated GIF at least
        ids = [block.item_id for block in drawn]

        await palette_command(pilot, app, "Images: off")
        await redrawn(pilot, app)
        for item_id in ids:
            block = app.view.block_for(item_id)
            assert block is not None and block.rendered is not None
            degradation = block.rendered.degradation
            assert degradation is not None and degradation.code == Code.IMAGES_OFF, item_id
            text = app.view.text_of(item_id)
            assert "▄" not in text and "not shown here" in text
            assert "switched off in the lab" in text  # the reason, in the body
            assert "images off → description" in text  # and the badge
        assert IMAGES_OFF_REASON.startswith("image display is switched off")

        await palette_command(pilot, app, "Images: half-blocks")
        await redrawn(pilot, app)
        for item_id in ids:
            block = app.view.block_for(item_id)
            assert block is not None and block.rendered is not None
            assert block.rendered.cells is not None, item_id
            assert "▄" in app.view.text_of(item_id)
        assert len(items_of(app, UserTurn)) == runs  # no new run: the same items, redrawn


async def test_a_switch_keeps_every_where_absolute() -> None:
    """Redrawn from the stored bytes, a fetched item still says where it came from in full
    (the stored copy is keyed by the envelope's relative URL)."""
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await tour(pilot, app)
        await palette_command(pilot, app, "Images: off")
        await redrawn(pilot, app)
        checked = 0
        for block in envelope_views(app):
            text = app.view.text_of(block.item_id)
            shown = [line for line in text.splitlines() if "/v1/host/" in line]
            for line in shown:
                assert "http://127.0.0.1:" in line, line
            checked += len(shown)
        assert checked >= 5  # the chart, the audio, the undecodable image, the GIF, the BMP …


def colour_types(app: ChatApp) -> set[ColorType]:
    view = app.view
    found: set[ColorType] = set()
    for block in view.blocks():
        for strip in block.lines(app.console, view.column.width, view.palette, view.colours):
            for segment in strip:
                style = segment.style
                for colour in (style.color, style.bgcolor) if style is not None else ():
                    if colour is not None:
                        found.add(colour.type)
    return found


async def test_16_colours_leave_no_truecolor_or_256_colour_in_any_item() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await tour(pilot, app)
        assert ColorType.TRUECOLOR in colour_types(app)  # the theme and the pixels, before
        await palette_command(pilot, app, "Colours: 16")
        await redrawn(pilot, app)
        assert colour_types(app) <= {ColorType.STANDARD, ColorType.DEFAULT}
        await palette_command(pilot, app, "Colours: none")
        await redrawn(pilot, app)
        assert colour_types(app) <= {ColorType.DEFAULT}
        await palette_command(pilot, app, "Colours: true colour")
        await redrawn(pilot, app)
        assert ColorType.TRUECOLOR in colour_types(app)


async def test_width_80_draws_every_item_in_80_columns() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:  # 120 columns
        await tour(pilot, app)
        await palette_command(pilot, app, "Width: 80")
        await redrawn(pilot, app)
        for block in app.view.blocks():
            for line in app.view.text_of(block.item_id).splitlines():
                assert len(line.rstrip()) <= 80, line
        chart = next(b for b in envelope_views(app) if b.rendered and b.rendered.cells)
        assert chart.rendered is not None and chart.rendered.cells is not None
        assert chart.rendered.cells[0] <= 80


async def test_fetching_and_audio_off_say_so_and_inline_bytes_still_show() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await tour(pilot, app)
        await palette_command(pilot, app, "Media fetching: off")
        await palette_command(pilot, app, "Audio: off")
        await redrawn(pilot, app)
        views = {b.item.envelope.rendering.title: b for b in envelope_views(app)}  # type: ignore[union-attr]
        chart = views["Demo revenue by region"].rendered
        assert chart is not None and chart.degradation is not None
        assert chart.degradation.code == Code.NOT_FETCHED
        assert FETCH_OFF_REASON in chart.degradation.reason
        badge = views["Inline image"].rendered  # inline bytes are no fetch
        assert badge is not None and badge.cells is not None
        speech = app.view.text_of(views["Spoken greeting"].item_id)
        assert "not fetched" in speech  # no bytes to play at all: fetching is off
        await palette_command(pilot, app, "Media fetching: on")
        await redrawn(pilot, app)
        speech_block = views["Spoken greeting"]
        assert speech_block.rendered is not None and speech_block.rendered.degradation is not None
        assert speech_block.rendered.degradation.code == Code.NO_AUDIO
        assert AUDIO_OFF_REASON in app.view.text_of(speech_block.item_id)


async def test_every_lab_command_is_in_the_palette() -> None:
    app = demo_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await connected(pilot, app)
        for command in LAB_COMMANDS:
            assert command in COMMANDS
            assert keys.available(app, command.action), command.name
        names = {command.name for command in COMMANDS}
        for wanted in (
            "Images: off", "Images: half-blocks", "Images: kitty", "Images: sixel",
            "Colours: 16", "Colours: 256", "Colours: true colour", "Colours: none",
            "Audio: off", "Audio: on", "Media fetching: off", "Media fetching: on",
            "Width: 80", "Width: 120", "Width: full",
        ):  # fmt: skip
            assert wanted in names


async def test_the_capabilities_screen_shows_the_probe_and_flips_switches() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await pilot.press("f4")
        await settle(pilot, app, lambda: isinstance(app.screen, CapabilitiesScreen), what="lab")
        screen = app.screen
        assert isinstance(screen, CapabilitiesScreen)
        shown = plain(screen.probed_table())
        assert "images" in shown and "half-blocks, as set" not in shown  # tests pass no probe
        assert "not probed" in shown and "no audio device (test)" in shown
        # What the host takes from a person (issue 25, part 4), as the doctor says it.
        assert "attachments" in shown and "pictures read; sound read" in shown
        assert app.lab.profile.images == "halfblock"
        await pilot.press("i")  # half-blocks → off
        await settle(pilot, app, lambda: app.lab.profile.images == "none", what="images off")
        assert re.search(r"images +off +next: kitty", plain(screen.profile_table()))
        await pilot.press("c")
        await settle(pilot, app, lambda: app.lab.profile.colours == "256", what="next colours")
        await pilot.press("a", "f", "w")
        await settle(pilot, app, lambda: app.lab.profile.width == 80, what="width 80")
        assert not app.lab.profile.audio and not app.lab.profile.fetching
        assert app.view.colours == "256" and app.view.width_cap == 80
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, CapabilitiesScreen))


async def test_the_matrix_view_draws_the_selected_envelope_under_each_profile() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await tour(pilot, app)
        chart = next(
            b
            for b in envelope_views(app)
            if b.item.envelope.rendering.title == "Demo revenue by region"  # type: ignore[union-attr]
        )
        await select_item(pilot, app, chart)
        await pilot.press("m")
        await settle(pilot, app, lambda: isinstance(app.screen, MatrixScreen), what="matrix")
        screen = app.screen
        assert isinstance(screen, MatrixScreen)
        names = [name for name, _profile, _rendered in screen.drawn]
        assert names == ["half-blocks", "no images", "16 colours", "no audio", "80 columns"]
        drawn = {name: rendered for name, _profile, rendered in screen.drawn}
        assert drawn["half-blocks"].cells is not None
        off = drawn["no images"].degradation
        assert off is not None and off.code == Code.IMAGES_OFF
        assert drawn["80 columns"].cells is not None and drawn["80 columns"].cells[0] <= 80
        panels = list(screen.query(MatrixPanel))
        assert len(panels) == 5
        assert all(panel.border_title for panel in panels)
        # It has the keys at once: PageDown scrolls its panels, not the transcript beneath.
        await pilot.pause()
        scroll = screen.query_one(VerticalScroll)
        assert scroll.has_focus
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("escape")
        await settle(pilot, app, lambda: not isinstance(app.screen, MatrixScreen))
        await settle(pilot, app, lambda: all_rendered(app))
