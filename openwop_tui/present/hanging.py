"""A line that wraps under itself: its continuation lines indented, never at the margin.

The client's own lines (a notice, a tool call) start at the margin with their icon (``•``,
``✖``, ``⚙``); the host's text comes after it. Wrapped as plain text, a long host value can end
one screen line exactly where the next begins with ``• run completed``, which would then read as
a line of the client's own. Drawn through `Hanging`, every continuation line is indented by
two cells, under the text, so only the client's own first line touches the margin.

Printed with ``soft_wrap`` (a notice into a pipe, one line whatever its length) the text is not
wrapped at all and is drawn as it is.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["INDENT", "Hanging"]

#: Cells a continuation line is indented by: under the text, past the icon and its space.
INDENT = 2


class Hanging:
    """``text`` wrapped to the width with a hanging indent (see the module docstring)."""

    def __init__(self, text: Text, indent: int = INDENT) -> None:
        self.text = text
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        text = self.text
        if options.no_wrap or width <= self.indent + 1:
            yield text  # soft wrap (a pipe) or no room to indent: the text as it is
            return
        lines = text.wrap(console, width, justify="default", overflow="fold")
        if len(lines) <= 1:
            yield text  # it fits: drawn exactly as a plain line is
            return
        # The first line as it wraps at the full width; the rest wrapped narrower, indented.
        plain = text.plain
        cut = len(lines[0].plain.rstrip())  # a prefix of the text, its break's spaces aside
        while cut < len(plain) and plain[cut] in " \n":
            cut += 1
        yield lines[0]
        pad = Text(" " * self.indent)
        rest = text[cut:].wrap(console, width - self.indent, justify="default", overflow="fold")
        for line in rest:
            line.rstrip()
            yield Text.assemble(pad, line)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text)
