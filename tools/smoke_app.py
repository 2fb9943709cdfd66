"""Start the installed app headless on its embedded demo host and draw the tour.

Run by ``tools/wheel-smoke`` with the python of a fresh venv that has only the wheel installed,
from a folder outside the checkout, so nothing can be imported from the source tree. Exits 0 when
the tour's run completed and its envelopes were drawn; prints one line saying what failed
otherwise.
"""

from __future__ import annotations

import asyncio
import sys
import time

import openwop_tui
from openwop_tui.config import Config
from openwop_tui.core.items import EnvelopeItem
from openwop_tui.ui.app import ChatApp

TIMEOUT_S = 90.0


async def main() -> int:
    if "site-packages" not in (openwop_tui.__file__ or ""):
        print(f"smoke: openwop_tui comes from {openwop_tui.__file__}, not an install")
        return 1
    app = ChatApp(Config(demo_pace=0, audio=False, images="halfblock"))
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + TIMEOUT_S
        # Polling with a deadline is fine here: this is a smoke check of an installed program,
        # not a test of timing.
        while app.session is None or app.session.discovery is None:
            if time.monotonic() > deadline:
                print("smoke: the app did not connect to its demo host")
                return 1
            await pilot.pause(0.05)
        await pilot.press(*"show me everything", "enter")
        while app.transcript.status != "completed":
            if time.monotonic() > deadline:
                print(f"smoke: the tour did not complete (status {app.transcript.status})")
                return 1
            await pilot.pause(0.05)
        drawn = sum(isinstance(item, EnvelopeItem) for item in app.transcript.items)
    if drawn < 8:
        print(f"smoke: only {drawn} envelopes in the tour")
        return 1
    print(f"smoke: the installed app drew the tour ({drawn} envelopes)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
