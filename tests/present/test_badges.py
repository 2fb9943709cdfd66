"""Every item says what drew it and, when a fallback ran, which and why: the badge, in the app,
in printed output and in the inspector; and the lab's switches outside the app (``--colors``,
``--width``, ``--audio`` on ``render`` and ``run``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_support import (
    SIZE,
    connected,
    demo_app,
    draw_everything,
    envelope_views,
    plain,
    turn,
)
from render_helpers import media, png, render
from rich.cells import cell_len

from openwop_tui.__main__ import main
from openwop_tui.cli.output import display_output
from openwop_tui.cli.parser import build_parser
from openwop_tui.config import Config
from openwop_tui.draw.palette import Palette
from openwop_tui.present import items as present
from openwop_tui.renderers.base import AudioSupport, Code, RenderContext
from openwop_tui.ui.screens.inspect import drawn

SGR = re.compile(r"\x1b\[([0-9;]*)m")


def test_a_drawn_envelope_carries_its_badge() -> None:
    rendered = render(media("image", png(8, 8), mime="image/png"), RenderContext())
    assert rendered.renderer == "image"
    text = plain(present.envelope(rendered))
    assert "⌁ image · half-blocks" in text


def test_a_degraded_envelope_badge_names_the_fallback_and_why() -> None:
    rendered = render(media("image", png(8, 8), mime="image/png"), RenderContext(images="none"))
    text = plain(present.envelope(rendered))
    assert "⌁ image · images off → description" in text


def test_the_inspector_shows_every_field_of_the_degradation_record() -> None:
    envelope = media("image", url="https://example.org/a.png", mime="image/png", bytes=10)
    rendered = render(envelope, RenderContext())
    assert rendered.degradation is not None
    shown = plain(drawn(rendered, Palette.default()))
    assert "drawn image · not fetched → description" in shown
    assert f"code {Code.NOT_FETCHED.value}" in shown
    assert f"reason {rendered.degradation.reason}" in shown
    assert "instead description" in shown
    assert "reference https://example.org/a.png" in shown


async def test_every_envelope_in_the_app_shows_its_badge() -> None:
    app = demo_app(images="halfblock")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "show me everything")
        await draw_everything(pilot, app)
        blocks = envelope_views(app)
        assert blocks
        for block in blocks:
            assert block.rendered is not None
            assert f"⌁ {block.rendered.badge}" in app.view.text_of(block.item_id), block.item_id
        badges = {block.rendered.badge for block in blocks if block.rendered}
        assert "image · half-blocks" in badges
        assert any("first frame" in badge for badge in badges)  # the animated GIF
        assert any(badge.startswith("json · ") for badge in badges)  # the unknown hint


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lab") / "tour.sse"
    assert main(["run", "demo.tour", "--demo-pace", "0", "--record", str(path)]) == 0
    return path


def visible(output: str) -> list[str]:
    return SGR.sub("", output).splitlines()


def test_render_in_16_colours_80_columns_without_audio(
    recording: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["render", str(recording), "--colors", "16", "--width", "80", "--audio", "off"])
    out = capsys.readouterr().out
    assert code == 0
    parameters = [p for match in SGR.finditer(out) for p in match.group(1).split(";") if p]
    assert parameters  # coloured, even into a pipe: asked for
    assert "38" not in parameters and "48" not in parameters  # no 256 / true colour sequence
    assert any(30 <= int(p) <= 37 or 90 <= int(p) <= 97 for p in parameters)
    lines = visible(out)
    assert max(cell_len(line) for line in lines) <= 80
    text = "\n".join(lines)
    assert "▄" in text  # images still drawn, in 16 colours
    assert "⌁ image · half-blocks" in text
    assert "⌁ audio · " in text  # a recording has no audio bytes: described, with its badge


@pytest.mark.parametrize("command", [["render", "x.sse"], ["run", "demo.tour"]])
def test_both_commands_read_the_display_flags_the_same_way(command: list[str]) -> None:
    args = build_parser().parse_args(
        [*command, "--colors", "16", "--width", "80", "--audio", "off"]
    )
    output = display_output(args, Config())
    context = output.context(AudioSupport(True))
    assert context.audio == AudioSupport(False, "audio is switched off (--no-audio)")
    assert context.width == 80 and output.console.width == 80
    assert output.console.color_system == "standard"


def test_render_without_colours_keeps_bold_and_describes_images(
    recording: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["render", str(recording), "--colors", "none"]) == 0
    out = capsys.readouterr().out
    parameters = {p for match in SGR.finditer(out) for p in match.group(1).split(";") if p}
    assert "1" in parameters  # bold stays
    assert not {p for p in parameters if p not in {"0", "1", "2", "3", "4", "22", "23", "24"}}
    text = "\n".join(visible(out))
    assert "the output has no colours (--colors none)" in text
    assert "⌁ image · images off → description" in text


@pytest.mark.parametrize("images", ["halfblock", "kitty"])
def test_forced_pixels_without_colours_are_described(
    recording: Path, capsys: pytest.CaptureFixture[str], images: str
) -> None:
    """Half-block cells and kitty ids are colours: forced with ``--colors none`` they would
    print blank cells, so the image is described with the reason."""
    assert main(["render", str(recording), "--colors", "none", "--images", images]) == 0
    text = "\n".join(visible(capsys.readouterr().out))
    assert "these pixels are colours" in text
    assert "⌁ image · images off → description" in text


def test_run_takes_the_same_flags(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "demo.tour", "--demo-pace", "0", "--colors", "256", "--width", "90"]
    assert main([*args, "--audio", "off"]) == 0
    out = capsys.readouterr().out
    assert "38;2;" not in out and "48;2;" not in out  # 256 colours: no true colour
    assert "38;5;" in out or "48;5;" in out
    assert max(cell_len(line) for line in visible(out)) <= 90
    assert "audio is switched off (--no-audio)" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--width", "wide"], "is not a number of columns"),
        (["--width", "5"], "give 20 to 1000"),
        (["--colors", "8"], "'8' is not one of truecolor, 256, 16, none"),
        (["--audio", "loud"], "'loud' is not one of"),
    ],
)
def test_bad_display_flags_are_usage_errors(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["render", "-", *args])
    assert exit_.value.code == 2
    assert fragment in capsys.readouterr().err
