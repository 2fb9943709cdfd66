"""High contrast means every text at full contrast (issue 27: "high contrast still draws the
placeholder and H2 in dim grey").

The app is drawn in ``openwop-high-contrast`` and every cell of text on screen (the chat with a
reply holding a heading, the empty input's placeholder, the help panel's headings) is checked
against what it is drawn on: a contrast ratio of 7:1 at least (WCAG's AAA). Fails without the
placeholder's rule in app.tcss: Textual draws it as the foreground at 40 % (3.7:1 on black).
"""

from __future__ import annotations

from app_support import SIZE, connected, demo_app, settle, turn
from rich.segment import Segment
from textual.geometry import Region

from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.screens.help import HelpScreen

#: Block elements draw scroll bars and pictures, not text.
_NOT_TEXT = set("▁▂▃▄▅▆▇█▉▊▋▌▍▎▏▔▕▐▀▄")
FLOOR = 7.0


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _ratio(one: tuple[int, int, int], other: tuple[int, int, int]) -> float:
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _faint(app: ChatApp, region: Region | None = None) -> list[tuple[int, str, float]]:
    """(row, text, ratio) of every piece of text drawn below `FLOOR` (within ``region``)."""
    found = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + Segment.get_line_length([segment])
            if region is not None and not (
                region.y <= y < region.bottom and region.x <= start < region.right
            ):
                continue
            if style is None or style.color is None or not set(text.strip()) - _NOT_TEXT:
                continue
            fg = tuple(style.color.get_truecolor())
            bg = tuple(style.bgcolor.get_truecolor()) if style.bgcolor else (0, 0, 0)
            ratio = _ratio(fg, bg)  # type: ignore[arg-type]
            if ratio < FLOOR or style.dim:
                found.append((y, text.strip(), round(ratio, 2)))
    return found


async def test_every_text_of_the_chat_and_the_help_is_full_contrast() -> None:
    app = demo_app(theme="openwop-high-contrast")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await turn(pilot, app, "hello")  # the reply opens with a second-level heading
        await pilot.pause()
        assert "Message the host" in "".join(
            s.text for row in app.screen._compositor.render_strips() for s in row
        )  # the placeholder is on screen
        assert _faint(app) == []
        await pilot.press("f1")
        await settle(pilot, app, lambda: isinstance(app.screen, HelpScreen), what="help")
        panel = app.screen.query_one("#help-scroll")
        for where in ("home", "end"):  # the keys, then the hints' headings
            await pilot.press(where)
            await pilot.pause()
            assert _faint(app, panel.region) == [], where
