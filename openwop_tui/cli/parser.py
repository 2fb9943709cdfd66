"""The argument parser of ``openwop-tui`` (`build_parser`): the main parser and every command's.

The main parser takes the app's own options (``--workflow``, ``--record``, ``--continue`` /
``--session``, ``--attach``); each command's parser is built here too, but for ``runs``
(`openwop_tui.cli.runs`) and the inspector's commands (`openwop_tui.cli.inspector`), which
build their own. Every parser takes the shared options (`openwop_tui.cli.options`); the main
parser's help and each command's (but ``demo-host``'s) end with the exit codes
(`openwop_tui.cli.exits`). The flags and value types several commands share are in
`openwop_tui.cli.arguments`.

Only argparse here: ``--version`` and ``--help`` print from the parser alone
(tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from openwop_tui import __version__
from openwop_tui.cli.arguments import answer_flags, json_flag, port, record_flag, seconds, sequence
from openwop_tui.cli.exits import EXIT_CODES_HELP
from openwop_tui.cli.options import add_shared_options
from openwop_tui.cli.usage import UsageParser

#: What ``run --help`` says WORKFLOW is.
WORKFLOW_HELP = """WORKFLOW is the id of a workflow the host offers: on the embedded demo host,
demo.chat (a chat reply), demo.tour (every kind of output), demo.clarify,
demo.approve and more; on another host, whatever it serves (conformance-noop on
the reference hosts). `openwop-tui workflows [--host URL]` lists them, with what
each does."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and for --help). Every parser, the main one and
    each command's, takes the shared options (`openwop_tui.cli.options`)."""
    parser = UsageParser(
        prog="openwop-tui",
        description="A terminal chat client for OpenWOP hosts. With no arguments it starts its\n"
        "own demo host on loopback and opens the chat (a printed transcript instead when\n"
        "the terminal cannot show the app: TERM=dumb, or stdin or stdout not a terminal).\n"
        "Options go before or after the command.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"openwop-tui {__version__}")
    parser.add_argument(
        "--workflow",
        metavar="ID",
        default=argparse.SUPPRESS,
        help="chat workflow to run per message (default demo.chat)",
    )
    record_flag(parser)
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="open the most recent stored session (shown at once, without the host)",
    )
    resume.add_argument("--session", metavar="ID", help="open the stored session ID")
    parser.add_argument(
        "--attach",
        metavar="RUN_ID",
        help="open the chat following run RUN_ID on the host (its history, then live)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    codes: dict[str, Any] = {
        "epilog": EXIT_CODES_HELP,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }
    _demo_host_command(commands)
    render = commands.add_parser(
        "render",
        help="print the transcript of a recorded .sse file",
        description="Print the transcript of a recorded event stream (a .sse file this program "
        "or curl wrote), or with --json its events as NDJSON. A file with no SSE events in it "
        "is an error (exit 2), with the reason.",
        **codes,
    )
    render.add_argument("file", metavar="FILE.sse", help="recorded stream, or - for stdin")
    render.add_argument(
        "--save-media",
        metavar="DIR",
        type=Path,
        help="save inline media bytes, and the full text of cut replies, into DIR (render "
        "writes nothing without it)",
    )
    json_flag(render)

    run = commands.add_parser(
        "run",
        help="run a workflow and print its transcript",
        description="Create a run of WORKFLOW on the host (the embedded demo host without\n"
        "--host), stream it and print its transcript, answering what it asks.\n\n" + WORKFLOW_HELP,
        **codes,
    )
    run.add_argument(
        "workflow",
        metavar="WORKFLOW",
        help="the workflow's id (`openwop-tui workflows` lists the host's)",
    )
    run.add_argument("--message", metavar="TEXT", help="a user message (inputs.messages)")
    run.add_argument(
        "--attach",
        metavar="PATH",
        action="append",
        default=[],
        help="a file the message carries (repeatable): a picture (PNG, JPEG, GIF, WebP), a "
        "document (PDF, text, Markdown, JSON, CSV) or a clip (Ogg, WAV), up to 6 MiB; inline "
        "up to the host's cap, uploaded beyond it where the host offers a route; - reads "
        "standard input (with --attach-type)",
    )
    run.add_argument(
        "--attach-type",
        metavar="MIME",
        help="the media type of --attach - (standard input), e.g. image/png",
    )
    run.add_argument("--input", metavar="JSON", help="the run's inputs as a JSON object")
    run.add_argument(
        "--save-media", metavar="DIR", type=Path, help="save every media envelope's bytes into DIR"
    )
    record_flag(run)
    run.add_argument(
        "--idle-timeout",
        type=seconds,
        metavar="S",
        default=300.0,
        help="when the run's stream brings nothing at all (not even a keep-alive) for S "
        "seconds, say so and check the run: one waiting for a human is left to wait, any other "
        "is resumed (default 300; 0: never). Ctrl-C cancels the run on the host and exits 130",
    )
    json_flag(run)
    answer_flags(run)
    _attach_command(commands, codes)
    workflows = commands.add_parser(
        "workflows",
        help="list the host's workflows (and the agents behind them)",
        description="List the workflows a host offers: its discovery fixtures, merged with "
        "GET /v1/workflows and GET /v1/agents where the host serves them.",
        **codes,
    )
    workflows.add_argument("--json", action="store_true", help="print them as JSON")
    from openwop_tui.cli.runs import add_runs_command

    add_runs_command(commands, codes)
    _session_commands(commands, codes)
    _completion_command(commands)
    from openwop_tui.cli.inspector import add_inspector_commands

    add_inspector_commands(commands, codes)
    _share(parser)
    return parser


