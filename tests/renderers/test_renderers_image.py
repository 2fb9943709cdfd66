"""The ``image`` renderer: half-block pixels, and every way an image can fail to be drawn."""

from __future__ import annotations

import base64
import io
import struct
import zlib

import pytest
from graphics_decode import decode_kitty, decode_sixel
from PIL import Image, SgiImagePlugin, TiffImagePlugin
from render_helpers import NASTY, envelope, media, png, render, shown
from rich.console import Console

from openwop_tui.draw.palette import Palette
from openwop_tui.renderers import Asset, Code, RenderContext, Rendered
from openwop_tui.renderers.base import Graphics
from openwop_tui.ui import theme_palette

URL = "https://api.example.com/v1/host/sample/assets/Zq3v9mJt0XbW"


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims ``width``x``height`` pixels but carries no image data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")


def url_image(asset: Asset | None) -> tuple[str, Rendered]:
    env = media(
        "image",
        url=URL,
        mime="image/png",
        bytes=184320,
        rendering={"alt": "Bar chart of Q3 revenue", "title": "Q3 revenue"},
    )
    result = render(env, RenderContext(asset=asset))
    return shown(result), result


def test_inline_image_is_drawn_with_a_caption() -> None:
    data = png(4, 4)
    env = media("image", data, mime="image/png", rendering={"alt": "A red square"})
    result = render(env, RenderContext())
    assert result.degraded is None
    assert result.data == data
    assert [a.name for a in result.actions] == ["save", "open"]
    assert result.filename == "image.png"
    assert result.title == f"image · image/png · {len(data)} bytes"
    lines = shown(result).splitlines()
    assert lines[1] == "▄▄▄▄"  # 4 px wide, 4 px tall: two rows of half-blocks
    assert lines[2] == "▄▄▄▄"
    assert lines[3] == "A red square"
    assert lines[4] == f"4x4 px · image/png · {len(data)} bytes"


def test_big_image_is_scaled_to_the_width_and_capped_in_height() -> None:
    env = media("image", png(800, 600), mime="image/png")
    text = shown(render(env, RenderContext(width=80, max_inline_bytes=10**7)))
    rows = [line for line in text.splitlines() if "▄" in line]
    assert len(rows) == 24  # 600 px scaled into 48 px = 24 rows of half-blocks
    assert max(len(row.rstrip()) for row in rows) == 64  # aspect ratio kept: 800x600 → 64x48
    narrow = shown(render(env, RenderContext(width=40, max_inline_bytes=10**7)))
    assert max(len(line.rstrip()) for line in narrow.splitlines() if "▄" in line) == 40


def test_small_images_are_not_enlarged() -> None:
    text = shown(render(media("image", png(3, 5), mime="image/png"), RenderContext()))
    assert [line for line in text.splitlines() if "▄" in line] == ["▄▄▄"] * 3  # 5 px → 6 (even)


@pytest.mark.parametrize("theme", ["openwop-dark", "openwop-light", "openwop-high-contrast"])
def test_transparency_is_composited_on_the_theme_background(theme: str) -> None:
    """Half-block cells have no alpha: a transparent pixel takes the theme's background, so a
    transparent image on a light theme is not a black slab."""
    palette = theme_palette.named(theme)
    data = png(2, 2, mode="RGBA", color=(255, 0, 255, 0))
    result = render(media("image", data, mime="image/png"), RenderContext(palette=palette))
    sink = io.StringIO()
    Console(file=sink, color_system="truecolor", width=80).print(result.body)
    red, green, blue = (int(palette.background[i : i + 2], 16) for i in (1, 3, 5))
    assert f"38;2;{red};{green};{blue}" in sink.getvalue()
    assert f"48;2;{red};{green};{blue}" in sink.getvalue()
    assert "255;0;255" not in sink.getvalue()


def test_animation_shows_the_first_frame_and_says_how_many() -> None:
    frames = [Image.new("RGB", (4, 4), color) for color in ("red", "green", "blue")]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=100)
    result = render(media("image", out.getvalue(), mime="image/gif"), RenderContext())
    assert result.degraded is None
    assert "first of 3 frames" in shown(result)


