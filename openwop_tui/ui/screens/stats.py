"""Run statistics on a screen: where each run's time went, as ``openwop-tui stats`` prints it.

The lines are `openwop_tui.cli.stats.render_run`'s, drawn at the screen's width, so the command
and the app show the same: a header (outcome, duration, events and their rate, time to first
token, tokens), one line per node with its span as a bar on the run's time axis, its duration,
attempts, outcome and tokens, then the tokens per model. The statistics are the chat's
inspector's (`openwop_tui.inspect.stats`), folded as events arrived; ``r`` reads them again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget

from openwop_tui.cli.stats import render_run
from openwop_tui.inspect.stats import RunStats


def stats_lines(runs: list[RunStats], width: int) -> list[Text]:
    """Every run's lines at ``width``, a blank line between runs; a sentence when none."""
    if not runs:
        return [Text("no run events yet: statistics appear as a run streams", style="dim")]
    lines: list[Text] = []
    for index, run in enumerate(runs):
        if index:
            lines.append(Text(""))
        for number, line in enumerate(render_run(run, width)):
            if number > 1:  # node lines keep their bar on one line, as the command prints them
                line.no_wrap = True
                line.overflow = "ellipsis"
            lines.append(line)
    return lines


class StatsBody(Widget):
    """The lines, drawn for the width the widget has."""

    DEFAULT_CSS = "StatsBody { height: auto; }"

    def __init__(self, runs: Callable[[], list[RunStats]], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.runs = runs

    def lines_now(self) -> list[Text]:
        """The lines for the statistics as they are now, at the widget's width."""
        return stats_lines(self.runs(), max(self.size.width, 40))

    def render(self) -> RenderableType:
        return Group(*self.lines_now())


class StatsScreen(ModalScreen[None]):
    """The chat's runs, timed."""

    DEFAULT_CSS = """
    StatsScreen { align: center middle; }
    StatsScreen > VerticalScroll { width: 95%; height: 90%; background: $panel;
        border: round $primary; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("r", "reload", "Refresh"),
    ]

    def __init__(self, runs: Callable[[], list[RunStats]]) -> None:
        """``runs`` gives the statistics as they are now (read again on ``r``)."""
        super().__init__()
        self.runs = runs

    def compose(self) -> ComposeResult:
        box = VerticalScroll()
        box.border_title = "run statistics"
        box.border_subtitle = "r refresh · Esc close"
        with box:
            yield StatsBody(self.runs, id="stats-body")

    def action_reload(self) -> None:
        self.query_one(StatsBody).refresh(layout=True)
