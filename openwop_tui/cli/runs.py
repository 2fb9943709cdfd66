"""``openwop-tui runs [--status S[,S…]] [--workflow ID] [--limit N] [--json]``: a host's runs.

Read from the host's run list, newest first, a page at a time (following ``nextCursor`` until
``--limit`` runs are shown): ``GET /runs`` on a v2 host that advertises the ``runList``
family (spec/v2/core/runs.md §List), ``GET /v1/runs`` on a v1 host that serves it (the v1 spec
has no list route; some hosts, the demo host among them, have one). A host with no list says so
in one line (exit 2) and points to ``attach RUN_ID``.

The filters go to the host as ``status`` and ``workflowId`` and are applied again to what comes
back, so a host that ignores them still shows only what was asked for. A table by default
(``RUN``, ``STATUS``, ``WORKFLOW``, ``STARTED``, ``ENDED``); ``--json`` prints one JSON array of
the run snapshots as the host sent them (cleaned at the boundary), as ``workflows --json`` and
``sessions --json`` do.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # --help builds this parser: nothing heavy at import
    from openwop_tui.cli.output import Output
    from openwop_tui.protocol.client import HostClient

#: ``--limit`` by default.
DEFAULT_LIMIT = 20
#: The statuses a filter may name (RunSnapshot.status, spec/v1 and v2 alike).
STATUSES = (
    "pending",
    "running",
    "paused",
    "waiting-approval",
    "waiting-input",
    "waiting-external",
    "completed",
    "failed",
    "cancelling",
    "cancelled",
)


def _statuses(text: str) -> str:
    """``--status``: one status or several, comma-separated, each a known one (argparse type)."""
    wanted = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in wanted if part not in STATUSES]
    if not wanted or unknown:
        shown = ", ".join(map(repr, unknown)) if unknown else repr(text)
        raise argparse.ArgumentTypeError(
            f"unknown run status {shown}: give one or more of {', '.join(STATUSES)}, "
            "comma-separated"
        )
    return ",".join(wanted)


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of runs") from None
    if not 1 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"{value}: give 1 to 10000 runs")
    return value


def add_runs_command(commands: Any, codes: dict[str, Any]) -> None:
    """Add ``runs`` to the main parser's subcommands."""
    runs = commands.add_parser(
        "runs",
        help="list the host's runs (where the host offers a run list)",
        description="List the runs on a host, newest first: GET /runs on a v2 host that "
        "advertises runList, GET /v1/runs on a v1 host that serves it. A host with no run "
        "list says so; attach to a run you know with `openwop-tui attach RUN_ID`.",
        **codes,
    )
    runs.add_argument(
        "--status",
        type=_statuses,
        metavar="S[,S…]",
        help=f"only runs in these statuses ({', '.join(STATUSES)})",
    )
    runs.add_argument(
        "--workflow",
        metavar="ID",
        default=argparse.SUPPRESS,
        help="only runs of workflow ID",
    )
    runs.add_argument(
        "--limit",
        type=_limit,
        metavar="N",
        default=DEFAULT_LIMIT,
        help=f"show at most N runs (default {DEFAULT_LIMIT}), fetching pages as needed",
    )
    runs.add_argument("--json", action="store_true", help="print the run snapshots as JSON")


class NoRunList(Exception):
    """The host offers no run list; ``str()`` is the sentence to show."""


def runs_command(args: argparse.Namespace, output: Output) -> int:
    """Run ``runs`` as parsed; the exit code (as ``workflows``: 2 unreachable or no list, 3 a
    refusal)."""

    from openwop_tui.cli.host import on_host

    return on_host(output.config, lambda url, key: _runs(url, key, args, output))


async def _runs(url: str, key: str | None, args: argparse.Namespace, output: Output) -> int:
    """``openwop-tui runs``: list the host's runs; the exit code.

    Args:
        url: The host's base URL.
        key: The API key; None for none.
        args: The command's parsed arguments (``--status``, ``--workflow``, ``--limit``,
            ``--json``).
        output: The command's configuration and console.
    """
    from openwop_tui.cli.exits import EXIT_OK, EXIT_USAGE
    from openwop_tui.cli.host import exit_for
    from openwop_tui.protocol.client import HostClient, HostError
    from openwop_tui.text.sanitize import clean

    workflow: str | None = getattr(args, "workflow", None)
    try:
        async with HostClient(url, key) as client:
            await client.discover()
            found = await fetch_runs(
                client, status=args.status, workflow=workflow, limit=args.limit
            )
    except NoRunList as error:
        print(f"openwop-tui: {error}", file=sys.stderr)
        return EXIT_USAGE
    except HostError as error:
        print(f"openwop-tui: {clean(error.message)}", file=sys.stderr)
        return exit_for(error)
    runs, more = found
    if args.json:
        import json

        output.console.file.write(json.dumps(runs, indent=2, ensure_ascii=False) + "\n")
        return EXIT_OK
    _table(client, runs, more, output, args.status, workflow)
    return EXIT_OK


