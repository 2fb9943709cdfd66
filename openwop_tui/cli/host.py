"""The host a command talks to, and the exit code when it says no.

`host_for` is the configured host, or the embedded demo host for as long as the command runs
(``run``, ``attach``, ``workflows``, ``runs`` and the printed app); `exit_for` is the exit code
a `HostError` gives (`openwop_tui.cli.exits`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from openwop_tui.cli.exits import EXIT_REFUSED, EXIT_USAGE

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


def exit_for(error: HostError) -> int:
    """The exit status for a `HostError`: `EXIT_REFUSED` when the host answered and said no
    (a 4xx other than 401/403: an unknown workflow or run, inputs it rejects, a conflict),
    `EXIT_USAGE` when it could not be reached, did not accept the credentials, failed (5xx)
    or sent something unusable."""
    status = error.status
    if status is not None and 400 <= status < 500 and status not in (401, 403, 407):
        return EXIT_REFUSED
    return EXIT_USAGE
