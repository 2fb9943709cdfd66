"""Pieces of the argument parser that several commands share (`openwop_tui.cli.parser`).

The flags more than one parser takes (``--record``, ``--json``, the answering flags of ``run``
and ``attach``) and the argparse value types (`seconds`, `port`, `sequence`), each with the
one message a bad value gets. Only argparse here: ``--help`` imports this module and must stay
light (tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def record_flag(parser: argparse.ArgumentParser) -> None:
    """``--record`` (the app, ``run`` and ``attach``): suppressed when absent, so the main
    parser's is not undone by a command's."""
    parser.add_argument(
        "--record",
        metavar="FILE.sse",
        type=Path,
        default=argparse.SUPPRESS,
        help="write the raw event stream to FILE.sse as it arrives (render or replay it later)",
    )


def json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the normalised events as NDJSON (one JSON object a line, the shape of "
        "`export --format jsonl`; see the README) instead of the transcript; nothing else on "
        "stdout",
    )


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value}: give a port from 1 to 65535 (0: a free one)")
    return value


def answer_flags(parser: argparse.ArgumentParser) -> None:
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


def sequence(text: str) -> int:
    """An event sequence number, 0 or more (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a sequence number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more")
    return value


def seconds(text: str) -> float:
    """A number of seconds, 0 or more (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 or more seconds")
    return value
