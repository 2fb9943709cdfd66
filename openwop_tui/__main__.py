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

Settings come from flags, then ``OPENWOP_BASE_URL`` / ``OPENWOP_API_KEY``, then the config file
(`openwop_tui.cli.settings`). The key need not be on the command line: ``--api-key-file PATH``
or ``--api-key -`` (stdin).

This module parses (`openwop_tui.cli.parser`), dispatches to the command (each in
`openwop_tui.cli`, imported once chosen), turns what escapes it into an exit code
(`openwop_tui.cli.exits`), and starts the app (`_app`, `_replay`, `_run_app`): here, not in
`openwop_tui.cli`, which is a floor below `openwop_tui.ui` (the layers contract in
pyproject.toml) and may not import it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from openwop_tui.cli.completion import answer_if_asked
from openwop_tui.cli.exits import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE
from openwop_tui.cli.options import hoist
from openwop_tui.cli.parser import build_parser

# ``--version`` and ``--help`` print from the parser alone: everything a command needs (the
# configuration, logging, the redactor, and the commands themselves) is imported once the
# arguments are parsed (tests/cli/test_startup.py holds it to that).
if TYPE_CHECKING:
    from openwop_tui.config import Config
    from openwop_tui.devices.terminal import ImageSupport
    from openwop_tui.text.redact import Redactor
    from openwop_tui.ui.options import AppOptions


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``openwop-tui`` script.

    Whatever goes wrong, the user gets one sentence and an exit code, never a traceback: the
    details go to the log file, with the API key and URL credentials masked there too.
    """
    parser = build_parser()
    answer_if_asked(parser)  # (a shell asking for completions: answered, and exits)
    args = parser.parse_args(hoist(parser, sys.argv[1:] if argv is None else argv))
    from openwop_tui.cli.settings import config_from
    from openwop_tui.config import ConfigError
    from openwop_tui.logs import setup_logging
    from openwop_tui.text.redact import Redactor

    try:
        config = config_from(args)
    except ConfigError as error:
        parser.exit(EXIT_USAGE, f"openwop-tui: {error}\n")
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
    command = args.command
    if command in ("runs", "attach"):
        from openwop_tui.cli.host import last_used

        config = last_used(config)  # (runs made before: on the host last talked to)
    if command == "demo-host":
        from openwop_tui.cli.demo import demo_host_command

        return demo_host_command(args)
    if command == "render":
        from openwop_tui.cli.render import render_command

        return render_command(args, config)
    if command in ("run", "attach"):
        from openwop_tui.cli.follow import follow_command

        return follow_command(args, config)
    if command == "completion":
        from openwop_tui.cli.completion import completion_command

        return completion_command(args.shell)
    if command == "workflows":
        from openwop_tui.cli.workflows import workflows_command

        return workflows_command(args, config)
    if command == "runs":
        from openwop_tui.cli.output import display_output, not_json
        from openwop_tui.cli.runs import runs_command

        return runs_command(args, display_output(argparse.Namespace(**not_json(args)), config))
    if command in ("sessions", "export"):
        return _stored(args, config)
    if command == "replay":
        return _replay(args, config, log_file)
    from openwop_tui.cli.inspector import INSPECTOR_COMMANDS, run_inspector_command

    if command in INSPECTOR_COMMANDS:
        return run_inspector_command(args, config, log_file=log_file)
    return _app(args, config, log_file)


def _stored(args: argparse.Namespace, config: Config) -> int:
    """``sessions`` and ``export`` (`openwop_tui.cli.sessions`)."""
    from openwop_tui.cli import sessions as stored
    from openwop_tui.cli.output import display_output, not_json

    output = display_output(argparse.Namespace(**not_json(args)), config)
    if args.command == "export":
        return stored.export_command(output, args.session, args.format, args.output)
    if args.action == "rename":
        return stored.rename_session(output, args.id, args.title)
    if args.action == "delete":
        return stored.delete_session(output, args.id)
    if args.action in ("archive", "unarchive"):
        return stored.archive_session(output, args.id, archived=args.action == "archive")
    if args.action == "search":
        return stored.search_sessions(output, " ".join(args.words), as_json=args.json)
    return stored.list_sessions(output, as_json=args.json, archived=args.archived)


def _replay(args: argparse.Namespace, config: Config, log_file: Path | None) -> int:
    """``replay``: the recording played through the app, or printed as ``render`` prints it
    where the terminal cannot show the app (and with ``--json``, as NDJSON)."""
    from openwop_tui.cli.output import display_output, json_without_media

    if json_without_media(args):
        return EXIT_USAGE
    why = _no_app()
    if args.json or why is not None:
        from openwop_tui.cli.sessions import replay_print

        if why is not None and not args.json:
            print(f"openwop-tui: {why}; printing the recording instead", file=sys.stderr)
        output = display_output(args, config, args.save_media, saves_overflow=False)
        return replay_print(args.file, output)
    from openwop_tui.cli.render import unplayable

    problem = unplayable(args.file)
    if problem is not None:
        print(f"openwop-tui: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from openwop_tui.ui.options import AppOptions, Replay

    replay = Replay(path=Path(args.file), speed=args.speed, save_media=args.save_media)
    return _run_app(config, AppOptions(replay=replay, log_file=log_file))


def _app(args: argparse.Namespace, config: Config, log_file: Path | None) -> int:
    """The chat app, or its printed form where the terminal cannot show it (`_no_app`)."""
    session_id: str | None = None
    if args.continue_latest or args.session is not None:
        from openwop_tui.cli.stored import chosen_session
        from openwop_tui.store.database import StoreError

        try:
            session_id = chosen_session(args.session, api_key=config.api_key).id
        except StoreError as error:
            print(f"openwop-tui: {error}", file=sys.stderr)
            return EXIT_USAGE
    why = _no_app()
    if why is not None:
        from openwop_tui.cli.chat import printed_app
        from openwop_tui.cli.output import display_output

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


def _run_app(config: Config, options: AppOptions) -> int:
    """Start the chat app with ``options`` (`openwop_tui.ui.options.AppOptions`), adding what is
    found out about the terminal before the app takes it: the image protocol, and the keys
    typed meanwhile."""
    import gc
    from dataclasses import replace

    from openwop_tui.devices.early_probe import EarlyProbe
    from openwop_tui.devices.typeahead import TypeAhead

    # Before the slow imports: what is typed while the app starts reaches the prompt as typed.
    held = TypeAhead.hold(sys.stdin.fileno()) if sys.stdin.isatty() else None
    # And the terminal asked how it draws images, while the keyboard is held (its answers
    # queue unseen): its round trip, or a silent terminal's timeout, passes while the app's
    # modules load, read once they are in (`openwop_tui.devices.early_probe`).
    probe = (
        EarlyProbe.ask(config.images, stdin=sys.stdin, stdout=sys.stdout, environ=os.environ)
        if held is not None
        else None
    )
    # No collection while the app's modules load and it opens its chat: some 100,000 objects
    # that live as long as the app, which every pass would walk again (a fifth of the start).
    # ChatApp freezes them once made (`openwop_tui.ui.heap.settle`); collection resumes then.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from openwop_tui.ui.app import ChatApp
        from openwop_tui.ui.key_watch import keys_handed_on

        # Before Textual takes the terminal: after that its input thread owns the answers.
        support = (
            probe.answer(typed=held.keep)
            if probe is not None and held is not None
            else _asked_now(config.images)
        )
        typed = held.take() if held is not None else ""
        from openwop_tui.devices.terminal import in_the_app

        support = in_the_app(support, os.environ)  # (NO_COLOR: pictures described)
        # Its first frame drawn before the chat is made (`openwop_tui.ui.first_frame`).
        app = ChatApp(config, replace(options, image_support=support, typed=typed, draw_first=True))
        if collecting:
            gc.enable()
        with keys_handed_on():
            app.run()
    finally:
        if collecting:
            gc.enable()  # (again, had the app failed to open)
        if held is not None:
            held.restore()  # Textual put back the held mode it found; this is the user's
    return app.return_code or 0


def _asked_now(images: str) -> ImageSupport:
    """How images are drawn, the terminal asked now (stdin could not be held: not a
    terminal, so in fact not asked)."""
    from openwop_tui.devices.terminal import detect_image_mode

    return detect_image_mode(images, stdin=sys.stdin, stdout=sys.stdout, environ=os.environ)


if __name__ == "__main__":
    sys.exit(main())
