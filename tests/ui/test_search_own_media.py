"""Search finds a user's own attachment by its name, and never inside its bytes (issue 25,
part 5): an inline picture's base64 is thousands of letters, and a search for a short word
must not match in it. Without the bytes left out of an envelope's search text, the search for a
run of the picture's base64 below finds it."""

from __future__ import annotations

import base64

from media_parts import two_colour_png
from textual.app import App, ComposeResult

from openwop_tui.core.fold import Transcript
from openwop_tui.core.own_media import add_message, read_logged
from openwop_tui.protocol.content_parts import media_part
from openwop_tui.renderers import Registry
from openwop_tui.text.sanitize import HostText
from openwop_tui.ui.transcript.view import TranscriptView


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript", registry=Registry().load())


async def test_an_attachment_is_found_by_name_not_by_its_bytes() -> None:
    picture = two_colour_png((48, 24))
    part = media_part("image", "image/png", "holiday-sunset.png", data=picture)
    encoded = base64.b64encode(picture).decode("ascii")
    inside = encoded[len(encoded) // 2 :][:12]  # a run of letters in the middle of the bytes
    app = _Host()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TranscriptView)
        logged = read_logged({"parts": [part]})
        await view.apply(add_message(Transcript(), HostText("look"), logged))
        await pilot.pause()
        assert view.search("holiday-sunset") >= 1
        assert view.search(inside) == 0
