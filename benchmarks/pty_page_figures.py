"""Paging and resizing a 10,000-item session, measured from outside the process (registered
on import by `benchmarks.figures`): ``pty_page``, the app in a pty (`benchmarks.terminal`)
against the demo host in a process of its own, beside a bare Textual ``RichLog`` of the same
turns paged and resized in the same pty. Issue 26 asks both within a frame (16 ms): a Page Up
to the screen's first change and to it settled, a resize to it settled.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import (
    APP,
    PROMPT,
    _env,
    conversation_folds,
    demo_host,
    whole_session,
)
from benchmarks.terminal import Terminal, median_ms

PAGE_TURNS = 5_000  # two messages, a lifecycle line and a notice each: 10,000 items and more

#: The baseline of `pty_page`: a bare Textual app, a `RichLog` written the same turns' lines
#: (the reply as Rich Markdown), paged without animation, in the same pty.
_BARE_LOG = """
import sys
from rich.markdown import Markdown
from textual.app import App
from textual.widgets import Input, RichLog
REPLY = sys.argv[2]
class Log(RichLog):
    def action_page_up(self):
        self.scroll_page_up(animate=False)
class Bare(App):
    def compose(self):
        yield Log(wrap=True)
        yield Input(placeholder="Message the host")
    def on_mount(self):
        log = self.query_one(Log)
        for n in range(int(sys.argv[1])):
            log.write(f"question {n}")
            log.write(Markdown(REPLY.format(n=n)))
            log.write(f"run completed {n}")
        log.write("all written")
        log.focus()
Bare().run()
"""


#: The widths the terminal is resized through (back to a width seen, twice).
WIDTHS = (100, 120, 90, 110, 120, 96)


def _page_and_resize(term: Terminal) -> tuple[list[tuple[float, float]], list[float]]:
    """20 Page Ups at a person's pace, then six width changes: the seconds of each (for a
    page, to the screen's first change and to it settled)."""
    pages = []
    for _ in range(20):
        pages.append(term.page_changes())
        time.sleep(0.1)  # a person's pace: what is drawn ahead is ready by then
    sizes = [term.resize(cols, 40) for cols in WIDTHS]
    return pages, sizes


def _bare_page_and_resize(home: str) -> tuple[float, float, float]:
    """The baseline's median page step (its first change, and settled) and resize (ms)."""
    from benchmarks.view_figures import REPLY

    term = Terminal([sys.executable, "-c", _BARE_LOG, str(PAGE_TURNS), REPLY], _env(home))
    try:
        term.wait_for("all written", timeout=300)
        pages, sizes = _page_and_resize(term)
    finally:
        term.close()
    firsts, settled = zip(*pages, strict=True)
    return median_ms(firsts), median_ms(settled), median_ms(sizes)


@figure("pty_page")
async def pty_page() -> list[Figure]:
    """Page Up through a session of 10,000 items, and resizing it, from outside: each from the
    key (or the new size) to the screen drawn, against a key's echo in the same session."""
    from benchmarks.view_figures import _fill_session
    from openwop_tui.store.records import Entry
    from openwop_tui.store.sessions import Store

    with demo_host(pace=0) as (url, key), tempfile.TemporaryDirectory() as home:
        path = Path(home) / "data" / "openwop-tui" / "sessions.db"
        path.parent.mkdir(parents=True)
        with Store(path) as store:
            session_id = _fill_session(store, Entry, PAGE_TURNS)
            conversation_folds(store, session_id, key=key)
        term = Terminal([*APP, "--host", url, "--session", session_id], _env(home, key))
        try:
            term.wait_for(f"question {PAGE_TURNS - 1}", timeout=120)
            term.wait_for(PROMPT)
            # Paged once all of it is in (it opens newest first, the rest read after).
            whole_session(term, "question 0")
            term.wait_for(f"question {PAGE_TURNS - 1}")
            pages, sizes = _page_and_resize(term)
            items = len(term.text)  # (the screen was read: the app is alive)
        finally:
            term.close()
        bare_first, bare_page, bare_resize = _bare_page_and_resize(home)
    assert items
    firsts, settled = zip(*pages, strict=True)
    page, first, resize = median_ms(settled), median_ms(firsts), median_ms(sizes)
    return [
        Figure(
            "pty_page_step_10000_ms",
            page,
            "ms",
            "a bare Textual RichLog of the same turns, paged in the same pty (ms)",
            bare_page,
            "< 16 ms (a frame at 60 Hz)",
            page < 16.0,
            note=f"median of 20 Page Ups to the screen settled, worst {max(settled) * 1000:.0f} ms",
        ),
        Figure(
            "pty_page_first_change_10000_ms",
            first,
            "ms",
            "a bare Textual RichLog of the same turns: its first change (ms)",
            bare_first,
            "< 16 ms (a frame at 60 Hz)",
            first < 16.0,
            note="median of the same 20 Page Ups, to the screen's first change; "
            f"worst {max(firsts) * 1000:.0f} ms",
        ),
        Figure(
            "pty_resize_10000_ms",
            resize,
            "ms",
            "a bare Textual RichLog of the same turns, resized in the same pty (ms)",
            bare_resize,
            "< 16 ms (a frame at 60 Hz; < 50 ms before issue 26)",
            resize < 16.0,
            note=f"median of 6 width changes ({', '.join(map(str, WIDTHS))} columns), to the "
            f"screen redrawn and settled; worst {max(sizes) * 1000:.0f} ms",
        ),
    ]
