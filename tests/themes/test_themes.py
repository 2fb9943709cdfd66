"""Colours come from the theme: every renderer draws only in its palette's colours, the shipped
themes are legible, and the theme chosen in the app is remembered across runs."""

from __future__ import annotations

import io
import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from app_support import (
    builtin_renderers_loaded,  # noqa: F401  (an autouse fixture: it applies here too)
    connected,
    demo_app,
    settle,
)
from pygments.styles import get_style_by_name
from render_helpers import envelope, media, png, render, resolve, wav
from rich.color import ColorType
from rich.console import Console
from rich.syntax import Syntax
from rich.text import Text
from textual.theme import BUILTIN_THEMES

from openwop_tui.core.updates import EventArrived
from openwop_tui.draw.palette import HIGH_CONTRAST_MIN, MIN_CONTRAST, Palette, Themed, contrast
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.events import normalize
from openwop_tui.renderers import Asset, AudioSupport, RenderContext
from openwop_tui.store import state
from openwop_tui.themes import DARK, DEFAULT, HIGH_CONTRAST, LIGHT, THEMES
from openwop_tui.ui import theme_palette
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

SIZE = (100, 30)

#: A palette of colours no renderer could have written by chance: each role its own hex.
UNIQUE = Palette(
    text="#101001",
    muted="#101002",
    user="bold #101003",
    assistant="bold #101004",
    streaming="bold #101005",
    accent="bold #101006",
    success="#101007",
    warning="#101008",
    error="bold #101009",
    border="#10100A",
    degraded_border="#10100B",
    selection="on #10100C",
    match="bold #10100D on #10100E",
    code_theme="monokai",
    dark=True,
    background="#10100F",
    surface="#101010",
    primary="#101011",
    secondary="#101012",
)

MARKDOWN = """# Title

## Second

Some *em*, **strong**, `inline code`, a [link](https://example.com) and ~~gone~~.

> a quote

- one
- two

1. first

| a | b |
|---|---|
| 1 | 2 |

```python
def f(x: int) -> int:
    return x + 1
```

---
"""


def every_family() -> list[tuple[str, Envelope, RenderContext]]:
    """One envelope per renderer and per way of degrading."""
    base = RenderContext(palette=UNIQUE, width=90)
    image_url = "https://host.example/a.png"
    return [
        ("markdown", envelope("x.text", {"text": MARKDOWN}, {"display": "markdown"}), base),
        ("markdown empty", envelope("x.text", {"n": 1}, {"display": "markdown"}), base),
        ("code", envelope("x.code", {"text": "print('hi')\n"}, {"display": "code"}), base),
        (
            "card text",
            envelope("x.card", {"text": MARKDOWN}, {"display": "card", "title": "T"}),
            base,
        ),
        ("card table", envelope("x.card", {"a": 1, "b": [1]}, {"display": "card"}), base),
        ("json", envelope("x.data", {"a": [1, 2.5, True, False, None, "s"]}), base),
        ("unknown", envelope("x.data", {"a": 1}, {"display": "hologram"}), base),
        ("image", media("image", png(8, 4), mime="image/png"), base),
        ("image alt", media("image", png(8, 4), mime="image/png", alt="a red box"), base),
        ("image off", media("image", png(8, 4), mime="image/png"), replace(base, images="none")),
        ("image broken", media("image", b"not a png", mime="image/png"), base),
        ("image by url", media("image", url=image_url, mime="image/png"), base),
        (
            "image fetch failed",
            media("image", url=image_url, mime="image/png"),
            replace(base, asset=Asset(url=image_url, error="HTTP 404")),
        ),
        ("audio no device", media("audio", wav(), mime="audio/wav"), base),
        (
            "audio",
            media("audio", wav(), mime="audio/wav", alt="hello"),
            replace(base, audio=AudioSupport(True)),
        ),
        ("audio broken", media("audio", b"RIFFnope", mime="audio/wav"), base),
        ("file", media("file", b"%PDF-1.4", mime="application/pdf", name="a.pdf"), base),
        ("file by url", media("file", url="https://host.example/a.pdf", mime="x/y"), base),
    ]


def pygments_colours(name: str) -> set[str]:
    found: set[str] = set()
    for _token, style in get_style_by_name(name):
        found.update(f"#{value.upper()}" for value in (style["color"], style["bgcolor"]) if value)
    return found


