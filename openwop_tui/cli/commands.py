"""The non-interactive commands: ``render`` a recorded stream, ``run`` a workflow and print it.

Both are consumers of the one conversation pipeline (`openwop_tui.core.conversation`): ``run`` sends
through a live `Conversation`, ``render`` and ``replay`` fold a recording through an offline one.
Both print with the same renderers as the app, in colour on a terminal and as plain text when
stdout is not one or ``NO_COLOR`` is set. Every failure is one clear line on stderr and an exit
code: 0 run completed, 1 run failed or was cancelled, 2 usage or connection error, 130 Ctrl-C.

Ctrl-C during ``run`` stops the stream and cancels the run on the host (waiting at most
`CANCEL_WAIT_SECONDS`), prints one line saying which run was cancelled or why it could not be,
and exits 130; a second Ctrl-C exits 130 at once, without waiting for anything.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TextIO

from rich.console import Console
from rich.text import Text

from openwop_tui.cli.answering import AnswerFlags, Asker, HowTo
from openwop_tui.cli.ndjson import JsonLines, replay_lines
from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation, RunStarted, Update
from openwop_tui.core.session import Session
from openwop_tui.devices import desktop as actions
from openwop_tui.devices.audio import probe
from openwop_tui.devices.terminal import for_printing, graphics_console_options
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import AudioSupport, RenderContext
from openwop_tui.store.record import Recorder, RecordingReader, read_recording
from openwop_tui.store.records import Entry
from openwop_tui.store.saving import SaveBudget
from openwop_tui.text.redact import Redactor, display_url
from openwop_tui.text.sanitize import clean, clean_own, one_line

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE = 0, 1, 2
#: The host answered and refused the request (a 4xx other than 401/403): see `exit_for`.
EXIT_REFUSED = 3
#: The exit status after Ctrl-C: 128 + SIGINT, as a shell reports a command it interrupted.
EXIT_INTERRUPTED = 130
#: How long the cancel sent after Ctrl-C may take before the command stops waiting for it.
CANCEL_WAIT_SECONDS = 5.0
#: ``run --idle-timeout`` by default: how long a run's stream may bring no bytes at all.
DEFAULT_IDLE_TIMEOUT = 300.0


#: ``--colors`` as a Rich colour system (``none`` keeps bold and italic: styles, no colour).
COLOR_SYSTEMS: dict[str, Literal["truecolor", "256", "standard"]] = {
    "truecolor": "truecolor",
    "256": "256",
    "16": "standard",
    "none": "standard",
}


def make_console(
    file: TextIO | None = None,
    *,
    colors: str | None = None,
    width: int | None = None,
    images: str = "auto",
) -> Console:
    """A console that is plain when the output is not a terminal or ``NO_COLOR`` is set.

    ``colors`` (``--colors``) forces a colour system whatever the output is (a file, a pipe),
    as asked for: the degradation lab's colours outside the app. ``width``: columns to print.
    ``images`` forced to ``kitty`` or ``sixel`` makes it pass their sequences to any output.
    """
    out = file or sys.stdout
    if colors is not None:
        return Console(
            file=out,
            no_color=colors == "none",
            highlight=False,
            emoji=False,
            soft_wrap=False,
            color_system=COLOR_SYSTEMS[colors],
            force_terminal=True,
            width=width,
        )
    plain = not out.isatty() or bool(os.environ.get("NO_COLOR"))
    options: dict[str, Any] = {"no_color": plain, "color_system": None if plain else "auto"}
    options.update(graphics_console_options(images))
    return Console(file=out, highlight=False, emoji=False, soft_wrap=False, width=width, **options)


_registries: dict[tuple[str, ...], Registry] = {}


def renderer_registry(config: Config) -> Registry:
    """The renderers a command draws with, loaded once per process (plugins included, with the
    config's overrides); what the plugins did is printed on stderr, one line each, once."""
    registry = _registries.get(config.renderer_override)
    if registry is None:
        registry = _registries[config.renderer_override] = Registry(
            override=config.renderer_override
        ).load()
        for notice in registry.notices:
            print(f"openwop-tui: {notice}", file=sys.stderr)
    return registry


class Sink(Protocol):
    """What takes a followed run's updates: the `TranscriptPrinter`, or `JsonLines`."""

    @property
    def console(self) -> Console:
        """Where the command's own lines (header, run id) go."""
        ...

    async def feed(self, changes: Iterable[Update], /) -> None: ...

    async def flush(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Output:
    """Where and how a command prints."""

    config: Config
    console: Console
    save_dir: Path | None = None
    """``--save-media``: where media bytes are written, so a saved path can be shown."""
    audio_off: bool = False
    """``--no-audio``: sound is described as if this machine could not play it."""
    audio_off_reason: str = "audio is switched off (--no-audio)"
    """What a printed sound item says about it then."""
    colors: str | None = None
    """``--colors``, when given."""
    saves_overflow: bool = True
    """Whether the full text of cut items is written to the download folder unasked (``run``,
    ``attach``); ``render`` and ``replay`` write it only into ``--save-media``."""
    as_json: bool = False
    """``--json``: the events as NDJSON on stdout (`openwop_tui.cli.ndjson`), ``console``
    (stderr) only for what a person reads."""

    def sink(self, *, audio: AudioSupport, conversation: Conversation | None = None) -> Sink:
        """Where a command's updates go: NDJSON lines with ``--json``, else the printer."""
        if self.as_json:
            return JsonLines(sys.stdout, self.console, Redactor([self.config.api_key]))
        return self.printer(audio=audio, conversation=conversation)

    def printer(
        self, *, audio: AudioSupport, conversation: Conversation | None = None
    ) -> TranscriptPrinter:
        """A transcript printer for this output."""
        return TranscriptPrinter(
            self.console,
            self.context(audio),
            conversation=conversation,
            save_dir=self.save_dir,
            overflow_dir=self.save_dir
            or (actions.download_dir(self.config.download_dir) if self.saves_overflow else None),
            budget=SaveBudget(self.config.max_saved_bytes),
            redact=Redactor([self.config.api_key]),
            registry=renderer_registry(self.config),
        )

    def context(self, audio: AudioSupport) -> RenderContext:
        """The render context for printing: kitty or sixel when forced or when the terminal
        speaks it, half-blocks where colours can show them, else none."""
        support = for_printing(
            self.config.images,
            stdin=sys.stdin,
            stdout=self.console.file,
            environ=os.environ,
            colour=self.console.color_system is not None,
            colours=self.console.color_system,
        )
        off_reason = "image display is off (--images none)"
        mode = support.mode
        if self.config.images == "auto":
            off_reason = support.reason
        if self.colors == "none" and mode in ("halfblock", "kitty"):
            # Half-block cells and kitty's image ids are colours: with none, describe instead.
            mode = "none"
            off_reason = "the output has no colours (--colors none), and these pixels are colours"
        if self.audio_off:
            audio = AudioSupport(False, self.audio_off_reason)
        return RenderContext(
            width=self.console.width,
            images=mode,
            graphics=support.graphics(),
            audio=audio,
            images_off_reason=off_reason,
            save_hint="saved below" if self.save_dir else "pass --save-media DIR to save it",
        )


def render_file(path: str, output: Output) -> int:
    """Print the transcript of a recorded ``.sse`` file; ``-`` reads stdin as it arrives and
    prints each item once it is settled, so ``… | openwop-tui render -`` follows a live stream.
    An input with no SSE events in it is `EXIT_USAGE`, with the reason (`not_sse`)."""
    if path == "-":
        try:
            return asyncio.run(_render_stream(sys.stdin, output))
        except BrokenPipeError:
            raise  # the reader of stdout left: `openwop_tui.__main__.main` ends quietly
        except OSError as error:
            print(f"openwop-tui: cannot read stdin: {error.strerror or error}", file=sys.stderr)
            return EXIT_USAGE
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as error:
        print(f"openwop-tui: cannot read {path}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    return print_recording(path, text, output)


def print_recording(name: str, text: str, output: Output) -> int:
    """Print (or with ``--json`` write as NDJSON) a recording's ``text`` read from ``name``."""
    recording = read_recording(text)
    if not has_events(recording.entries):
        print(f"openwop-tui: {not_sse(name, text)}", file=sys.stderr)
        return EXIT_USAGE
    conversation = _offline(output, capture=not recording.marked)
    if output.as_json:
        replay_lines(recording.entries, conversation, _json_sink(output))
        return EXIT_OK
    printer = output.printer(audio=_PRINTED_AUDIO, conversation=conversation)
    return asyncio.run(print_entries(recording.entries, conversation, printer))


def _json_sink(output: Output) -> JsonLines:
    sink = output.sink(audio=_PRINTED_AUDIO)
    assert isinstance(sink, JsonLines)
    return sink


def has_events(entries: Iterable[Entry]) -> bool:
    """Whether a read recording holds any SSE frame (an event, even a malformed one)."""
    return any(entry.kind == "frame" for entry in entries)


def not_sse(name: str, text: str) -> str:
    """Why ``text`` (read from ``name``, ``-`` for stdin) cannot be rendered: it holds no SSE
    event. Names its first line, cleaned and cut, and what it looks like instead."""
    shown = "stdin" if name == "-" else name
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            first = clean(line.strip())  # a boundary: a line of a file that is not SSE
            cut = first if len(first) <= 60 else first[:59] + "…"
            hint = ""
            if first.startswith(("{", "[")):
                hint = "; it looks like JSON (render reads .sse recordings, not JSONL exports)"
            elif first.startswith("<"):
                hint = "; it looks like HTML or XML"
            return (
                f"{shown} holds no SSE events (line {number} is {cut!r}{hint}); an event "
                "stream has 'event: …' and 'data: {…}' lines, as --record or curl -N writes"
            )
    return f"{shown} is empty: it holds no SSE events to show"


#: Sound in a printed transcript: described, never played.
_PRINTED_AUDIO = AudioSupport(False, "this is a printed transcript; play it in the app")


def _offline(output: Output, *, capture: bool) -> Conversation:
    # A recording may hold the key a host echoed back: mask the configured one, if any.
    return Conversation(
        limits=output.config.limits, secrets=secrets_of(output.config.api_key), capture=capture
    )


async def _pieces(stream: TextIO) -> AsyncIterator[str]:
    """``stream``'s text as it arrives: whatever a pipe holds (not a whole buffer's worth),
    else line by line; decoded as UTF-8 with replacement."""
    binary = getattr(stream, "buffer", None)
    read1 = getattr(binary, "read1", None)
    if read1 is None:
        while line := await asyncio.to_thread(stream.readline):
            yield line
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while data := await asyncio.to_thread(read1, 65536):
        yield decoder.decode(data)
    yield decoder.decode(b"", final=True)


#: How much of stdin ``render -`` keeps to say why it is not SSE, when it is not.
_HEAD_CHARS = 4096


async def _render_stream(stream: TextIO, output: Output) -> int:
    """``render -``: fold and print (or write as NDJSON) stdin a piece at a time."""
    reader = RecordingReader()
    conversation: Conversation | None = None
    sink: Sink | None = None
    frames = False
    held: list[Entry] = []
    head = ""

    async def show(entries: list[Entry]) -> None:
        nonlocal conversation, sink, frames
        held.extend(entries)
        if conversation is None:
            if not reader.begun:
                return  # whether it is a recording is known from its first line
            conversation = _offline(output, capture=not reader.marked)
            sink = output.sink(audio=_PRINTED_AUDIO, conversation=conversation)
        assert sink is not None
        for entry in held:
            frames = frames or entry.kind == "frame"
            if isinstance(sink, JsonLines):
                replay_lines([entry], conversation, sink, finish=False)
            else:
                await sink.feed(conversation.replay(entry))
        held.clear()
        output.console.file.flush()  # a reader at the other end sees each item as it settles

    async for piece in _pieces(stream):
        if len(head) < _HEAD_CHARS:
            head += piece[: _HEAD_CHARS - len(head)]
        await show(reader.feed(piece))
    await show(reader.close())
    if conversation is None or sink is None or not frames:
        if sink is not None:
            await sink.flush()
        print(f"openwop-tui: {not_sse('-', head)}", file=sys.stderr)
        return EXIT_USAGE
    if isinstance(sink, JsonLines):
        replay_lines([], conversation, sink)
    else:
        await sink.feed(conversation.finish_replay())
        await sink.flush()
    return EXIT_OK


async def print_entries(
    entries: list[Entry], conversation: Conversation, printer: TranscriptPrinter
) -> int:
    """Fold a log (a recording, a stored session) through ``conversation`` and print it."""
    for entry in entries:
        await printer.feed(conversation.replay(entry))
    if not any(entry.kind == "frame" for entry in entries):
        await printer.feed(
            [conversation.transcript.add_notice("warning", clean_own("no SSE frames in the input"))]
        )
    await printer.feed(conversation.finish_replay())
    await printer.flush()
    return EXIT_OK


@contextlib.contextmanager
def host_for(config: Config) -> Iterator[tuple[str, str | None]]:
    """The configured host, or the embedded demo host for as long as the block runs."""
    if config.host is not None:
        yield config.host, config.api_key
        return
    from openwop_tui.demo_host import DemoHost  # only needed without --host

    with DemoHost(pace=config.demo_pace) as demo:
        yield demo.url, demo.api_key


class _Interrupts:
    """Ctrl-C while ``run`` streams: the first stops the stream (the run is then cancelled on
    the host), a second exits at once."""

    def __init__(self) -> None:
        self.pressed = False
        self.reported = False
        """Whether the one line about the interrupt has been printed."""
        self.task: asyncio.Future[None] | None = None

    def __call__(self) -> None:
        if self.pressed:
            # The user insists: no cancel, no cleanup, no waiting on anything.
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
            os._exit(EXIT_INTERRUPTED)
        self.pressed = True
        if self.task is not None:
            self.task.cancel()

    def report(self, line: str) -> int:
        """Print the one line (once) and give the exit status."""
        if not self.reported:
            self.reported = True
            print(f"openwop-tui: {line}", file=sys.stderr)
        return EXIT_INTERRUPTED


@contextlib.contextmanager
def _sigint_to(handler: _Interrupts) -> Iterator[None]:
    """Route SIGINT to ``handler`` on the running loop for as long as the block runs."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, handler)
    except (NotImplementedError, RuntimeError, ValueError):
        # No loop signal handlers here (Windows, or not the main thread): the default
        # KeyboardInterrupt still reaches run_workflow, which reports it.
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


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

    ``record``: write the raw stream there as it arrives (`openwop_tui.store.record.Recorder`).

    ``idle_timeout``: seconds the stream may bring no bytes before the run is checked
    (`subscribe`); ``None`` or 0: wait as long as the host keeps the stream open.

    ``flags`` answer what the run asks; without ones that fit, ``interactive`` asks at a
    prompt, else the question and how to answer it are printed (`openwop_tui.cli.answering`).
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
    as `run_workflow`. Ctrl-C detaches: the run goes on on the host."""
    follow = Follow(attach=run_id, from_seq=from_seq, flags=flags, interactive=interactive)
    return follow_run(follow, output, idle_timeout=idle_timeout, record=record)


def follow_run(
    follow: Follow,
    output: Output,
    *,
    idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
    record: Path | None = None,
) -> int:
    """Run or attach as ``follow`` says, on the configured host (or the embedded one)."""
    config = output.config
    audio = probe() if config.audio else AudioSupport(False, "audio is off (--no-audio)")
    interrupts = _Interrupts()
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
    try:
        with host_for(config) as (url, key):
            if recorder is not None:
                recorder.add_secrets(key)
            stream = _Stream(url, key, output, audio, idle_timeout or None, recorder)
            return asyncio.run(_run(follow, stream, interrupts))
    except BrokenPipeError:
        raise  # the reader of stdout left: `openwop_tui.__main__.main` ends quietly
    except OSError as error:
        print(f"openwop-tui: could not start the embedded demo host: {error}", file=sys.stderr)
        return EXIT_USAGE
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


def exit_for(error: HostError) -> int:
    """The exit status for a `HostError`: `EXIT_REFUSED` when the host answered and said no
    (a 4xx other than 401/403: an unknown workflow or run, inputs it rejects, a conflict),
    `EXIT_USAGE` when it could not be reached, did not accept the credentials, failed (5xx)
    or sent something unusable."""
    status = error.status
    if status is not None and 400 <= status < 500 and status not in (401, 403, 407):
        return EXIT_REFUSED
    return EXIT_USAGE


async def _run(follow: Follow, stream: _Stream, interrupts: _Interrupts) -> int:
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
            with _sigint_to(interrupts):
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
                    return interrupts.report(await _cancel_interrupted(client, started.run_id))
    except HostError as error:
        print(f"openwop-tui: {error.message}", file=sys.stderr)
        return exit_for(error)
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


async def _cancel_interrupted(client: HostClient, run_id: str | None) -> str:
    """Cancel the interrupted run on the host (bounded wait); the line that says how it went."""
    if run_id is None:
        return "interrupted before the host confirmed a run; nothing was cancelled"
    shown = clean_own(run_id)  # the user's (attach RUN) or the host's answer (cleaned)
    try:
        await asyncio.wait_for(
            client.cancel_run(run_id, reason="interrupted (Ctrl-C) in openwop-tui run"),
            CANCEL_WAIT_SECONDS,
        )
    except TimeoutError:
        return (
            f"interrupted; the host did not answer the cancel of run {shown} within "
            f"{CANCEL_WAIT_SECONDS:g} s: it may still be running"
        )
    except HostError as error:
        if error.status == 409:
            return f"interrupted; run {shown} had already ended on the host"
        return f"interrupted; could not cancel run {shown} on the host: {error.message}"
    return f"interrupted; cancelled run {shown} on the host"


async def _stream_run(
    conversation: Conversation,
    follow: Follow,
    printer: Sink,
    asker: Asker,
    started: _Started,
) -> None:
    """Connect, start (or attach to) the run and print it as it streams (raises `HostError`)."""
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
    far (`Conversation.send`) and its run printed, until the end of stdin."""
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
    """Print a run's updates as they come, answering what it asks."""
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


def list_workflows(output: Output, *, as_json: bool = False) -> int:
    """``workflows``: what the host offers, one workflow a line (or JSON); exit codes as ``run``."""
    try:
        with host_for(output.config) as (url, key):
            return asyncio.run(_list_workflows(url, key, output, as_json))
    except BrokenPipeError:
        raise  # the reader of stdout left: `openwop_tui.__main__.main` ends quietly
    except OSError as error:
        print(f"openwop-tui: could not start the embedded demo host: {error}", file=sys.stderr)
        return EXIT_USAGE


async def _list_workflows(url: str, key: str | None, output: Output, as_json: bool) -> int:
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
