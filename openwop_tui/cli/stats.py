"""``openwop-tui stats FILE.sse | - | RUN_ID [--host URL] [--json]``: where a run's time went.

For each run of the input (`openwop_tui.inspect.stats.StatsFold`): a header (run, workflow,
outcome, duration, events and their rate, time to first token), one line per node with its span
drawn as a bar on the run's time axis, its duration, attempts, outcome and tokens, and the
tokens per model. ``--json`` prints one object ``{"runs": [RunStats …]}`` (the shape of
`RunStats.as_json`: ``runId``, ``workflowId``, ``status``, ``events``, ``durationMs``,
``timeToFirstTokenMs``, ``eventsPerSecond``, ``clock``, ``tokensIn``, ``tokensOut``, ``nodes``
[``nodeId``, ``start``, ``end`` (seconds from the run's start), ``durationMs`` (measured),
``reportedMs`` (the host's ``durationMs``), ``attempts``,
``status``, ``tokensIn``, ``tokensOut``], ``models`` [``provider``, ``model``, ``tokensIn``,
``tokensOut``, ``calls``]). Exit 0, or 2 when the input cannot be read or holds no events.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.text import Text

from openwop_tui.cli.inspector import printing_console
from openwop_tui.cli.source import SourceError, read_source
from openwop_tui.config import Config
from openwop_tui.inspect.stats import NodeTiming, RunStats, StatsFold
from openwop_tui.text.sanitize import HostLine, clean, one_line

EXIT_OK, EXIT_BAD_INPUT = 0, 2
_NAME = 22
_STATUS_STYLES = {"completed": "green", "failed": "bold red", "cancelled": "yellow"}


def stats_command(args: argparse.Namespace, config: Config) -> int:
    """Run ``stats`` as parsed; the exit code."""
    try:
        source = read_source(args.source, config)
    except SourceError as error:
        print(f"openwop-tui stats: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    fold = StatsFold()
    for item in source.items:
        if item.event is not None:
            fold.feed(item.event, item.at)
    runs = fold.runs()
    if not runs:
        print(f"openwop-tui stats: {source.name} holds no run events", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        sys.stdout.write(json.dumps({"runs": [run.as_json() for run in runs]}) + "\n")
        return EXIT_OK
    console, whole = printing_console(args)
    for index, run in enumerate(runs):
        if index:
            console.print()
        for number, line in enumerate(render_run(run, console.width)):
            if whole:  # into a pipe: every line whole, the tokens never cut off
                console.print(line, soft_wrap=True)
                continue
            # The header and its facts wrap; node lines keep their bar on one line.
            console.print(line, no_wrap=number > 1, overflow="ellipsis" if number > 1 else "fold")
    return EXIT_OK


def _ms(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:.0f} ms" if value < 10_000 else f"{value / 1000:.1f} s"


def _line(value: str) -> HostLine:
    """A host's value in a line of the report, on one line (a newline shows as ``␊``). The
    statistics hold the events' cleaned strings, typed ``str``: `clean` again is a no-op there,
    and makes the type say so."""
    return one_line(clean(value))


def render_run(run: RunStats, width: int) -> list[Text]:
    """The lines that print one run (also what a screen in the app can show)."""
    head = Text(f"run {_line(run.run_id)}", style="bold")
    if run.workflow:
        head.append(f" · {_line(run.workflow)}")
    head.append(" · ")
    head.append(_line(run.status), style=_STATUS_STYLES.get(run.status, ""))
    lines = [head]
    rate = f"{run.events_per_second:.1f}/s" if run.events_per_second is not None else "?/s"
    facts = [f"duration {_ms(run.duration_ms)}", f"{run.events} events ({rate})"]
    facts.append(
        f"first token after {_ms(run.first_token_ms)}"
        if run.first_token_ms is not None
        else "no streamed text"
    )
    facts.append(f"tokens in {run.tokens_in}, out {run.tokens_out}")
    if run.clock == "arrival":
        facts.append("times as received (the events carry none)")
    lines.append(Text("  " + " · ".join(facts), style="dim"))
    span = _span(run)
    bar_width = max(10, min(50, width - _NAME - 46))
    for node in run.nodes:
        lines.append(_node_line(node, span, bar_width))
    for model in run.models:
        lines.append(
            Text(
                f"  model {_line(model.provider)}/{_line(model.model)}: in {model.tokens_in}, "
                f"out {model.tokens_out} ({model.calls} call{'s' if model.calls != 1 else ''})"
            )
        )
    return lines


def _span(run: RunStats) -> float | None:
    ends = [n.end for n in run.nodes if n.end is not None]
    if run.duration_ms is not None:
        ends.append(run.duration_ms / 1000)
    return max(ends) if ends and max(ends) > 0 else None


def _node_line(node: NodeTiming, span: float | None, width: int) -> Text:
    node_id = _line(node.node_id)
    name = node_id if len(node_id) <= _NAME else node_id[: _NAME - 1] + "…"
    line = Text(f"  {name:<{_NAME}} ")
    if span is not None and node.start is not None and node.end is not None:
        first = min(width - 1, max(0, int(node.start / span * width)))
        last = min(width, max(first + 1, round(node.end / span * width)))
        line.append("·" * first, style="dim")
        line.append("█" * (last - first), style=_STATUS_STYLES.get(node.status, "cyan"))
        line.append("·" * (width - last), style="dim")
    else:
        line.append("(no timing)".ljust(width), style="dim")
    tail = f" {_ms(node.duration_ms):>8}"
    if node.attempts > 1:
        tail += f" {node.attempts} attempts"
    tail += f" {_line(node.status)}"
    if node.tokens_in or node.tokens_out:
        tail += f" · in {node.tokens_in} out {node.tokens_out}"
    line.append(tail)
    if node.note:
        line.append(f" ({node.note})", style="dim")
    return line
