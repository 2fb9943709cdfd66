"""Where and how a command prints: the `Output` every printing command is given.

`display_output` reads a command's display flags (``--colors``, ``--width``, ``--no-audio``,
``--json``) into an `Output`: its console (`make_console`, plain when stdout is not a terminal
or ``NO_COLOR`` is set), the render context its items are drawn with, and its `Sink` (the
`TranscriptPrinter`, or `JsonLines` with ``--json``). The renderers are loaded once per process
(`renderer_registry`), as the app loads them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, TextIO

from rich.console import Console

from openwop_tui.cli.ndjson import JsonLines
from openwop_tui.cli.printer import TranscriptPrinter
from openwop_tui.config import Config
from openwop_tui.core.conversation import Conversation
from openwop_tui.core.updates import Update
from openwop_tui.devices import desktop as actions
from openwop_tui.devices.printed_images import for_printing, graphics_console_options
from openwop_tui.renderers import Registry
from openwop_tui.renderers.base import AudioSupport, RenderContext
from openwop_tui.store.saving import SaveBudget
from openwop_tui.text.redact import Redactor

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

    Args:
        file: Where it prints (default stdout).
        colors: ``--colors``: forces a colour system whatever the output is (a file, a pipe),
            as asked for: the degradation lab's colours outside the app.
        width: Columns to print (``--width``).
        images: ``--images``: forced to ``kitty`` or ``sixel``, it makes the console pass
            their sequences to any output.
    """
    out = file or sys.stdout
    graphics = graphics_console_options(images)
    if colors is not None:
        return Console(
            file=_trimmed(out) if colors == "none" and not graphics else out,
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
    options.update(graphics)
    target = _trimmed(out) if plain and not graphics else out
    return Console(
        file=target, highlight=False, emoji=False, soft_wrap=False, width=width, **options
    )


def _trimmed(out: TextIO) -> TextIO:
    """``out`` without the padding at the end of each line (no colour: it paints nothing).
    Kitty and sixel images are never given it (their sequences are not text)."""
    from openwop_tui.cli.trimmed import TrimmedLines

    return TrimmedLines(out)  # type: ignore[return-value]


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


def display_output(
    args: argparse.Namespace,
    config: Config,
    save_media: Path | None = None,
    *,
    saves_overflow: bool = True,
) -> Output:
    """The `Output` of a printing command, with its display flags (the one reading of
    ``--colors``, ``--width``, ``--no-audio`` and ``--json``, for every command that prints).

    Args:
        args: The parsed command line.
        config: The settings the command runs with.
        save_media: ``--save-media``: where media bytes are written.
        saves_overflow: Whether cut replies are written to the download folder unasked (not
            for ``render`` and ``replay``, which write only into ``--save-media``).
    """
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


def not_json(args: argparse.Namespace) -> dict[str, Any]:
    """``args`` but ``json``: a command whose ``--json`` prints to stdout itself (not NDJSON
    of events) draws on stdout."""
    return {key: value for key, value in vars(args).items() if key != "json"}


def json_without_media(args: argparse.Namespace) -> bool:
    """``--json`` with ``--save-media``: a usage error, said (``--json`` draws nothing)."""
    if getattr(args, "json", False) and getattr(args, "save_media", None) is not None:
        print(
            "openwop-tui: --save-media saves what the transcript draws; with --json nothing is "
            "drawn (the events carry the media references): give one of them",
            file=sys.stderr,
        )
        return True
    return False
