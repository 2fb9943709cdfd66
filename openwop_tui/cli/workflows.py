"""``openwop-tui workflows [--json]``: what a host offers.

The host's discovery fixtures, merged with ``GET /v1/workflows`` and ``GET /v1/agents`` where
it serves them (`openwop_tui.protocol.catalog`), one workflow a line with the agents behind it,
or as JSON; exit codes as ``run`` (`openwop_tui.cli.host.exit_for`).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.text import Text

from openwop_tui.cli.exits import EXIT_OK
from openwop_tui.cli.host import exit_for, on_host
from openwop_tui.cli.output import Output, display_output, not_json
from openwop_tui.config import Config
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean, clean_own, one_line


def workflows_command(args: argparse.Namespace, config: Config) -> int:
    """``workflows`` as parsed: its ``--json`` prints JSON itself, so it draws on stdout."""
    output = display_output(argparse.Namespace(**not_json(args)), config)
    return list_workflows(output, as_json=args.json)


def list_workflows(output: Output, *, as_json: bool = False) -> int:
    """``workflows``: what the host offers, one workflow a line (or JSON); exit codes as ``run``."""
    return on_host(output.config, lambda url, key: _list_workflows(url, key, output, as_json))


async def _list_workflows(url: str, key: str | None, output: Output, as_json: bool) -> int:
    """Read the host's catalog and print it.

    Args:
        url: The host's base URL.
        key: Its API key, if any.
        output: Where and how the list is printed.
        as_json: ``--json``: print the catalog as JSON instead.
    """
    from openwop_tui.protocol import catalog

    console = output.console
    try:
        async with HostClient(url, key) as client:
            discovery = await client.discover()
            choices = await catalog.load_catalog(client)
    except HostError as error:
        print(f"openwop-tui: {error.message}", file=sys.stderr)
        return exit_for(error)
    if as_json:
        console.file.write(json.dumps(catalog.as_json(choices), indent=2, ensure_ascii=False))
        console.file.write("\n")
        return EXIT_OK
    name = discovery.implementation_name or "OpenWOP host"  # through `host_value`
    count = f"{len(choices)} workflow" + ("" if len(choices) == 1 else "s")
    header = one_line(clean_own(f"{name} at {display_url(client.base_url)} · {count}"))
    console.print(Text(header, style="dim"), soft_wrap=True)
    if not choices:
        console.print(Text("the host lists no workflows", style="yellow"), soft_wrap=True)
    width = min(40, max((len(c.id) for c in choices), default=0))
    for choice in choices:
        # One workflow a line: the catalog's values (cleaned by `host_value`) with a newline
        # shown as ␊, so a description cannot print a line that reads as another workflow.
        line = Text(one_line(clean(choice.id)).ljust(width), style="bold")
        if choice.default:
            line.append(" (default)", style="green")
        about = " — ".join(p for p in (choice.label, choice.description) if p)
        if about:
            line.append(f"  {one_line(clean(about))}")
        console.print(line, soft_wrap=True)
        agents = catalog.describe(choice)
        if agents:
            agents = one_line(clean(agents))
            console.print(Text(" " * width + f"  agent: {agents}", style="dim"), soft_wrap=True)
    return EXIT_OK
