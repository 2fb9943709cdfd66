"""The inspector's core: lint, run statistics and the timeline, as pure folds over run events.

Nothing here draws (no Rich, no Textual) and nothing fetches: each module folds
`openwop_tui.protocol.events.RunEvent`\\ s (live, from a stored session or from a recording,
alike) into data a view draws: `lint.Linter` gives `findings.Finding`\\ s with stable codes,
`stats.RunStats` a per-node timeline and token counts, `timeline.timeline_row` one row per
event with a filter; `inspector.Inspector` feeds all three at once for a view. The checks
``openwop-tui doctor`` prints are data too (`openwop_tui.doctor`); the commands that print
all of it live in `openwop_tui.cli`.
"""
