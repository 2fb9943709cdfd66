"""Following a run: ``run WORKFLOW`` creates one, ``attach RUN_ID`` joins one, and the printed
chat (`openwop_tui.cli.chat`) sends each line of stdin as a message.

Each streams the run through a live `Conversation` (the one pipeline the app uses) and prints
it as it comes, with the same renderers as the app (or as NDJSON with ``--json``), answering
what the run asks (`openwop_tui.cli.answering`). Every failure is one clear line on stderr and
an exit code (`openwop_tui.cli.exits`): 0 run completed, 1 run failed or was cancelled, 2 usage
or connection error, 3 the host refused, 130 Ctrl-C (`openwop_tui.cli.interrupts`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text

from openwop_tui.cli.answering import AnswerFlags, Asker, FlagError, HowTo
from openwop_tui.cli.attaching import read_attachments
from openwop_tui.cli.exits import EXIT_OK, EXIT_REFUSED, EXIT_RUN_FAILED, EXIT_USAGE
from openwop_tui.cli.host import exit_for, on_host
from openwop_tui.cli.interrupts import Interrupts, cancel_interrupted, sigint_to
from openwop_tui.cli.ndjson import JsonLines
from openwop_tui.cli.output import Output, Sink, display_output, json_without_media
from openwop_tui.config import Config
from openwop_tui.core.attachments import Attachment, AttachmentError
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.sending import unreadable
from openwop_tui.core.session import Session
from openwop_tui.core.updates import RunStarted, Update
from openwop_tui.devices.audio import probe
from openwop_tui.protocol.catalog import workflow_reads
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.renderers.base import AudioSupport
from openwop_tui.store.record import Recorder
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean_own

#: ``run --idle-timeout`` by default: how long a run's stream may bring no bytes at all.
DEFAULT_IDLE_TIMEOUT = 300.0


def follow_command(args: argparse.Namespace, config: Config) -> int:
    """``run`` and ``attach`` as parsed."""
    try:
        flags = AnswerFlags.parse(
            args.answer, approve=args.approve, reject=args.reject, feedback=args.feedback
        )
    except FlagError as error:
        print(f"openwop-tui: {error}", file=sys.stderr)
        return EXIT_USAGE
    if json_without_media(args):
        return EXIT_USAGE
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
    if args.attach:
        if args.input is not None:
            print(
                "openwop-tui: --attach sends a chat message (inputs.messages); it cannot be "
                "given with --input",
                file=sys.stderr,
            )
            return EXIT_USAGE
        try:
            attachments = read_attachments(args.attach, args.attach_type)
        except AttachmentError as error:
            print(f"openwop-tui: {error}", file=sys.stderr)
            return EXIT_USAGE
        follow = Follow(
            args.workflow,
            flags=flags,
            interactive=interactive,
            message=args.message or "",
            attachments=attachments,
        )
        return follow_run(follow, output, idle_timeout=args.idle_timeout, record=common["record"])
    return run_workflow(args.workflow, output, message=args.message, inputs=args.input, **common)


@dataclass(frozen=True, slots=True)
class Follow:
    """What ``run`` or ``attach`` follows: a new run of ``workflow`` with ``inputs``, or the
    existing run ``attach`` from sequence ``from_seq``; and how it answers what the run asks."""

    workflow: str = ""
    inputs: Mapping[str, Any] | None = None
    attach: str | None = None
    from_seq: int | None = None
    flags: AnswerFlags | None = None
    interactive: bool = False
    """Whether to ask at a prompt (stdin and stdout are terminals)."""
    chat: bool = False
    """The app's chat, printed: each line of stdin a message to ``workflow``."""
    message: str | None = None
    """A message sent as a chat turn with `attachments` (``run --attach``), not as ``inputs``."""
    attachments: tuple[Attachment, ...] = ()