def test_fetched_asset_is_drawn() -> None:
    data = png(6, 2)
    text, result = url_image(Asset(url=URL, data=data, content_type="image/png"))
    assert result.degraded is None
    assert "▄▄▄▄▄▄" in text
    wide = shown(result, width=200)
    assert f"{len(data)} bytes; the host advertised 184.3 KB (184,320 bytes)" in wide


def test_media_type_is_detected_when_nobody_says() -> None:
    env = envelope("media.image", {"base64": base64.b64encode(png()).decode()})
    result = render(env, RenderContext())
    assert result.media_type == "image/png"
    assert result.degraded is None


def test_images_off() -> None:
    data = png(640, 480)
    env = media("image", data, mime="image/png", rendering={"alt": "chart", "title": "Q3"})
    result = render(env, RenderContext(images="none"))
    reason = "not drawn: image display is off (--images none)"
    assert result.degraded == reason
    assert [a.name for a in result.actions] == ["save"]
    text = shown(result)
    assert "image not shown here" in text
    assert reason in text
    assert "640x480 px" in text and "chart" in text and "Q3" in text and "image/png" in text
    assert "inline data — press s to save" in text


def test_inline_data_larger_than_the_cap_is_not_decoded() -> None:
    env = media("image", png(64, 64, color=(1, 2, 3)) + bytes(4000), mime="image/png")
    result = render(env, RenderContext(max_inline_bytes=1000))
    assert result.data is None
    assert result.degraded is not None
    assert result.degraded.startswith("inline data larger than the host's advertised cap")
    text = shown(result, width=200)
    assert "(about 4.2 KB > 1.0 KB)" in text and "inline in the envelope only" in text


@pytest.mark.parametrize(
    "error",
    [
        "refused: file: URLs are never fetched",
        "HTTP 404 from host",
        "too large: 40.0 MB > 16.0 MB limit",
    ],
)
def test_asset_that_could_not_be_fetched(error: str) -> None:
    text, result = url_image(Asset(url=URL, error=error))
    assert result.degraded == error
    assert result.actions == ()
    assert "image not shown here" in text
    for fact in (error, URL, "Bar chart of Q3 revenue", "Q3 revenue", "184.3 KB (184,320 bytes)"):
        assert fact in text


def test_url_only_is_not_a_bare_media_type() -> None:
    text, result = url_image(None)
    assert result.degraded == "not fetched: the client has not downloaded this asset"
    assert URL in text and "image/png" in text and "Bar chart of Q3 revenue" in text


def test_undecodable_image() -> None:
    result = render(media("image", b"this is not a PNG", mime="image/png"), RenderContext())
    assert result.degraded == "cannot decode image/png: not a PNG, JPEG, GIF or WebP image"
    assert result.data == b"this is not a PNG"  # still saveable
    assert "inline data — press s to save" in shown(result)


def test_truncated_image() -> None:
    result = render(media("image", png(64, 64)[:80], mime="image/png"), RenderContext())
    assert result.degraded is not None and result.degraded.startswith("cannot decode image/png: ")


def test_pixel_bomb_header_is_refused_before_decoding() -> None:
    result = render(media("image", png_header(100_000, 100_000), mime="image/png"), RenderContext())
    assert result.degraded is not None
    assert result.degraded.startswith("not decoded (decompression-bomb guard)")
    assert "not decoded (decompression-bomb guard)" in shown(result)


def test_pixel_guard_uses_the_context_limit() -> None:
    env = media("image", png_header(10_000, 5_000), mime="image/png")
    result = render(env, RenderContext())
    reason = "not decoded (decompression-bomb guard): 50,000,000 pixels > 40,000,000 allowed"
    assert result.degraded == reason
    assert "10,000x5,000 px" in shown(result)
    small = render(
        media("image", png(20, 20), mime="image/png"), RenderContext(max_image_pixels=100)
    )
    assert small.degraded == "not decoded (decompression-bomb guard): 400 pixels > 100 allowed"


def test_image_hint_on_plain_text_shows_the_text() -> None:
    env = envelope("vendor.x", "just *words*", {"display": "image", "title": "T"})
    result = render(env, RenderContext())
    assert result.degraded == "image hint without a url or base64: shown as text"
    assert "just words" in shown(result)