def _share(parser: argparse.ArgumentParser) -> None:
    """The shared options on ``parser`` and on every command's parser below it."""
    add_shared_options(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict(action.choices).values():
                _share(command)


def _demo_host_command(commands: Any) -> None:
    """``demo-host`` and its fault flags."""
    demo = commands.add_parser(
        "demo-host",
        help="run the embedded demo host alone",
        description="Run the embedded demo host in the foreground. The fault flags make its "
        "event streams misbehave, to see how a client recovers; 0 turns each off.",
    )
    demo.add_argument(
        "--port", type=port, default=0, help="port on 127.0.0.1 (default: a free one)"
    )
    demo.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=1,
        help="1: serve OpenWOP v1 only (default); 2: serve v1 and v2, as a host of the overlap "
        "does (bare paths with OpenWOP-Version: 2)",
    )
    demo.add_argument(
        "--keepalive",
        type=float,
        metavar="S",
        default=15.0,
        help="seconds of silence before a keep-alive comment on an event stream (default 15; "
        "0: never, so --stall-ms leaves a stream silent)",
    )
    demo.add_argument(
        "--max-body-bytes",
        type=int,
        metavar="N",
        default=1024 * 1024,
        help="refuse request bodies over N bytes with 413, as advertised in discovery "
        "(limits.maxRequestBodyBytes; default 1 MiB)",
    )
    demo.add_argument(
        "--drop-every",
        type=int,
        metavar="N",
        default=0,
        help="end each event-stream connection after N events, cutting the next frame in half",
    )
    demo.add_argument(
        "--garbage-every",
        type=int,
        metavar="M",
        default=0,
        help="send a malformed (not JSON) frame after every M events",
    )
    demo.add_argument(
        "--stall-ms",
        type=int,
        metavar="S",
        default=0,
        help="pause S milliseconds before each event frame",
    )
    demo.add_argument(
        "--status",
        type=int,
        metavar="CODE",
        help="answer the first events request of each run with this HTTP status (e.g. 503, "
        "sent with Retry-After: 1, or 500), then serve normally",
    )
    demo.add_argument(
        "--status-times",
        type=int,
        metavar="T",
        default=1,
        help="with --status: answer the first T events requests of each run with it (default 1)",
    )