def run_workflow(
    workflow: str,
    output: Output,
    *,
    message: str | None,
    inputs: str | None,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    record: Path | None = None,
    flags: AnswerFlags | None = None,
    interactive: bool = False,
) -> int:
    """Create a run, stream it, print the transcript; the exit code tells how it ended.

    Args:
        workflow: The id of the workflow to run.
        output: Where and how the transcript is printed.
        message: ``--message``: a user message, sent as ``inputs.messages``.
        inputs: ``--input``: the run's inputs, a JSON object as typed.
        idle_timeout: Seconds the stream may bring no bytes before the run is checked
            (`subscribe`); ``None`` or 0: wait as long as the host keeps the stream open.
        record: Where to write the raw stream as it arrives
            (`openwop_tui.store.record.Recorder`).
        flags: What answers what the run asks.
        interactive: Without flags that fit, whether to ask at a prompt; else the question
            and how to answer it are printed (`openwop_tui.cli.answering`).
    """
    try:
        parsed: Any = json.loads(inputs) if inputs else {}
    except json.JSONDecodeError as error:
        print(f"openwop-tui: --input is not valid JSON: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(parsed, Mapping):
        print("openwop-tui: --input must be a JSON object", file=sys.stderr)
        return EXIT_USAGE
    run_inputs = dict(parsed)
    if message is not None:
        run_inputs["messages"] = [{"role": "user", "content": message}]
    follow = Follow(workflow, run_inputs, flags=flags, interactive=interactive)
    return follow_run(follow, output, idle_timeout=idle_timeout, record=record)


def attach_run(
    run_id: str,
    output: Output,
    *,
    from_seq: int | None = None,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    record: Path | None = None,
    flags: AnswerFlags | None = None,
    interactive: bool = False,
) -> int:
    """Print an existing run's history and follow it live to its end (``attach``); exit codes
    as `run_workflow`. Ctrl-C detaches: the run goes on on the host.

    Args:
        run_id: The run to attach to.
        output: Where and how the transcript is printed.
        from_seq: ``--from``: the event sequence to start at (default: the whole history).
        idle_timeout: As for `run_workflow`.
        record: As for `run_workflow`.
        flags: As for `run_workflow`.
        interactive: As for `run_workflow`.
    """
    follow = Follow(attach=run_id, from_seq=from_seq, flags=flags, interactive=interactive)
    return follow_run(follow, output, idle_timeout=idle_timeout, record=record)


def follow_run(
    follow: Follow,
    output: Output,
    *,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    record: Path | None = None,
) -> int:
    """Run or attach as ``follow`` says, on the configured host (or the embedded one).

    Args:
        follow: The run to start or attach to, and how to answer it.
        output: Where and how the transcript is printed.
        idle_timeout: As for `run_workflow`.
        record: As for `run_workflow`.
    """
    config = output.config
    audio = probe() if config.audio else AudioSupport(False, "audio is off (--no-audio)")
    interrupts = Interrupts()
    recorder: Recorder | None = None
    if record is not None:
        try:
            recorder = Recorder(record, secrets=[config.api_key])
        except OSError as error:
            print(
                f"openwop-tui: cannot record to {record}: {error.strerror or error}",
                file=sys.stderr,
            )
            return EXIT_USAGE

    async def work(url: str, key: str | None) -> int:
        if recorder is not None:
            recorder.add_secrets(key)
        stream = _Stream(url, key, output, audio, idle_timeout or None, recorder)
        return await _run(follow, stream, interrupts)

    try:
        return on_host(config, work)
    except KeyboardInterrupt:
        # Ctrl-C while no run was streaming (starting up, or stopping the embedded host).
        return interrupts.report("interrupted")
    finally:
        if recorder is not None:
            recorder.close()


@dataclass(frozen=True, slots=True)
class _Stream:
    """Where a followed run lives and how it is printed."""

    url: str
    key: str | None
    output: Output
    audio: AudioSupport
    idle_timeout: float | None
    recorder: Recorder | None


async def _run(follow: Follow, stream: _Stream, interrupts: Interrupts) -> int:
    output = stream.output
    started = _Started()
    try:
        async with HostClient(stream.url, stream.key) as client:
            session = Session(
                client,
                workflow_id=follow.workflow,
                max_asset_bytes=output.config.max_asset_bytes,
                stream_modes=output.config.stream_modes,
                idle_timeout=stream.idle_timeout,
                reconnect_budget=output.config.reconnect_minutes * 60,
            )
            conversation = Conversation(
                session,
                limits=output.config.limits,
                logs=[stream.recorder] if stream.recorder is not None else [],
                secrets=client.secrets,
            )
            printer = output.sink(audio=stream.audio, conversation=conversation)
            if isinstance(printer, JsonLines):
                conversation.logs.append(printer)  # the run, end and notice lines
            asker = Asker(
                conversation,
                follow.flags or AnswerFlags(),
                output.console,
                interactive=follow.interactive,
                howto=_howto(client, stream.key),
                # Flags that cannot answer the run's question stop the command at once.
                on_refused=lambda: streaming.cancel(),
            )
            streaming = asyncio.ensure_future(
                _stream_run(conversation, follow, printer, asker, started)
            )
            interrupts.task = streaming
            with sigint_to(interrupts):
                try:
                    await streaming
                except asyncio.CancelledError:
                    if not interrupts.pressed and asker.refused is None:
                        raise
                finally:
                    await asker.close()
                    await printer.feed(conversation.settle())
                    await printer.flush()
                if asker.refused is not None and not interrupts.pressed:
                    return EXIT_USAGE  # the reason and how to answer are printed
                if interrupts.pressed:
                    if follow.attach is not None:
                        shown = clean_own(follow.attach)  # the user's (attach RUN)
                        return interrupts.report(
                            f"detached from run {shown}; it goes on on the host "
                            "(Ctrl-C on attach does not cancel the run)"
                        )
                    return interrupts.report(await cancel_interrupted(client, started.run_id))
    except HostError as error:
        print(f"openwop-tui: {error.message}", file=sys.stderr)
        return exit_for(error)
    except AttachmentError as error:  # (refused before anything was sent)
        print(f"openwop-tui: {error}", file=sys.stderr)
        return EXIT_REFUSED
    status = conversation.transcript.status
    if status == "completed" or (follow.chat and status is None):
        return EXIT_OK  # a printed chat with no message sent nothing
    if status is None or status in ("running", "waiting"):
        print("openwop-tui: the stream ended before the run did", file=sys.stderr)
    return EXIT_RUN_FAILED


def _howto(client: HostClient, key: str | None) -> HowTo:
    """Where the how-to text sends an answer: this host's routes, shown without credentials."""

    return HowTo(
        host=display_url(client.base_url),
        interrupt_url=lambda run_id, node_id: display_url(client.interrupt_url(run_id, node_id)),
        token_url=lambda token: display_url(client.token_url(token)),
        keyed=key is not None,
    )


@dataclass(slots=True)
class _Started:
    """The run the host created, once it said so (what Ctrl-C cancels)."""

    run_id: str | None = None


async def _stream_run(
    conversation: Conversation,
    follow: Follow,
    printer: Sink,
    asker: Asker,
    started: _Started,
) -> None:
    """Connect, start (or attach to) the run and print it as it streams (raises `HostError`).

    Args:
        conversation: The live conversation the run streams through.
        follow: The run to start or attach to.
        printer: Where its updates go.
        asker: What answers what the run asks.
        started: Set to the run's id once the host created it.
    """
    console = printer.console
    discovery = await conversation.connect()
    client = conversation.session.client if conversation.session is not None else None
    # The discovery document went through `host_value`; the host's URL is the user's own.
    name = discovery.implementation_name or "OpenWOP host"
    version = discovery.protocol_version or "?"
    host = clean_own(display_url(client.base_url)) if client is not None else "?"
    # Soft-wrapped: a header is one line whatever the width, so a pipe reads it whole.
    header = Text(f"{name} at {host} · protocol {version}", style="dim")
    console.print(header, soft_wrap=True)
    if follow.chat:
        await _chat(conversation, printer, asker, started, interactive=follow.interactive)
        return
    if follow.attach is not None:
        updates = conversation.attach(follow.attach, follow.from_seq)
    elif follow.message is not None:
        reads = await workflow_reads(client, follow.workflow) if client is not None else None
        capabilities = reads if reads is not None else discovery.model_capabilities
        for sentence in unreadable(follow.attachments, capabilities):
            console.print(Text(f"warning: {sentence}", style="yellow"), soft_wrap=True)
        updates = conversation.send(follow.message, follow.attachments)
    else:
        updates = conversation.start(follow.inputs or {})
    await _show(updates, printer, asker, started)


async def _chat(
    conversation: Conversation,
    printer: Sink,
    asker: Asker,
    started: _Started,
    *,
    interactive: bool,
) -> None:
    """The app's chat, printed: each line on stdin is a message, sent with the conversation so
    far (`Conversation.send`) and its run printed, until the end of stdin.

    Args:
        conversation: The live conversation each message is sent through.
        printer: Where each run's updates go.
        asker: What answers what a run asks.
        started: Set to each run's id once the host created it.
        interactive: Whether to prompt (``you>``) for each line.
    """
    console = printer.console
    while True:
        if interactive:
            console.print(Text("you> ", style="bold"), end="")
            console.file.flush()
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            return
        if line.strip():
            await _show(conversation.send(line.rstrip("\n")), printer, asker, started)


async def _show(
    updates: AsyncIterator[Update], printer: Sink, asker: Asker, started: _Started
) -> None:
    """Print a run's updates as they come, answering what it asks.

    Args:
        updates: The run's updates, as the conversation folds them.
        printer: Where they go.
        asker: What answers what the run asks.
        started: Set to the run's id once the host created it.
    """
    console = printer.console
    async for update in updates:
        if isinstance(update, RunStarted):
            started.run_id = update.run_id
            # The user's (--workflow, attach RUN) or the host's answer (cleaned).
            what = f" · {clean_own(update.workflow)}" if update.workflow else ""
            run = clean_own(update.run_id)
            console.print(Text(f"run {run}{what}", style="dim"), soft_wrap=True)
            console.file.flush()  # a reader of a pipe (or a test) learns the run id now
        else:
            await asker.landed()
            await printer.feed([update])
            await asker.handle(update)
            console.file.flush()
