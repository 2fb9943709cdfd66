"""Command line: ``openwop-tui`` and its subcommands.

* ``openwop-tui``: the chat app, against the embedded demo host unless ``--host`` is given;
* ``openwop-tui demo-host [--port N] [--protocol 2]``: the demo host alone;
* ``openwop-tui render FILE.sse``: print a recorded stream's transcript;
* ``openwop-tui run WORKFLOW``: run a workflow and print its transcript, answering what it
  asks (``--answer``, ``--approve``, ``--reject``, ``--feedback``, else a prompt on a terminal);
* ``openwop-tui attach RUN_ID``: print a run's history and follow it live to its end;
* ``openwop-tui workflows``: the host's workflows (discovery ``fixtures``, ``/v1/workflows``,
  ``/v1/agents``);
* ``openwop-tui runs [--status S] [--workflow ID]``: the host's runs (`openwop_tui.cli.runs`);
* ``openwop-tui replay FILE.sse [--speed X]``: play a recording through the app (printed when
  the terminal cannot show the app);
* ``openwop-tui sessions [rename ID TITLE | delete ID] [--json]``: the stored sessions;
* ``openwop-tui export [SESSION] --format md|jsonl|sse -o PATH``: a stored session, exported;
* ``openwop-tui --continue`` / ``--session ID``: the app, on a stored session;
* ``--record FILE.sse`` (the app and ``run``): write the raw stream as it arrives;
* ``--json`` (``run``, ``attach``, ``render``, ``replay``): NDJSON of the normalised events
  (`openwop_tui.cli.ndjson`, in the shape `openwop_tui.present.export.jsonl_lines` defines).

The shared options (`openwop_tui.cli.options`) go before or after any command, and a command's
own options before its name too (`openwop_tui.cli.options.hoist`). Where the terminal cannot
show the app (``TERM=dumb``, stdin or stdout not a terminal) the app is printed instead
(`openwop_tui.cli.chat`).

Settings come from flags, then ``OPENWOP_BASE_URL`` / ``OPENWOP_API_KEY``, then the config file.
The key need not be on the command line: ``--api-key-file PATH`` or ``--api-key -`` (stdin).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openwop_tui import __version__
from openwop_tui.cli.options import add_shared_options, hoist

# ``--version`` and ``--help`` print from the parser alone: everything a command needs (the
# configuration, logging, the redactor, and the commands themselves) is imported once the
# arguments are parsed (tests/cli/test_startup.py holds it to that).
if TYPE_CHECKING:
    from openwop_tui.cli.commands import Output
    from openwop_tui.config import Config
    from openwop_tui.text.redact import Redactor
    from openwop_tui.ui.options import AppOptions


#: Exit codes shared by every command (``--help`` and the README list them).
EXIT_INTERRUPTED = 130
EXIT_INTERNAL = 70
EXIT_CODES_HELP = """exit codes:
  0    the run completed (run, attach), or the command did its work
  1    the run failed or was cancelled
  2    a usage error (input with no SSE events, a busy demo-host port, a host with
       no run list), or the host could not be reached, did not accept the API key
       (401/403), failed (5xx) or sent an answer that is not usable
  3    the host refused the request (any other 4xx: an unknown workflow or run,
       inputs it rejects, a conflict); the host's reason is printed
  70   an unexpected error: one line names the log file holding the details
  130  interrupted by Ctrl-C or kill -INT (run and the app: the run was cancelled
       on the host first; attach: detached, the run goes on)

