"""The inspector's commands: ``lint``, ``stats`` and ``doctor``.

`add_inspector_commands` adds their parsers to the main parser's subcommands and
`run_inspector_command` runs the one chosen; `openwop_tui.__main__` calls both, so the three
commands share its settings (``--host`` and ``--api-key`` flow into the same `Config`), its exit
codes and its error handling. The shared options (``--host``, ``--api-key``, ``--config`` …)
are added to their parsers by the main parser (`openwop_tui.cli.options`). Each command's
module imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # --help builds these parsers and must not import the config
    from rich.console import Console

    from openwop_tui.config import Config

LINT_EXITS = """exit codes:
  0    no finding is an error (warnings and notes do not count: a known host's
       dialect, such as seq/data beside sequence/payload, is a warning unless --strict)
  1    at least one finding is an error
  2    an input cannot be read (no such file, an empty file or no SSE frames, the
       host refused); the other inputs are still linted"""

#: The subcommands this package runs.
INSPECTOR_COMMANDS = frozenset({"lint", "stats", "doctor"})


def add_inspector_commands(commands: Any, codes: dict[str, Any]) -> None:
    """Add ``lint``, ``stats`` and ``doctor`` to the main parser's subcommands."""
    lint = commands.add_parser(
        "lint",
        help="check a run's events and envelopes against the spec (stable codes)",
        description=(
            "Check every event and envelope of recordings (FILE.sse, several at once, or -\n"
            "for stdin) or of a run on the host (RUN_ID with --host) against RFC 0055,\n"
            "ai-envelope.md and the bundled conformance schemas. One line per finding:\n"
            "sequence, code, severity, message, JSON path; then, for each input, a summary\n"
            "on stderr naming the protocol major (read from the stream unless --protocol)\n"
            "and the reference host dialect it speaks, if any: a dialect is a warning with\n"
            "its own code (OW120-OW129), an error with --strict. --rules lists every rule\n"
            "with its code and source."
        ),
        **{**codes, "epilog": LINT_EXITS},
    )
    lint.add_argument("source", metavar="FILE.sse|-|RUN_ID", nargs="*")
    lint.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per finding (NDJSON) with sequence, code, severity, source, "
        "message, path (a JSON path in the event), runId and input (what was linted); null "
        "sequence: the stream",
    )
    lint.add_argument(
        "--max-inline-bytes",
        type=int,
        metavar="N",
        help="the host's maxInlineMediaBytes (default: the host's, else 262144)",
    )
    lint.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="validate every event as v1 or v2 (default: read from the stream, or the host)",
    )
    lint.add_argument(
        "--strict",
        action="store_true",
        help="the schema's exact reading: a known host dialect (seq, data, null fields, "
        "empty payloads ...) is an error, not a warning",
    )
    lint.add_argument(
        "--min-severity",
        choices=("info", "warning", "error"),
        default="info",
        help="print only findings at least this severe (the exit code counts every error)",
    )
    lint.add_argument("--rules", action="store_true", help="list every rule and exit")

    stats = commands.add_parser(
        "stats",
        help="where a run's time and tokens went: per-node timeline, tokens, first token",
        description=(
            "Fold a recording (FILE.sse, or - for stdin) or a run on the host (RUN_ID with\n"
            "--host) into per-node durations (drawn as bars on the run's time axis),\n"
            "attempts, tokens in and out per node and per model, time to first token and\n"
            "the event rate."
        ),
        **{**codes, "epilog": "exit codes:\n  0    printed\n  2    the input cannot be read"},
    )
    stats.add_argument("source", metavar="FILE.sse|-|RUN_ID")
    stats.add_argument(
        "--json",
        action="store_true",
        help='one object {"runs": [...]}: each run\'s runId, status, durationMs, '
        "timeToFirstTokenMs, eventsPerSecond, tokensIn, tokensOut, nodes (nodeId, start, end, "
        "durationMs, attempts, status, tokensIn, tokensOut) and models (see the README)",
    )

    doctor = commands.add_parser(
        "doctor",
        help="check that this terminal, machine and host will work",
        description=(
            "One line per check, with what to do when it fails: the terminal's size,\n"
            "colours and image protocol, tmux passthrough, audio, the config file, the\n"
            "session store and the log file; with --host, the host, the API key, its\n"
            "protocol versions and capabilities."
        ),
        **{
            **codes,
            "epilog": "exit codes:\n  0    nothing asked for fails (warnings are degradations)\n"
            "  1    something asked for cannot work (the host, the key, the store ...)",
        },
    )
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")


def run_inspector_command(
    args: argparse.Namespace, config: Config, *, log_file: Path | None = None
) -> int:
    """Run ``lint``, ``stats`` or ``doctor``; the exit code. Output cut short by its reader
    (``| head``) is not an error: the command stops quietly with its own exit code."""
    try:
        return _run(args, config, log_file)
    except BrokenPipeError:
        # Whatever was still buffered goes nowhere (else the interpreter complains at exit).
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
        return 0


def printing_console(args: argparse.Namespace) -> tuple[Console, bool]:
    """The console a command prints on, with the shared ``--colors`` and ``--width`` read as
    every printing command reads them (`openwop_tui.cli.output.make_console`), and whether
    each line must stay whole: into a file or a pipe, without ``--width``, a finding, a check
    or a node's line is one line however long (a reader greps it), as ``run`` keeps its
    headers and errors."""
    from openwop_tui.cli.output import make_console

    width = getattr(args, "width", None)
    console = make_console(colors=getattr(args, "colors", None), width=width)
    return console, width is None and not _is_tty(sys.stdout)


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _run(args: argparse.Namespace, config: Config, log_file: Path | None) -> int:
    if args.command == "lint":
        from openwop_tui.cli.lint import lint_command

        return lint_command(args, config)
    if args.command == "stats":
        from openwop_tui.cli.stats import stats_command

        return stats_command(args, config)
    from openwop_tui.cli.doctor import doctor_command

    return doctor_command(args, config, log_file=log_file)
