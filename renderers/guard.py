"""A renderable that cannot break the screen it is drawn on.

A renderer returns a Rich renderable; Rich draws it later, when a view or the printer asks. A
renderable can fail *then* (a Pygments lexer on odd input, a table too deep, a third-party
renderer's bug), long after the registry's ``try`` around the renderer call has returned. In the
app such a failure would surface in Textual's compositor and stop the app. `Guarded` draws the
inner renderable in full first; if that raises, it draws one line saying what could not be drawn
and why, and the error goes to the log.
"""

from __future__ import annotations

import logging

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.text import Text

from openwop_tui.text.sanitize import clean

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())  # never Python's last-resort print to stderr


class Guarded:
    """Wraps ``inner``; a failure while drawing it becomes a visible line, not an exception."""

    def __init__(self, inner: RenderableType, what: str, style: str = "bold") -> None:
        self.inner = inner
        self.what = what
        """What the renderable shows (``"code · fib.py"``), for the line drawn instead."""
        self.style = style
        """The style of that line (the palette's error style)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        try:
            # Rendered whole before anything is yielded, so a failure half-way leaves no half.
            segments = list(console.render(self.inner, options))
        except Exception as error:
            log.warning("drawing %s failed", self.what, exc_info=True)
            yield Text(
                f"[{clean(self.what)} could not be drawn: {type(error).__name__}]", style=self.style
            )
            return
        yield from segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        try:
            return Measurement.get(console, options, self.inner)
        except Exception:
            return Measurement(1, options.max_width)


__all__ = ["Guarded"]
