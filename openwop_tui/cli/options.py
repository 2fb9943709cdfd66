"""The options every command shares, and options given on either side of the command's name.

`add_shared_options` adds one set of options, with one spelling each, to the main parser and
to every subcommand's parser: the settings (``--config``, ``--host``, ``--api-key``,
``--api-key-file``, ``--max-asset-bytes``, ``--demo-pace``) and how things are drawn
(``--images``, ``--markdown-images``, ``--no-audio``, ``--colors``, ``--width``). Their defaults
are `argparse.SUPPRESS`, so a value given before the command is not undone by the command's
parser, and a command reads them from the `Config` (or with ``getattr``).

`hoist` lets the options that belong to one command be written before its name too
(``openwop-tui --json runs`` is ``openwop-tui runs --json``): everything before the command's
name that the main parser does not know is moved after it, where the command's parser reads
it (or says, as usual, what it does not know).

Only argparse here: ``--help`` imports this module and must stay light (tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

#: ``--images`` choices (`openwop_tui.config.IMAGE_MODES`, checked equal by the tests).
IMAGE_CHOICES = ("auto", "kitty", "sixel", "halfblock", "none")

#: The title of the shared group in every command's ``--help``.
SHARED_TITLE = "shared options (before or after the command)"


def columns(text: str) -> int:
    """``--width``: a number of columns, 20 to 1000 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of columns") from None
    if not 20 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"{value} columns: give 20 to 1000")
    return value


def _audio_switch(text: str) -> bool:
    """The hidden ``--audio on|off`` (the old spelling of ``--no-audio``, kept for scripts)."""
    if text in ("on", "off"):
        return text == "on"
    raise argparse.ArgumentTypeError(f"{text!r} is not one of on, off")


def add_shared_options(parser: argparse.ArgumentParser) -> None:
    """Add the shared options to ``parser`` (the main one or a command's), in their group."""
    group = parser.add_argument_group(SHARED_TITLE)
    quiet = argparse.SUPPRESS
    group.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        default=quiet,
        help="TOML settings file (default: ~/.config/openwop-tui/config.toml)",
    )
    group.add_argument(
        "--host",
        metavar="URL",
        default=quiet,
        help="base URL of an OpenWOP host (default: the embedded demo host; env OPENWOP_BASE_URL)",
    )
    group.add_argument(
        "--api-key",
        metavar="KEY",
        default=quiet,
        help="Bearer key for the host (env OPENWOP_API_KEY); - reads it from stdin (a prompt "
        "on a terminal), so it is not on the command line",
    )
    group.add_argument(
        "--api-key-file",
        metavar="PATH",
        type=Path,
        default=quiet,
        help="read the Bearer key from the first line of PATH",
    )
    group.add_argument(
        "--images",
        choices=IMAGE_CHOICES,
        default=quiet,
        help="how to draw images: auto (ask the terminal; half-blocks when printing to a pipe), "
        "kitty, sixel, halfblock or none; kitty and sixel are drawn even to a pipe",
    )
    group.add_argument(
        "--markdown-images",
        action="store_true",
        default=quiet,
        help="fetch and show ![alt](https://…) images in replies (under the media policy); "
        "by default they stay text",
    )
    group.add_argument(
        "--no-audio",
        dest="audio",
        action="store_false",
        default=quiet,
        help="never play sound; printed transcripts describe it as if this machine could not",
    )
    # The old spelling (render and run had it), hidden: scripts may still say it.
    group.add_argument(
        "--audio", dest="audio", type=_audio_switch, default=quiet, help=argparse.SUPPRESS
    )
    group.add_argument(
        "--colors",
        choices=("truecolor", "256", "16", "none"),
        default=quiet,
        help="colours to print in, even into a file or a pipe: truecolor, 256, 16, or none "
        "(bold and italic only); default: the terminal's, none when not a terminal",
    )
    group.add_argument(
        "--width",
        type=columns,
        metavar="N",
        default=quiet,
        help="print N columns wide (default: the terminal's width)",
    )
    group.add_argument(
        "--max-asset-bytes",
        type=int,
        metavar="N",
        default=quiet,
        help="largest media download, in bytes (default 16 MB)",
    )
    group.add_argument(
        "--demo-pace",
        type=float,
        metavar="F",
        default=quiet,
        help="speed of the embedded demo host: 1 types like a model (default), 0 at once",
    )


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def hoist(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``argv`` with the options before the command's name that ``parser`` (the main parser)
    does not know moved after the name, for the command's parser to read. An argv with no
    command, or whose first word is not one, is given back as it is."""
    args = list(argv)
    commands = _commands(parser)
    known = parser._option_string_actions
    # Whether an option only commands know takes a value: whether any command's does.
    foreign: dict[str, bool] = {}
    for command in commands.values():
        for option, action in command._option_string_actions.items():
            foreign[option] = foreign.get(option, False) or _takes_value(action)
    moved: list[str] = []
    kept: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            return args
        if word in commands:
            if not moved:
                return args
            return [*kept, word, *moved, *args[index + 1 :]]
        if not word.startswith("-") or word == "-":
            return args  # a stray word: the main parser says what is wrong with it
        option, equals, _ = word.partition("=")
        mine = known.get(option)
        target = kept if mine is not None else moved
        target.append(word)
        takes = _takes_value(mine) if mine is not None else foreign.get(option, False)
        if takes and not equals and index + 1 < len(args):
            index += 1
            target.append(args[index])
        index += 1
    return args