def _attach_command(commands: Any, codes: dict[str, Any]) -> None:
    """``attach RUN_ID``."""
    attach = commands.add_parser(
        "attach",
        help="print a run's history and follow it live to its end",
        description="Attach to a run started anywhere: print its history, then follow it "
        "live to its end (a finished run: its whole history, and its outcome as the exit "
        "code). Ctrl-C detaches; it does not cancel the run.",
        **codes,
    )
    attach.add_argument("run_id", metavar="RUN_ID")
    attach.add_argument(
        "--from",
        dest="from_seq",
        type=sequence,
        metavar="SEQ",
        help="start at event sequence SEQ (default: the run's whole history)",
    )
    attach.add_argument(
        "--idle-timeout",
        type=seconds,
        metavar="S",
        default=300.0,
        help="when the stream brings nothing for S seconds, check the run (default 300; 0: never)",
    )
    record_flag(attach)
    attach.add_argument(
        "--save-media", metavar="DIR", type=Path, help="save every media envelope's bytes into DIR"
    )
    json_flag(attach)
    answer_flags(attach)


def _session_commands(commands: Any, codes: dict[str, Any]) -> None:
    """``sessions``, ``export`` and ``replay``."""
    sessions = commands.add_parser(
        "sessions",
        help="list the stored sessions (rename, archive, unarchive, delete, search)",
        **codes,
    )
    sessions.add_argument("--json", action="store_true", help="print them as JSON")
    sessions.add_argument("--archived", action="store_true", help="list the archived sessions too")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION")
    for name, said in (
        ("archive", "put a stored session away: kept, out of the list"),
        ("unarchive", "bring an archived session back into the list"),
    ):
        actions.add_parser(name, help=said).add_argument("id", metavar="ID")
    search = actions.add_parser(
        "search",
        help="search every stored session for words",
        description="Search every stored session for WORDS, as the app's search does: the "
        "words as typed, case folded, anywhere in a message or reply. Each result is the "
        "session, its date, whose words and a line of context; the count is of occurrences.",
    )
    search.add_argument("words", metavar="WORDS", nargs="+")
    rename = actions.add_parser("rename", help="give a stored session a new title")
    rename.add_argument("id", metavar="ID")
    rename.add_argument("title", metavar="TITLE")
    delete = actions.add_parser("delete", help="delete a stored session")
    delete.add_argument("id", metavar="ID")

    export = commands.add_parser(
        "export",
        help="export a stored session as Markdown, JSONL or SSE",
        description="Export a stored session as Markdown, JSONL or SSE. A stored entry that "
        "cannot be read (damaged, or inflating past the store's cap of a stored entry) is "
        "left out: a line in its place in the file says so, and a warning on stderr names "
        "the session and the entry; the rest is exported and the exit code stays 0.",
        **codes,
    )
    export.add_argument("session", metavar="SESSION", nargs="?", help="default: the latest")
    export.add_argument("--format", choices=("md", "jsonl", "sse"), default="md")
    export.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        type=Path,
        help="default: openwop-ID.FORMAT in the download folder",
    )

    replay = commands.add_parser(
        "replay",
        help="play a recorded .sse file through the app as if live",
        description="Play a recording through the app as if live; printed as render prints "
        "it when the terminal cannot show the app (TERM=dumb, or stdout not a terminal), "
        "or as NDJSON with --json.",
        **codes,
    )
    replay.add_argument("file", metavar="FILE.sse")
    replay.add_argument(
        "--speed",
        type=seconds,
        default=1.0,
        metavar="X",
        help="1 as recorded (default), 2 twice as fast, 0 all at once",
    )
    replay.add_argument(
        "--save-media",
        metavar="DIR",
        type=Path,
        help="save media bytes and the full text of cut replies into DIR (replay writes "
        "nothing without it)",
    )
    json_flag(replay)


def _completion_command(commands: Any) -> None:
    """``completion SHELL``."""
    from openwop_tui.cli.completion import HOW, SHELLS

    completion = commands.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the script that completes openwop-tui's commands and options on "
        "Tab. Load it in every new shell:\n\n  " + "\n  ".join(HOW[shell] for shell in SHELLS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
