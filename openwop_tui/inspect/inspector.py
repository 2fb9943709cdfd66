"""One object for a view to feed: the lint, the timeline's rows and the statistics, together.

A timeline screen (or the F2 panel it replaces) gets every event once, live or from a log, and
wants three things of it: its findings, its row, and the run's numbers. `Inspector.feed` does
the three folds in one call and keeps the rows in arrival order, so the view only draws:
`rows` (or `matching` a `RowFilter`) for the visible range, `findings_for` a row's event for
the JSON tree's marks, `stats` for the statistics screen. Pure, like the folds it holds.
"""

from __future__ import annotations

import logging

from openwop_tui.inspect.findings import Finding
from openwop_tui.inspect.lint import LintConfig, Linter
from openwop_tui.inspect.log import Observed
from openwop_tui.inspect.stats import RunStats, StatsFold
from openwop_tui.inspect.timeline import Row, RowFilter, Timeline
from openwop_tui.protocol.events import RunEvent

log = logging.getLogger(__name__)


class Inspector:
    """The lint, the timeline and the statistics of one log."""

    def __init__(
        self,
        config: LintConfig | None = None,
        linter: Linter | None = None,
        *,
        keep_rows: bool = True,
    ) -> None:
        """``keep_rows``: keep every row for `rows` and `matching` (a caller that keeps its
        rows itself, the app's timeline, says no: a row an event is a flood's hundreds of MB)."""
        self.linter = linter or Linter(config)
        self._timeline = Timeline()
        self._stats = StatsFold()
        self._rows: list[Row] = []
        self._keep_rows = keep_rows

    def feed(self, event: RunEvent, at: float | None = None) -> Row:
        """Fold one event (``at``: when it arrived); its row, lint marks included. Never raises:
        a rule that fails on a hostile value leaves the event unlinted (and logged), not the
        app stopped."""
        try:
            found = self.linter.feed(event)
        except Exception:
            log.warning("a lint rule failed on event %s", event.sequence, exc_info=True)
            found = []
        try:
            self._stats.feed(event, at)
        except Exception:
            log.warning("statistics failed on event %s", event.sequence, exc_info=True)
        row = self._timeline.add(event, found)
        if self._keep_rows:
            self._rows.append(row)
        return row

    def observe(self, item: Observed) -> Row | None:
        """Fold one `Observed` of a log: an event gives a row, a frame that is none a finding."""
        if item.event is not None:
            return self.feed(item.event, item.at)
        if item.problem is not None:
            self.linter.problem(item.problem)
        return None

    @property
    def rows(self) -> list[Row]:
        """Every row so far, in arrival order."""
        return list(self._rows)

    def matching(self, chosen: RowFilter) -> list[Row]:
        """The rows ``chosen`` lets through (all of them for an empty filter)."""
        return list(self._rows) if chosen.empty else chosen.apply(self._rows)

    def findings_for(self, row: Row) -> list[Finding]:
        """The findings about a row's event."""
        return self.linter.for_event(row.run_id, row.sequence)

    def stats(self) -> list[RunStats]:
        """The statistics of every run so far."""
        return self._stats.runs()

    def finish(self) -> list[Finding]:
        """The end of the log (runs that never ended, emissions never completed)."""
        return self.linter.finish()