def test_vendor_kind_with_a_media_payload_is_drawn() -> None:
    payload = {
        "base64": base64.b64encode(png(2, 2)).decode(),
        "mimeType": "image/png",
    }
    result = render(envelope("vendor.acme.chart", payload, {"display": "image"}), RenderContext())
    assert result.degraded is None and "▄▄" in shown(result)


def test_escapes_in_alt_title_url_and_error_are_neutralised() -> None:
    env = media(
        "image",
        url=f"https://e.com/{NASTY}",
        mime="image/png",
        rendering={"alt": NASTY, "title": NASTY},
    )
    result = render(env, RenderContext(asset=Asset(url=f"https://e.com/{NASTY}", error=NASTY)))
    assert "\x1b" not in result.title and "\x1b" not in (result.degraded or "")
    text = shown(result)  # asserts no raw ESC / BEL / 8-bit CSI
    assert text.count("<U+202E>") >= 4
    inline = render(
        media("image", png(), mime="image/png", rendering={"alt": NASTY}), RenderContext()
    )
    assert "␛]52;c;ZXZpbA==␇" in shown(inline)


# ------------------------------------------------------------- web formats only


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def refuse_to_parse(monkeypatch: pytest.MonkeyPatch, plugin: type) -> None:
    def fail(self: object) -> None:
        raise AssertionError(f"{plugin.__name__} parsed the bytes")

    monkeypatch.setattr(plugin, "_open", fail)


@pytest.mark.parametrize(
    ("fmt", "name", "mime"),
    [("TIFF", "TIFF", "image/tiff"), ("BMP", "BMP", "image/bmp"), ("ICO", "ICO", "")],
)
def test_a_format_that_is_not_for_the_web_is_named_and_not_decoded(
    monkeypatch: pytest.MonkeyPatch, fmt: str, name: str, mime: str
) -> None:
    refuse_to_parse(monkeypatch, TiffImagePlugin.TiffImageFile)
    data = encoded(Image.new("RGB", (8, 8), "red"), fmt)
    result = render(media("image", data, mime=mime or "image/x-icon"), RenderContext())
    assert result.degradation is not None
    assert result.degradation.code == Code.UNSUPPORTED
    assert result.degraded == (
        f"{name} is not a web image format: not decoded "
        "(this client decodes PNG, JPEG, GIF and WebP)"
    )
    assert result.data == data  # still saveable
    assert "▄" not in shown(result)


@pytest.mark.parametrize(
    ("head", "name"),
    [
        (b"%!PS-Adobe-3.0 EPSF-3.0\n", "EPS"),
        (b"8BPS\x00\x01", "PSD"),
        (b"\x00\x00\x00\x0cjP  \r\n\x87\n", "JPEG 2000"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "SVG"),
    ],
)
def test_other_formats_are_named_from_their_first_bytes(head: bytes, name: str) -> None:
    result = render(media("image", head + b"\0" * 64, mime="image/png"), RenderContext())
    assert result.degraded is not None and result.degraded.startswith(f"{name} is not a web")


def test_pillow_is_asked_for_web_formats_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # SGI has a signature nothing here names: only Image.open(formats=...) keeps Pillow's SGI
    # parser away from it.
    refuse_to_parse(monkeypatch, SgiImagePlugin.SgiImageFile)
    data = encoded(Image.new("RGB", (8, 8), "red"), "SGI")
    result = render(media("image", data, mime="image/sgi"), RenderContext())
    assert result.degradation is not None and result.degradation.code == Code.UNSUPPORTED
    assert result.degraded == "cannot decode image/sgi: not a PNG, JPEG, GIF or WebP image"


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP"])
def test_every_web_format_is_drawn(fmt: str) -> None:
    data = encoded(Image.new("RGB", (8, 8), "red"), fmt)
    result = render(media("image", data, mime=f"image/{fmt.lower()}"), RenderContext())
    assert result.degraded is None and result.detail == "half-blocks"


# ------------------------------------------------------------- kitty, sixel, fallbacks

KITTY = Graphics(frozenset({"kitty"}), (10, 20))
SIXEL = Graphics(frozenset({"sixel"}), (10, 20))


def printed(rendered: Rendered) -> str:
    sink = io.StringIO()
    Console(file=sink, width=100, force_terminal=True, color_system="truecolor").print(
        rendered.body
    )
    return sink.getvalue()