async def fetch_runs(
    client: HostClient, *, status: str | None, workflow: str | None, limit: int
) -> tuple[list[dict[str, Any]], bool]:
    """Up to ``limit`` runs matching the filters, newest first, and whether the host has more.

    Raises `NoRunList` for a host without a list, `HostError` for any other failure.

    Args:
        client: A client that has discovered the host.
        status: Comma-separated run statuses to keep; None keeps every status.
        workflow: The workflow whose runs are listed; None lists every workflow's.
        limit: The most runs returned.
    """
    from openwop_tui.protocol.client import HostError

    discovery = client.discovery
    family = discovery.family("runList") if discovery is not None else None
    if client.major == 2 and not family:
        raise NoRunList(
            "the host offers no run list (its discovery document has no runList family); "
            "attach to a run you know with: openwop-tui attach RUN_ID"
        )
    page_cap = family.get("maxPageSize") if isinstance(family, dict) else None
    wanted = set(status.split(",")) if status else None
    runs: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    while True:
        size = limit - len(runs)
        if isinstance(page_cap, int) and page_cap > 0:
            size = min(size, page_cap)
        try:
            page = await client.list_runs(
                status=status, workflow_id=workflow, limit=size, cursor=cursor
            )
        except HostError as error:
            if client.major == 1 and error.status in (404, 405, 501):
                raise NoRunList(
                    f"the host serves no run list (GET /v1/runs answered {error.status}; v1 "
                    "has no list route); attach to a run you know with: "
                    "openwop-tui attach RUN_ID"
                ) from None
            raise
        listed = page.get("runs")
        if not isinstance(listed, list):
            raise HostError(
                "The host's run list has no 'runs' array; it cannot be shown.",
                code="bad_response",
            )
        for run in listed:
            if not isinstance(run, dict) or not isinstance(run.get("runId"), str):
                continue
            if run["runId"] in seen:  # a host that repeats a run across pages
                continue
            if wanted is not None and run.get("status") not in wanted:
                continue
            if workflow is not None and run.get("workflowId") != workflow:
                continue
            seen.add(run["runId"])
            runs.append(run)
        following = page.get("nextCursor")
        more = isinstance(following, str) and bool(following)
        if len(runs) >= limit or not more or following == cursor:
            return runs[:limit], more or len(runs) > limit
        cursor = following if isinstance(following, str) else None


def _when(value: Any) -> str:
    """A timestamp as the host gave it, shortened to the minute when it is ISO 8601."""
    if not isinstance(value, str) or not value:
        return "-"
    text = value.replace("T", " ")
    return text[:16] if len(text) >= 16 and text[4] == "-" else text


def _table(
    client: HostClient,
    runs: list[dict[str, Any]],
    more: bool,
    output: Output,
    status: str | None,
    workflow: str | None,
) -> None:
    """Print the runs as a table, titled with the host and the filters.

    Args:
        client: The client the runs came from; its discovery names the host.
        runs: The runs, newest first.
        more: True when the host has more than those shown.
        output: The command's console.
        status: The status filter, named in the title; None for none.
        workflow: The workflow filter, named in the title; None for none.
    """
    from rich.table import Table
    from rich.text import Text

    from openwop_tui.text.redact import display_url
    from openwop_tui.text.sanitize import clean, one_line

    def cell(value: object) -> str:
        # A run is one row: a newline in a host's value (a workflowId) shows as ␊, never
        # starts a row of its own.
        return one_line(clean(str(value)))

    console = output.console
    discovery = client.discovery
    name = (discovery.implementation_name if discovery else None) or "OpenWOP host"
    count = f"{len(runs)} run" + ("" if len(runs) == 1 else "s")
    if more:
        count += " (more on the host: --limit N)"
    parts = [f"{name} at {display_url(client.base_url)}", count]
    parts += [f"status {status}"] if status else []
    parts += [f"workflow {workflow}"] if workflow else []
    header = " · ".join(parts)
    console.print(Text(one_line(clean(header)), style="dim"), soft_wrap=True)
    if not runs:
        console.print(Text("no runs match" if status or workflow else "the host has no runs yet"))
        return
    rows = [
        (
            cell(run.get("runId")),
            cell(run.get("status") or "?"),
            cell(run.get("workflowId") or "-"),
            cell(_when(run.get("startedAt"))),
            cell(_when(run.get("completedAt") or run.get("endedAt"))),
        )
        for run in runs
    ]
    names = ("RUN", "STATUS", "WORKFLOW", "STARTED", "ENDED")
    widths = [max(len(name), *(len(row[i]) for row in rows)) for i, name in enumerate(names)]
    if not console.is_terminal:
        # Into a pipe or a file: one run a line, whatever the width (whoever reads it greps
        # it), columns aligned.
        for row in (names, *rows):
            line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            console.file.write(line.rstrip() + "\n")
        return
    # On a terminal every column whole but the run id, which folds when it is narrow.
    table = Table(box=None, pad_edge=False)
    for index, name in enumerate(names):
        table.add_column(
            name, no_wrap=index > 0, min_width=widths[index] if index else None, overflow="fold"
        )
    for row in rows:
        table.add_row(*row)
    console.print(table)