Details of any error go to a log file (platform state folder, e.g.
~/.local/state/openwop-tui/log/openwop-tui.log), with the API key and URL
credentials masked."""


def display_output(
    args: argparse.Namespace,
    config: Config,
    save_media: Path | None = None,
    *,
    saves_overflow: bool = True,
) -> Output:
    """The `openwop_tui.cli.commands.Output` of a printing command, with its display flags (the
    one reading of ``--colors``, ``--width``, ``--no-audio`` and ``--json``, for every command
    that prints). ``saves_overflow``: cut replies are written to the download folder unasked
    (not for ``render`` and ``replay``, which write only into ``--save-media``)."""
    from openwop_tui.cli.commands import Output, make_console

    as_json = bool(getattr(args, "json", False))
    console = make_console(
        # With --json the transcript is not drawn: what is printed (headers, questions) is
        # for a person, on stderr.
        sys.stderr if as_json else None,
        colors=getattr(args, "colors", None),
        width=getattr(args, "width", None),
        images=config.images,
    )
    flag = getattr(args, "audio", None)
    off = flag is False or (flag is None and not config.audio)
    why = "(--no-audio)" if flag is False else "(audio = false in the config file)"
    return Output(
        config,
        console,
        save_media,
        audio_off=off,
        audio_off_reason=f"audio is switched off {why}",
        colors=getattr(args, "colors", None),
        saves_overflow=saves_overflow,
        as_json=as_json,
    )


#: What ``run --help`` says WORKFLOW is.
WORKFLOW_HELP = """WORKFLOW is the id of a workflow the host offers: on the embedded demo host,
demo.chat (a chat reply), demo.tour (every kind of output), demo.clarify,
demo.approve and more; on another host, whatever it serves (conformance-noop on
the reference hosts). `openwop-tui workflows [--host URL]` lists them, with what
each does."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and for --help). Every parser, the main one and
    each command's, takes the shared options (`openwop_tui.cli.options`)."""
    parser = argparse.ArgumentParser(
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
    _record_flag(parser)
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
    _json_flag(render)

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
    run.add_argument("--input", metavar="JSON", help="the run's inputs as a JSON object")
    run.add_argument(
        "--save-media", metavar="DIR", type=Path, help="save every media envelope's bytes into DIR"
    )
    _record_flag(run)
    run.add_argument(
        "--idle-timeout",
        type=_seconds,
        metavar="S",
        default=300.0,
        help="when the run's stream brings nothing at all (not even a keep-alive) for S "
        "seconds, say so and check the run: one waiting for a human is left to wait, any other "
        "is resumed (default 300; 0: never). Ctrl-C cancels the run on the host and exits 130",
    )
    _json_flag(run)
    _answer_flags(run)
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


def _record_flag(parser: argparse.ArgumentParser) -> None:
    """``--record`` (the app, ``run`` and ``attach``): suppressed when absent, so the main
    parser's is not undone by a command's."""
    parser.add_argument(
        "--record",
        metavar="FILE.sse",
        type=Path,
        default=argparse.SUPPRESS,
        help="write the raw event stream to FILE.sse as it arrives (render or replay it later)",
    )


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the normalised events as NDJSON (one JSON object a line, the shape of "
        "`export --format jsonl`; see the README) instead of the transcript; nothing else on "
        "stdout",
    )


def _port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value}: give a port from 1 to 65535 (0: a free one)")
    return value


