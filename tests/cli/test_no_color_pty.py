"""``NO_COLOR`` in the app (issue 27: "NO_COLOR draws grey pixels where the README says images
are described"): Textual draws in no colour, so a half-block picture would be grey blocks; the
app describes it instead and says why. The installed program on a pseudo-terminal, as users
start it, with the demo tour's pictures."""

from __future__ import annotations

from pathlib import Path

from pty_support import Program, home

from openwop_tui.devices.terminal import ImageSupport, in_the_app

CTRL_Q = "\x11"


def test_with_no_color_the_app_describes_pictures_and_says_why(tmp_path: Path) -> None:
    env = {**home(tmp_path), "NO_COLOR": "1"}
    args = ["--no-audio", "--images", "halfblock", "--demo-pace", "0"]
    with Program(args, env, tmp_path) as program:
        program.wait_for_screen("Connected to the embedded demo host")
        program.type("picture\r")
        program.wait_for_screen("run completed")
        program.wait_for(
            lambda: "NO_COLOR is set: half-block pixels are colours" in _unwrapped(program),
            "the picture described, saying why",
        )
        assert "▀" not in program.screen_text() and "▄" not in program.screen_text()
        program.type(CTRL_Q)
        assert program.wait() == 0


def test_sixel_draws_its_own_pixels_and_is_kept() -> None:
    sixel = ImageSupport("sixel", "the terminal answered")
    assert in_the_app(sixel, {"NO_COLOR": "1"}) is sixel
    kitty = in_the_app(ImageSupport("kitty", "as set"), {"NO_COLOR": "1"})
    assert kitty.mode == "none" and "kitty image ids" in kitty.reason
    assert in_the_app(ImageSupport("halfblock", "x"), {}).mode == "halfblock"


def _unwrapped(program: Program) -> str:
    """The screen's words as one line (a card's sentence wraps inside its border)."""
    return " ".join(word for word in program.screen_text().split() if word not in ("│", "▎"))
