"""``openwop-tui doctor [--host URL] [--api-key KEY] [--json]``: will this setup work?

Runs the checks of `openwop_tui.doctor` (this terminal and machine; with ``--host`` the host
too) and prints one line per check: its status (``ok``, ``info``, ``warn``, ``FAIL``), its
name, what was found and, when it is not ``ok``, what to do. ``--json`` prints
``{"checks": [{"name", "status", "detail", "fix"} …]}``. Exit 1 when a check failed (something
asked for cannot work: the host, the key, the store, a forced image mode), else 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from rich.text import Text

from openwop_tui import doctor
from openwop_tui.cli.inspector import printing_console
from openwop_tui.config import Config, ConfigError, default_config_path
from openwop_tui.devices.audio import probe
from openwop_tui.devices.terminal import detect_image_mode, in_the_app
from openwop_tui.logs import default_log_path
from openwop_tui.store.database import default_path
from openwop_tui.text.sanitize import clean_own, one_line

_LABELS = {
    "ok": ("ok", "green"),
    "info": ("info", "cyan"),
    "warn": ("warn", "yellow"),
    "fail": ("FAIL", "bold red"),
}


def _key_source(config: Config, path: Path) -> doctor.Check:
    """Where the key comes from; whether the machine has a keychain; a key file others read."""
    import stat

    from openwop_tui.config_file import read_settings
    from openwop_tui.keychain import system_keychain

    keychain = system_keychain()
    try:
        holds_key = "api_key" in read_settings(path)
        mode = stat.S_IMODE(path.stat().st_mode) if holds_key else 0
    except (ConfigError, OSError):
        mode = 0
    return doctor.check_key_source(
        config.key_from, keychain.name if keychain else None, mode if mode & 0o077 else None
    )


def doctor_command(
    args: argparse.Namespace, config: Config, *, log_file: Path | None = None
) -> int:
    """Run ``doctor`` as parsed; the exit code."""
    given = getattr(args, "config", None)
    machine = doctor.Machine(
        environ=os.environ,
        size=doctor.terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1),
        images=in_the_app(  # (the app's images: NO_COLOR describes them)
            detect_image_mode(
                config.images, stdin=sys.stdin, stdout=sys.stdout, environ=os.environ
            ),
            os.environ,
        ),
        requested_images=config.images,
        audio=config.audio,
        config_path=given or default_config_path(os.environ),
        config_given=given is not None,
        store_path=default_path(),
        log_path=log_file or default_log_path(),
    )
    checks = doctor.local_checks(machine, probe=probe)
    checks.append(_key_source(config, machine.config_path))
    if config.host is not None:
        checks.extend(asyncio.run(doctor.host_checks(config.host, config.api_key)))
    if args.json:
        sys.stdout.write(json.dumps({"checks": [c.as_json() for c in checks]}) + "\n")
    else:
        console, whole = printing_console(args)
        for check in checks:
            label, style = _LABELS[check.status]
            line = Text(f"{label:>4} ", style=style)
            line.append(f"{check.name}: ", style="bold")
            # What a check found quotes the environment (a folder name from XDG_CONFIG_HOME)
            # and the host (an error message): one line each, controls shown, never run.
            line.append(one_line(clean_own(check.detail)))
            if check.fix and check.status != "ok":
                line.append(f"  → {one_line(clean_own(check.fix))}", style="dim")
            console.print(line, soft_wrap=whole)  # one check, one line into a pipe
    return 1 if doctor.failed(checks) else 0