def drawn_colours(renderable: Any) -> list[tuple[str, str]]:
    """(text, colour) of every coloured cell run; ANSI-named colours as ``ansi:<name>``."""
    console = Console(file=io.StringIO(), color_system="truecolor", width=100)
    found = []
    for segment in console.render(renderable, console.options):
        style = segment.style
        if style is None:
            continue
        for colour in (style.color, style.bgcolor):
            if colour is None or colour.type == ColorType.DEFAULT:
                continue
            if colour.type in (ColorType.STANDARD, ColorType.EIGHT_BIT, ColorType.WINDOWS):
                found.append((segment.text, f"ansi:{colour.name}"))
            else:
                red, green, blue = colour.get_truecolor()
                found.append((segment.text, f"#{red:02X}{green:02X}{blue:02X}"))
    return found


@pytest.mark.parametrize(("what", "shown", "context"), every_family(), ids=lambda v: str(v))
def test_renderers_draw_only_in_the_palette(
    what: str, shown: Envelope, context: RenderContext
) -> None:
    """A colour written into a renderer (``border_style="cyan"``, ``"#FF0000"``) fails here:
    every colour drawn is the palette's, or the palette's code theme's (pixels excepted)."""
    # The renderer's own output, not `render`'s: that maps Rich's colour-named styles ("cyan")
    # onto the palette too (for plugins), which would hide a built-in renderer writing one.
    rendered = resolve(shown.display)(shown, context)
    body = Themed(rendered.body, UNIQUE, colour_names=False)
    # Code is drawn by Pygments' style (on the palette's surface), line numbers blended from it.
    reference = Syntax("x = 1\n", "python", theme=UNIQUE.syntax_theme(), line_numbers=True)
    allowed = {
        *UNIQUE.colours(),
        *pygments_colours(UNIQUE.code_theme),
        *(colour for _text, colour in drawn_colours(reference)),
    }
    # The title is plain text: a view draws it in its own style (Text, so nothing highlights it).
    drawn = [*drawn_colours(body), *drawn_colours(Text(rendered.title))]
    if rendered.cells is not None:  # image pixels have the image's own colours
        drawn = [(text, colour) for text, colour in drawn if text.strip("▄▀ ") != ""]
    stray = {colour: text for text, colour in drawn if colour not in allowed}
    assert not stray, f"{what}: colours not from the palette: {stray}"


def test_a_colour_named_style_still_follows_the_theme() -> None:
    """A plugin renderer's ``style="cyan"`` is drawn in a palette colour, not the terminal's."""
    body = Themed(Text("x", style="cyan"), UNIQUE)
    assert {colour for _text, colour in drawn_colours(body)} <= UNIQUE.colours()


def test_the_json_view_is_coloured_by_the_palette() -> None:
    """Rich's named JSON styles (``json.key`` is "bold blue") are mapped onto the palette."""
    rendered = render(envelope("x.data", {"key": "value", "n": 1}), RenderContext(palette=UNIQUE))
    colours = {colour for _text, colour in drawn_colours(rendered.body)}
    assert colours and colours <= UNIQUE.colours()


def test_the_default_palette_is_the_default_theme() -> None:
    """`Palette.default` is written out (no Textual needed to print); it must match the theme."""
    assert DARK.name == DEFAULT
    assert Palette.default() == theme_palette.from_theme(DARK)


def legible_roles(palette: Palette) -> dict[str, str]:
    roles = ("text", "muted", "accent", "success", "warning", "error", "primary", "secondary")
    # A role is "bold #RRGGBB" or "#RRGGBB": the colour is the last word.
    return {role: getattr(palette, role).split()[-1] for role in roles}


@pytest.mark.parametrize("theme", [*THEMES, *BUILTIN_THEMES.values()], ids=lambda t: t.name)
def test_every_role_reads_on_the_background(theme: Any) -> None:
    """Text, muted text, warnings and accents meet WCAG AA on their background (AAA on the
    high-contrast theme), whatever the theme's own colours: the derivation enforces it."""
    palette = theme_palette.from_theme(theme)
    floor = HIGH_CONTRAST_MIN if "high-contrast" in theme.name else MIN_CONTRAST
    weak = {
        role: round(contrast(colour, palette.background), 2)
        for role, colour in legible_roles(palette).items()
        if contrast(colour, palette.background) < floor
    }
    assert not weak


