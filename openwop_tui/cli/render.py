"""Printing a recorded stream: ``render FILE.sse`` (``-``: stdin, printed as it arrives).

A recording is folded through an offline `Conversation` (the pipeline the app folds a live run
through) and printed with the same renderers as the app, or written as NDJSON with ``--json``
(`openwop_tui.cli.ndjson`). `print_recording` and `print_entries` are what ``replay`` (printed)
and the stored sessions print with too; `has_events` and `not_sse` say whether an input is a
recording at all, and why not (`unplayable`, for ``replay`` through the app).
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import sys
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import TextIO

from openwop_tui.cli.exits import EXIT_OK, EXIT_USAGE
from openwop_tui.cli.ndjson import JsonLines, replay_lines
from openwop_tui.cli.output import Output, Sink, display_output, json_without_media
from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.renderers.base import AudioSupport
from openwop_tui.store.record import RecordingReader, read_recording
from openwop_tui.store.records import Entry
from openwop_tui.text.sanitize import clean, clean_own


def render_command(args: argparse.Namespace, config: Config) -> int:
    """``render`` as parsed: ``--json`` with ``--save-media`` is a usage error."""
    if json_without_media(args):
        return EXIT_USAGE
    output = display_output(args, config, args.save_media, saves_overflow=False)
    return render_file(args.file, output)


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


def unplayable(path: str) -> str | None:
    """Why the recording at ``path`` cannot be played through the app (``replay``), if it
    cannot: it cannot be read, or it holds no SSE events (`not_sse`)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return f"cannot read {path}: {error.strerror or error}"
    if not has_events(read_recording(text).entries):
        return not_sse(path, text)
    return None