@pytest.mark.parametrize("mode", ["kitty", "sixel"])
def test_a_pixel_mode_the_output_does_not_take_falls_back_to_half_blocks(mode: str) -> None:
    context = RenderContext(images=mode, graphics=Graphics(reason="the terminal said no"))  # type: ignore[arg-type]
    result = render(media("image", png(8, 8), mime="image/png"), context)
    assert result.degraded is None
    assert result.detail == "half-blocks"
    assert result.fallback is not None
    assert result.fallback.code == Code.NO_GRAPHICS
    assert result.fallback.badge == f"{mode} unavailable → half-blocks"
    assert "the terminal said no" in result.fallback.reason
    assert "▄" in shown(result)
    assert result.badge == f"image · {mode} unavailable → half-blocks"  # said once


def test_kitty_draws_the_image_scaled_into_its_cells_keeping_the_aspect_ratio() -> None:
    source = Image.new("RGB", (400, 100), (0, 0, 255))
    source.paste((255, 255, 0), (0, 0, 200, 100))  # left half yellow
    result = render(
        media("image", encoded(source, "PNG"), mime="image/png"),
        RenderContext(width=30, graphics=KITTY, images="kitty"),
    )
    assert result.detail == "kitty" and result.fallback is None
    assert result.cells == (30, 4)  # 300x75 px: 30 columns, 3.75 rows → 4
    (sent,) = decode_kitty(printed(result)).values()
    assert sent.placement == (30, 4) and sent.image.size == (300, 80)
    assert sent.image.getpixel((10, 10)) == (255, 255, 0)
    assert sent.image.getpixel((290, 60)) == (0, 0, 255)
    background = Image.new("RGB", (1, 1), Palette.default().background).getpixel((0, 0))
    assert sent.image.getpixel((150, 78)) == background  # the rest of the last row: background


def test_sixel_draws_the_image_at_its_scaled_size() -> None:
    source = Image.new("RGB", (400, 100), (0, 200, 0))
    result = render(
        media("image", encoded(source, "PNG"), mime="image/png"),
        RenderContext(width=30, graphics=SIXEL, images="sixel"),
    )
    assert result.detail == "sixel"
    (decoded,) = decode_sixel(printed(result))
    assert decoded.size == (300, 75)
    assert decoded.getpixel((5, 5)) == (0, 199, 0)  # percentages: 78 % of 255


@pytest.mark.parametrize(("mode", "graphics"), [("kitty", KITTY), ("sixel", SIXEL)])
def test_pixels_lay_transparency_on_the_theme_background(mode: str, graphics: Graphics) -> None:
    palette = theme_palette.named("textual-light")
    data = png(20, 20, mode="RGBA", color=(255, 0, 255, 0))
    context = RenderContext(images=mode, graphics=graphics, palette=palette)  # type: ignore[arg-type]
    out = printed(render(media("image", data, mime="image/png"), context))
    drawn = (
        next(iter(decode_kitty(out).values())).image if mode == "kitty" else decode_sixel(out)[0]
    )
    want = Image.new("RGB", (1, 1), palette.background).getpixel((0, 0))
    got = drawn.getpixel((5, 5))
    assert isinstance(got, tuple) and isinstance(want, tuple)
    assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= 2


@pytest.mark.parametrize(
    ("mode", "graphics"), [("kitty", KITTY), ("sixel", SIXEL), ("halfblock", Graphics())]
)
def test_an_animation_draws_its_first_frame_and_says_so(mode: str, graphics: Graphics) -> None:
    frames = [Image.new("RGB", (20, 20), color) for color in ("red", "lime", "blue")]
    data = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    context = RenderContext(images=mode, graphics=graphics)  # type: ignore[arg-type]
    result = render(media("image", data, mime="image/gif"), context)
    out = printed(result)  # first: a kitty image's commands are printed once
    assert result.fallback is not None and result.fallback.code == Code.FIRST_FRAME
    assert result.fallback.badge == "animated → first frame"
    assert "first of 3 frames" in shown(result)
    if mode != "halfblock":
        drawn = (
            next(iter(decode_kitty(out).values())).image
            if mode == "kitty"
            else decode_sixel(out)[0]
        )
        red = drawn.getpixel((5, 5))
        assert isinstance(red, tuple) and red[0] > 240 and red[1] < 10 and red[2] < 10
