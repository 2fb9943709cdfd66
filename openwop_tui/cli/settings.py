"""The settings a command runs with, from its parsed arguments (`config_from`).

The flags that are settings (`SETTINGS`) go first, then ``OPENWOP_BASE_URL`` /
``OPENWOP_API_KEY``, then the config file (`openwop_tui.config.load_config`). The key need not
be on the command line: ``--api-key-file PATH`` or ``--api-key -`` (stdin) read it
(`openwop_tui.cli.key_source`). Imported once the arguments are parsed, never for ``--help``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from openwop_tui.cli import key_source
from openwop_tui.config import Config, ConfigError, load_config

#: The parsed arguments that are settings (`openwop_tui.config.Config` fields).
SETTINGS = (
    "host",
    "api_key",
    "images",
    "audio",
    "max_asset_bytes",
    "workflow",
    "demo_pace",
    "markdown_images",
)


def config_from(args: argparse.Namespace) -> Config:
    """The settings ``args`` give, with the environment and the config file; raises
    `ConfigError` (a key given twice, an unreadable key file, a bad setting)."""
    flags: dict[str, Any] = {k: v for k, v in vars(args).items() if k in SETTINGS}
    _key_off_the_command_line(args, flags)
    return load_config(flags, path=getattr(args, "config", None))


def _key_off_the_command_line(args: argparse.Namespace, flags: dict[str, Any]) -> None:
    """``--api-key -`` and ``--api-key-file PATH``: the key read into ``flags``
    (`openwop_tui.cli.key_source`). Raises `ConfigError`."""
    key_file: Path | None = getattr(args, "api_key_file", None)
    if key_file is not None:
        if "api_key" in flags:
            raise ConfigError("give the API key one way: --api-key or --api-key-file, not both")
        flags["api_key"] = key_source.key_from_file(key_file)
        if key_source.loosely_readable(key_file):
            print(
                f"openwop-tui: note: other users can read the API key file {key_file} "
                f"(chmod 600 {key_file} keeps it yours)",
                file=sys.stderr,
            )
    elif flags.get("api_key") == "-":
        if getattr(args, "file", None) == "-":
            raise ConfigError("stdin cannot carry both the API key (--api-key -) and the stream")
        flags["api_key"] = key_source.key_from_stdin(sys.stdin)