def _demo_host_command(commands: Any) -> None:
    """``demo-host`` and its fault flags."""
    demo = commands.add_parser(
        "demo-host",
        help="run the embedded demo host alone",
        description="Run the embedded demo host in the foreground. The fault flags make its "
        "event streams misbehave, to see how a client recovers; 0 turns each off.",
    )
    demo.add_argument(
        "--port", type=_port, default=0, help="port on 127.0.0.1 (default: a free one)"
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


def _answer_flags(parser: argparse.ArgumentParser) -> None:
    """``--answer``, ``--approve``, ``--reject``, ``--feedback``: answering what a run asks."""
    group = parser.add_argument_group(
        "answering the run",
        "When the run asks, these answer it. Without ones that fit, a terminal asks at a "
        "prompt; otherwise the question and how to answer it are printed and the run waits "
        "(it may be answered from anywhere).",
    )
    group.add_argument(
        "--answer",
        action="append",
        metavar="ID=VALUE",
        help="answer question ID of a clarification (repeat for each question; a lone VALUE "
        "answers a single question or a plain input)",
    )
    decision = group.add_mutually_exclusive_group()
    decision.add_argument("--approve", action="store_true", help="accept an approval")
    decision.add_argument("--reject", action="store_true", help="reject an approval")
    group.add_argument(
        "--feedback",
        metavar="TEXT",
        help="with --reject: the reason; alone: refine the approval with this feedback",
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
        type=_sequence,
        metavar="SEQ",
        help="start at event sequence SEQ (default: the run's whole history)",
    )
    attach.add_argument(
        "--idle-timeout",
        type=_seconds,
        metavar="S",
        default=300.0,
        help="when the stream brings nothing for S seconds, check the run (default 300; 0: never)",
    )
    _record_flag(attach)
    attach.add_argument(
        "--save-media", metavar="DIR", type=Path, help="save every media envelope's bytes into DIR"
    )
    _json_flag(attach)
    _answer_flags(attach)


def _sequence(text: str) -> int:
    """An event sequence number, 0 or more (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a sequence number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def _session_commands(commands: Any, codes: dict[str, Any]) -> None:
    """``sessions``, ``export`` and ``replay``."""
    sessions = commands.add_parser(
        "sessions", help="list the stored sessions (rename ID TITLE, delete ID)", **codes
    )
    sessions.add_argument("--json", action="store_true", help="print them as JSON")
    actions = sessions.add_subparsers(dest="action", metavar="ACTION")
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
        type=_seconds,
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
    _json_flag(replay)


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more seconds")
    return value


_SETTINGS = (
    "host",
    "api_key",
    "images",
    "audio",
    "max_asset_bytes",
    "workflow",
    "demo_pace",
    "markdown_images",
)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``openwop-tui`` script.

    Whatever goes wrong, the user gets one sentence and an exit code, never a traceback: the
    details go to the log file, with the API key and URL credentials masked there too.
    """
    parser = build_parser()
    args = parser.parse_args(hoist(parser, sys.argv[1:] if argv is None else argv))
    from openwop_tui.config import ConfigError, load_config
    from openwop_tui.logs import setup_logging
    from openwop_tui.text.redact import Redactor

    flags: dict[str, Any] = {k: v for k, v in vars(args).items() if k in _SETTINGS}
    try:
        _key_off_the_command_line(args, flags)
        config = load_config(flags, path=getattr(args, "config", None))
    except ConfigError as error:
        parser.exit(2, f"openwop-tui: {error}\n")
    redactor = Redactor([config.api_key])
    log_file = setup_logging(redactor)
    try:
        with _redacted_output(redactor):
            return dispatch(args, config, log_file=log_file)
    except KeyboardInterrupt:
        print("openwop-tui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout left (``… --json | head -1``): not an error of ours. What is
        # still buffered goes nowhere, else the interpreter complains at exit.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.__stdout__.fileno())  # type: ignore[union-attr]
        return 0
    except Exception as error:
        import logging

        logging.getLogger(__name__).error(
            "unexpected error in %s", args.command or "the app", exc_info=error
        )
        where = f"; details are in {log_file}" if log_file else ""
        print(
            f"openwop-tui: stopped by an unexpected {type(error).__name__}{where}", file=sys.stderr
        )
        return EXIT_INTERNAL


def _key_off_the_command_line(args: argparse.Namespace, flags: dict[str, Any]) -> None:
    """``--api-key -`` and ``--api-key-file PATH``: the key read into ``flags``
    (`openwop_tui.cli.key_source`). Raises `ConfigError`."""
    from openwop_tui.cli import key_source
    from openwop_tui.config import ConfigError

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


@contextlib.contextmanager
def _redacted_output(redactor: Redactor) -> Iterator[None]:
    """Mask secrets in everything the commands print, whichever code path prints it."""
    from openwop_tui.text.redact import RedactingWriter

    saved = sys.stdout, sys.stderr
    sys.stdout = RedactingWriter(saved[0], redactor)
    sys.stderr = RedactingWriter(saved[1], redactor)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def dispatch(args: argparse.Namespace, config: Config, *, log_file: Path | None = None) -> int:
    """Run the chosen command."""
    if args.command == "demo-host":
        return _demo_host(args)
    if args.command == "render":
        from openwop_tui.cli.commands import render_file

        if _json_without_media(args):
            return 2
        output = display_output(args, config, args.save_media, saves_overflow=False)
        return render_file(args.file, output)
    if args.command in ("run", "attach"):
        return _follow(args, config)
    if args.command == "workflows":
        from openwop_tui.cli.commands import list_workflows

        output = display_output(argparse.Namespace(**_not_json(args)), config)
        return list_workflows(output, as_json=args.json)
    if args.command == "runs":
        from openwop_tui.cli.runs import runs_command

        return runs_command(args, display_output(argparse.Namespace(**_not_json(args)), config))
    if args.command in ("sessions", "export", "replay"):
        return _stored(args, config, log_file)
    from openwop_tui.cli.inspector import INSPECTOR_COMMANDS, run_inspector_command

    if args.command in INSPECTOR_COMMANDS:
        return run_inspector_command(args, config, log_file=log_file)
    return _app(args, config, log_file)


def _not_json(args: argparse.Namespace) -> dict[str, Any]:
    """``args`` but ``json``: a command whose ``--json`` prints to stdout itself (not NDJSON
    of events) draws on stdout."""
    return {key: value for key, value in vars(args).items() if key != "json"}


def _json_without_media(args: argparse.Namespace) -> bool:
    """``--json`` with ``--save-media``: a usage error, said (``--json`` draws nothing)."""
    if getattr(args, "json", False) and getattr(args, "save_media", None) is not None:
        print(
            "openwop-tui: --save-media saves what the transcript draws; with --json nothing is "
            "drawn (the events carry the media references): give one of them",
            file=sys.stderr,
        )
        return True
    return False


def _demo_host(args: argparse.Namespace) -> int:
    """``demo-host``: a busy or forbidden port is one line saying what to do, exit 2."""
    import errno

    from openwop_tui.demo_host import serve_forever

    try:
        serve_forever(
            port=args.port,
            keepalive=args.keepalive,
            drop_every=args.drop_every,
            garbage_every=args.garbage_every,
            stall_ms=args.stall_ms,
            status=args.status,
            status_times=args.status_times,
            protocol=args.protocol,
            max_body_bytes=args.max_body_bytes,
        )
    except ValueError as error:  # a fault flag or limit out of range
        print(f"openwop-tui: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        where = f"port {args.port} on 127.0.0.1"
        if error.errno == errno.EADDRINUSE:
            line = (
                f"{where} is already taken (another program, or a demo host already running, "
                f"listens there): stop it, or pick another port with --port N (--port 0 picks "
                "a free one)"
            )
        elif error.errno == errno.EACCES:
            line = (
                f"{where} needs privileges this user does not have: pick a port above 1023 "
                "with --port N (--port 0 picks a free one)"
            )
        else:
            line = f"cannot listen on {where}: {error.strerror or error}"
        print(f"openwop-tui: {line}", file=sys.stderr)
        return 2
    return 0


def _app(args: argparse.Namespace, config: Config, log_file: Path | None) -> int:
    """The chat app, or its printed form where the terminal cannot show it (`_no_app`)."""
    session_id: str | None = None
    if args.continue_latest or args.session is not None:
        from openwop_tui.cli.sessions import chosen_session
        from openwop_tui.store.database import StoreError

        try:
            session_id = chosen_session(args.session, api_key=config.api_key).id
        except StoreError as error:
            print(f"openwop-tui: {error}", file=sys.stderr)
            return 2
    why = _no_app()
    if why is not None:
        from openwop_tui.cli.chat import printed_app

        return printed_app(
            display_output(args, config),
            why,
            session_id=session_id,
            attach=args.attach,
            record=getattr(args, "record", None),
            interactive=sys.stdin.isatty() and sys.stdout.isatty(),
        )
    from openwop_tui.ui.options import AppOptions

    options = AppOptions(
        session_id=session_id,
        record=getattr(args, "record", None),
        attach=args.attach,
        config_path=getattr(args, "config", None),  # the settings screen writes this one
        log_file=log_file,
    )
    return _run_app(config, options)


def _no_app() -> str | None:
    """Why this terminal cannot show the full-screen app, if it cannot: ``TERM=dumb``, or
    stdout or stdin not a terminal (a pipe, a file, a CI log)."""
    if os.environ.get("TERM") == "dumb":
        return "TERM=dumb: this terminal cannot show the app"
    if not sys.stdout.isatty():
        return "stdout is not a terminal"
    if not sys.stdin.isatty():
        return "stdin is not a terminal"
    return None


def _follow(args: argparse.Namespace, config: Config) -> int:
    """``run`` and ``attach``."""
    from openwop_tui.cli.answering import AnswerFlags, FlagError
    from openwop_tui.cli.commands import attach_run, run_workflow

    try:
        flags = AnswerFlags.parse(
            args.answer, approve=args.approve, reject=args.reject, feedback=args.feedback
        )
    except FlagError as error:
        print(f"openwop-tui: {error}", file=sys.stderr)
        return 2
    if _json_without_media(args):
        return 2
    output = display_output(args, config, args.save_media)
    # Ask at a prompt only when a person is there to type and to read the question (with
    # --json stdout is the events': the question and how to answer it go to stderr).
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not args.json
    common: dict[str, Any] = {
        "idle_timeout": args.idle_timeout,
        "record": getattr(args, "record", None),
        "flags": flags,
        "interactive": interactive,
    }
    if args.command == "attach":
        return attach_run(args.run_id, output, from_seq=args.from_seq, **common)
    return run_workflow(args.workflow, output, message=args.message, inputs=args.input, **common)


def _stored(args: argparse.Namespace, config: Config, log_file: Path | None) -> int:
    """``sessions``, ``export`` and ``replay``."""
    from openwop_tui.cli import sessions as stored

    if args.command == "replay" and _json_without_media(args):
        return 2
    output = display_output(argparse.Namespace(**_not_json(args)), config)
    if args.command == "sessions":
        if args.action == "rename":
            return stored.rename_session(output, args.id, args.title)
        if args.action == "delete":
            return stored.delete_session(output, args.id)
        return stored.list_sessions(output, as_json=args.json)
    if args.command == "export":
        return stored.export_command(output, args.session, args.format, args.output)
    why = _no_app()
    if args.json or why is not None:
        if why is not None and not args.json:
            print(f"openwop-tui: {why}; printing the recording instead", file=sys.stderr)
        output = display_output(args, config, args.save_media, saves_overflow=False)
        return stored.replay_print(args.file, output)
    from openwop_tui.cli.commands import has_events, not_sse
    from openwop_tui.store.record import read_recording

    try:
        text = Path(args.file).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        print(f"openwop-tui: cannot read {args.file}: {error.strerror or error}", file=sys.stderr)
        return 2
    if not has_events(read_recording(text).entries):
        print(f"openwop-tui: {not_sse(args.file, text)}", file=sys.stderr)
        return 2
    from openwop_tui.ui.options import AppOptions, Replay

    replay = Replay(path=Path(args.file), speed=args.speed, save_media=args.save_media)
    return _run_app(config, AppOptions(replay=replay, log_file=log_file))


def _run_app(config: Config, options: AppOptions) -> int:
    """Start the chat app with ``options`` (`openwop_tui.ui.options.AppOptions`), adding what is
    found out about the terminal before the app takes it: the image protocol, and the keys
    typed meanwhile."""
    from dataclasses import replace

    from openwop_tui.devices.typeahead import TypeAhead

    # Before the slow imports: what is typed while the app starts reaches the prompt as typed.
    held = TypeAhead.hold(sys.stdin.fileno()) if sys.stdin.isatty() else None
    try:
        from openwop_tui.devices.terminal import detect_image_mode
        from openwop_tui.ui.app import ChatApp

        # Once, before Textual takes the terminal: after that its input thread owns the answers.
        support = detect_image_mode(
            config.images,
            stdin=sys.stdin,
            stdout=sys.stdout,
            environ=os.environ,
            typed=held.keep if held is not None else None,
        )
        typed = held.take() if held is not None else ""
        app = ChatApp(config, replace(options, image_support=support, typed=typed))
        app.run()
    finally:
        if held is not None:
            held.restore()  # Textual put back the held mode it found; this is the user's
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
