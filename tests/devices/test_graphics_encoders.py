"""The kitty and sixel encoders, decoded back and compared with the image, pixel by pixel."""

from __future__ import annotations

import io

from graphics_decode import decode_kitty, decode_sixel
from PIL import Image, ImageChops, ImageStat
from rich.console import Console

from openwop_tui.devices.graphics import KittyGraphic, SixelGraphic, cell_box, passthrough
from openwop_tui.devices.graphics.kitty import EIGHT_BIT_IDS
from openwop_tui.devices.graphics.sixel import quantise


def gradient(width: int = 37, height: int = 23) -> Image.Image:
    image = Image.new("RGB", (width, height))
    image.putdata(
        [(x * 7 % 256, y * 11 % 256, (x * y) % 256) for y in range(height) for x in range(width)]
    )
    return image


def printed(renderable: object, color_system: str = "truecolor") -> str:
    sink = io.StringIO()
    console = Console(file=sink, width=120, force_terminal=True, color_system=color_system)  # type: ignore[arg-type]
    console.print(renderable)
    return sink.getvalue()


def test_kitty_sends_png_in_4096_byte_chunks_and_places_it_in_placeholder_cells() -> None:
    image = Image.effect_noise((300, 200), 90).convert("RGB")  # noise: many chunks
    graphic = KittyGraphic(image, (30, 10))
    images = decode_kitty(printed(graphic))
    assert list(images) == [graphic.image_id]
    sent = images[graphic.image_id]
    assert ImageChops.difference(sent.image, image).getbbox() is None  # lossless
    assert sent.placement == (30, 10)
    assert sorted(sent.cells) == [(row, column) for row in range(10) for column in range(30)]


def test_kitty_commands_are_taken_once() -> None:
    graphic = KittyGraphic(gradient(), (4, 2))
    commands = graphic.take_commands()
    assert commands and graphic.take_commands() == []
    again = printed(graphic)
    assert "\x1b_G" not in again  # only the cells: the view already sent the image
    assert again.count("\U0010eeee") == 8


def test_kitty_inside_tmux_goes_through_the_passthrough() -> None:
    graphic = KittyGraphic(gradient(), (4, 2), tmux=True)
    text = printed(graphic)
    assert "\x1b_G" not in text.replace("\x1b\x1b_G", "")  # every command is wrapped
    assert text.count("\x1bPtmux;") >= 2
    assert graphic.image_id in decode_kitty(text)
    assert passthrough("\x1b_Gx\x1b\\") == "\x1bPtmux;\x1b\x1b_Gx\x1b\x1b\\\x1b\\"


def test_sixel_decodes_to_the_quantised_image_and_is_close_to_the_source() -> None:
    image = gradient(53, 31)  # 31 rows: five full bands and a partial one
    graphic = SixelGraphic(image, (6, 2))
    decoded = decode_sixel(printed(graphic))
    assert len(decoded) == 1 and decoded[0].size == image.size
    drawn = quantise(image).convert("RGB")
    # Exact but for the palette's percentages (1 % of 255 is 2.55).
    assert max(high for _low, high in ImageChops.difference(decoded[0], drawn).getextrema()) <= 2
    error = ImageStat.Stat(ImageChops.difference(decoded[0], image)).mean
    assert max(error) < 16  # 256 colours for a busy image: dithered, close on average


def test_sixel_uses_run_lengths_for_flat_areas() -> None:
    flat = Image.new("RGB", (200, 12), (10, 200, 30))
    text = SixelGraphic(flat, (20, 1)).data
    assert "!200" in text
    decoded = decode_sixel(text)[0]
    assert decoded.getcolors() == [(2400, (10, 199, 31))] or len(decoded.getcolors() or []) == 1


def test_the_cell_box_keeps_the_aspect_ratio_and_never_enlarges() -> None:
    assert cell_box((800, 600), (64, 24), (10, 20)) == ((640, 480), (64, 24))
    pixels, cells = cell_box((800, 600), (40, 24), (10, 20))
    assert pixels == (400, 300) and cells == (40, 15)
    assert cell_box((30, 10), (80, 24), (10, 20)) == ((30, 10), (3, 1))  # not enlarged
    (width, height), _ = cell_box((1, 5000), (80, 24), (10, 20))
    assert height == 480 and width == 1


def test_with_256_colours_the_id_is_a_colour_index_and_a_third_diacritic() -> None:
    # Textual (and Rich) write 256 colours in tmux without true colour: the id must survive.
    ids = set()
    for _ in range(len(EIGHT_BIT_IDS) + 3):  # past one round of indices: the high byte counts
        graphic = KittyGraphic(gradient(), (3, 2), truecolor=False)
        text = printed(graphic, color_system="256")
        assert "38;2;" not in text
        images = decode_kitty(text)
        assert list(images) == [graphic.image_id]
        assert sorted(images[graphic.image_id].cells) == [
            (r, c) for r in range(2) for c in range(3)
        ]
        ids.add(graphic.image_id)
    assert len(ids) == len(EIGHT_BIT_IDS) + 3
    assert any(image_id >> 24 for image_id in ids)


def test_kitty_needs_256_colours_at_least() -> None:
    from openwop_tui.devices.terminal import ImageSupport

    assert ImageSupport("kitty", "test", colours="256").graphics().protocols == {"kitty"}
    assert not ImageSupport("kitty", "test", colours="256").graphics().truecolor
    few = ImageSupport("kitty", "test", colours="standard").graphics()
    assert not few.protocols
    assert few.reason == "the output is written in standard colours, too few to name an image"
