"""The attachment chips above the prompt ask for a layout of the screen only when what they show
changes (`openwop_tui.ui.widgets.chips.AttachmentChips.show`).

Every message sent told the chips to show no attachments, and the chips asked for a layout of
the whole screen each time: the frame that echoed the next key typed waited for it (issue 26,
keys first: a key typed 30 ms into an answer met a 9-14 ms layout frame).
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from openwop_tui.core.attachments import Attachment
from openwop_tui.ui.widgets.chips import AttachmentChips

pytestmark = pytest.mark.quick


class _Counting(AttachmentChips):
    """The chips, counting the layouts they ask for."""

    layouts = 0

    def refresh(
        self, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Any:
        if layout:
            self.layouts += 1
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class _Chips(App[None]):
    def compose(self) -> ComposeResult:
        yield _Counting(id="chips")


async def test_only_a_change_of_attachments_asks_for_a_layout() -> None:
    app = _Chips()
    async with app.run_test(size=(80, 10)) as pilot:
        chips = app.query_one(_Counting)
        await pilot.pause()
        asked = chips.layouts
        note = Attachment("note.txt", "text/plain", b"hello")
        chips.show((), ())  # (a message sent without attachments)
        chips.show((), ())
        assert chips.layouts == asked
        chips.show((note,), (None,))
        assert chips.layouts > asked and chips.has_class("-pending")
        asked = chips.layouts
        chips.show((), ())  # (sent: the chips go)
        assert chips.layouts > asked
        assert not chips.has_class("-pending") and chips.attachments == ()
        asked = chips.layouts
        chips.show((), ())
        assert chips.layouts == asked
