"""The host a command talks to, and the exit code when it says no.

`host_for` is the configured host, or the embedded demo host for as long as the command runs
(``run``, ``attach``, ``workflows``, ``runs`` and the printed app), and `on_host` runs a
command's work against it; `exit_for` is the exit code a `HostError` gives
(`openwop_tui.cli.exits`).

A host that answered is remembered (its URL only, `openwop_tui.store.state`), by the app and by
these commands. ``runs`` and ``attach`` look at runs made before, so without ``--host`` they use
that host (`last_used`), saying so: an embedded demo host started for the command is new and
empty, and a newcomer listing the runs they just made in the app saw none. With nothing
remembered they say plainly that the command's host is its own, and how to keep one running.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any

from openwop_tui.cli.exits import EXIT_OK, EXIT_REFUSED, EXIT_USAGE

if TYPE_CHECKING:
    from openwop_tui.config import Config
    from openwop_tui.protocol.client import HostError


@contextlib.contextmanager
def host_for(config: Config) -> Iterator[tuple[str, str | None]]:
    """The configured host, or the embedded demo host for as long as the block runs."""
    if config.host is not None:
        yield config.host, config.api_key
        return
    from openwop_tui.demo_host import DemoHost  # only needed without --host

    with DemoHost(pace=config.demo_pace) as demo:
        yield demo.url, demo.api_key


#: Said by ``runs`` and ``attach`` without ``--host`` when no host was ever talked to.
NEW_HOST = (
    "openwop-tui: no --host: this command started an embedded demo host of its own, new and "
    "empty (the app's was its own too, gone when it quit); to keep one running, start "
    "`openwop-tui demo-host` in another terminal and pass the URL it prints as --host"
)


def last_used(config: Config) -> Config:
    """``config`` for a command that looks at runs made before (``runs``, ``attach``): without
    a host, the one last talked to, said on stderr; with none remembered, as it is, and
    `NEW_HOST` said."""
    if config.host is not None:
        return config
    from dataclasses import replace

    from openwop_tui.store import state

    remembered = state.remembered_host()
    if remembered is None:
        print(NEW_HOST, file=sys.stderr)
        return config
    print(
        f"openwop-tui: no --host: using {remembered}, the host last talked to "
        "(--host URL for another)",
        file=sys.stderr,
    )
    return replace(config, host=remembered)


def remember(host: str) -> None:
    """Keep ``host`` (without credentials) as the host last talked to."""
    from openwop_tui.store import state

    state.remember_host(host)


def on_host(config: Config, work: Callable[[str, str | None], Coroutine[Any, Any, int]]) -> int:
    """Run ``work(url, key)`` against the configured host, or the embedded demo host started
    for it; its exit code. A configured host that answered (the work succeeded, or the host
    said no) is remembered (`remember`). A demo host that cannot start is one sentence on
    stderr and `EXIT_USAGE`; a reader of stdout that left (`BrokenPipeError`) goes up to
    `openwop_tui.__main__.main`, which ends quietly."""
    try:
        with host_for(config) as (url, key):
            code = asyncio.run(work(url, key))
    except BrokenPipeError:
        raise
    except OSError as error:
        print(f"openwop-tui: could not start the embedded demo host: {error}", file=sys.stderr)
        return EXIT_USAGE
    if config.host is not None and code in (EXIT_OK, EXIT_REFUSED):
        remember(config.host)
    return code


def exit_for(error: HostError) -> int:
    """The exit status for a `HostError`: `EXIT_REFUSED` when the host answered and said no
    (a 4xx other than 401/403: an unknown workflow or run, inputs it rejects, a conflict),
    `EXIT_USAGE` when it could not be reached, did not accept the credentials, failed (5xx)
    or sent something unusable."""
    status = error.status
    if status is not None and 400 <= status < 500 and status not in (401, 403, 407):
        return EXIT_REFUSED
    return EXIT_USAGE