def test_high_contrast_has_no_muted_text_and_pure_black() -> None:
    palette = theme_palette.from_theme(HIGH_CONTRAST)
    assert palette.background == "#000000"
    assert palette.muted == palette.text == "#FFFFFF"
    assert not palette.dark or palette.code_theme == "monokai"


def test_the_light_theme_draws_no_dark_slabs() -> None:
    """Inline code and code blocks sit on the light theme's surface, not on black (Rich's
    ``markdown.code`` is "on black", monokai's background #272822)."""
    palette = theme_palette.from_theme(LIGHT)
    rendered = render(
        envelope("x.text", {"text": MARKDOWN}, {"display": "markdown"}),
        RenderContext(palette=palette),
    )
    console = Console(file=io.StringIO(), color_system="truecolor", width=100)
    backgrounds = set()
    for segment in console.render(rendered.body, console.options):
        if segment.style is not None and segment.style.bgcolor is not None:
            backgrounds.add(segment.style.bgcolor.get_truecolor())
    assert backgrounds, "the code block has a background"
    for red, green, blue in backgrounds:
        assert contrast(f"#{red:02X}{green:02X}{blue:02X}", "#000000") > 10


def test_palette_roles_are_all_set() -> None:
    for theme in THEMES:
        palette = theme_palette.from_theme(theme)
        assert all(getattr(palette, f.name) != "" for f in fields(palette))


# ------------------------------------------------------------------ remembered


def test_the_state_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "state.json"
    assert state.remembered_theme(path) is None
    assert state.remember_theme("openwop-light", path)
    assert state.remembered_theme(path) == "openwop-light"
    assert json.loads(path.read_text()) == {"theme": "openwop-light"}


@pytest.mark.parametrize(
    "content", ["{not json", "[1]", '{"theme": 3}', '{"theme": "a\\u001b[2J"}']
)
def test_a_bad_state_file_reads_as_nothing_remembered(tmp_path: Path, content: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(content)
    assert state.remembered_theme(path) is None


def test_an_unwritable_state_dir_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not state.remember_theme("openwop-light", blocker / "state.json")


def test_the_state_file_is_in_the_xdg_state_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert state.state_path() == tmp_path / "openwop-tui" / "state.json"


async def test_the_default_theme_is_openwop_dark() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.theme == "openwop-dark"
        assert {"openwop-dark", "openwop-light", "openwop-high-contrast"} <= set(
            app.available_themes
        )


async def test_a_theme_chosen_live_is_remembered_for_the_next_start() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.theme = "openwop-light"
        await settle(
            pilot, app, lambda: state.remembered_theme() == "openwop-light", what="remembered"
        )
        assert app.palette == theme_palette.from_theme(LIGHT)
    again = demo_app()
    async with again.run_test(size=SIZE) as pilot:
        await connected(pilot, again)
        assert again.theme == "openwop-light"


async def test_the_config_file_beats_the_remembered_theme() -> None:
    state.remember_theme("openwop-light")
    app = demo_app(theme="openwop-high-contrast")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.theme == "openwop-high-contrast"


async def test_a_remembered_theme_that_is_gone_falls_back_quietly() -> None:
    state.remember_theme("a-plugin-theme-since-removed")
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        assert app.theme == "openwop-dark"


async def test_the_events_panel_recolours_when_the_theme_changes() -> None:
    app = demo_app()
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        panel = app.query_one(TimelinePanel)
        await pilot.press("f2")
        failed = normalize({"type": "node.failed", "runId": "r", "sequence": 1, "nodeId": "n"})
        await app.feed.show([EventArrived(failed)])
        await settle(pilot, app, lambda: bool(panel.view.entries), what="the row")
        await pilot.pause()

        def colours() -> set[str]:
            found = set()
            for segment in panel.view.render_line(0):
                if segment.style is not None and segment.style.color is not None:
                    red, green, blue = segment.style.color.get_truecolor()
                    found.add(f"#{red:02X}{green:02X}{blue:02X}")
            return found

        def error_of(theme: Any) -> str:
            return theme_palette.from_theme(theme).error.split()[-1].upper()

        assert error_of(DARK) in colours()
        app.theme = "openwop-light"
        await pilot.pause()
        assert error_of(LIGHT) in colours()
        assert error_of(DARK) not in colours()
