"""Usage errors in two lines, with a "did you mean" where a close match exists.

argparse answers a mistyped word with the whole usage block (ten lines for the main parser)
and then the error, and on Python before 3.14 with no suggestion; an unknown ``--option``
typed before a command was even taken for the command itself (``--hots x``: "invalid choice:
'x'"). `UsageParser` is the parser class every parser of the program is made with (argparse
makes a command's parser of its parent's class): its error is what went wrong, the closest
known word when there is one (`difflib`, as Python 3.14's ``suggest_on_error`` does), and
where the help is::

    openwop-tui: error: unknown command 'sesions'; did you mean 'sessions'?
    see 'openwop-tui --help' (commands: demo-host, render, run, …)

`unknown_option` is checked before parsing: a ``--word`` that no parser of the program knows
(as typed, or as the start of one, which argparse accepts) is named as such, wherever it is.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

__all__ = ["UsageParser", "closest", "unknown_option"]

#: How alike a word must be to be offered (difflib's ratio; 0.6 is its default).
CUTOFF = 0.6


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word most like ``word``, if one is close enough."""
    found = difflib.get_close_matches(word, sorted(set(known)), n=1, cutoff=CUTOFF)
    return found[0] if found else None


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every command's parser below it."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict(action.choices).values():
                found.extend(_parsers(command))
    return found


def unknown_option(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The sentence for the first ``--option`` in ``argv`` that no parser of the program knows
    (nor starts), or ``None``. Words after ``--`` are not options; an option's value is not
    looked at (``--message --hi`` is a message)."""
    known: dict[str, argparse.Action] = {}
    for each in _parsers(parser):
        known.update(each._option_string_actions)
    longs = [option for option in known if option.startswith("--")]
    skip = False
    for word in argv:
        if skip:
            skip = False
            continue
        if word == "--":
            return None
        if not word.startswith("--") or word == "--":
            continue
        option, equals, _ = word.partition("=")
        action = known.get(option)
        if action is None:
            starts = [known for known in longs if known.startswith(option)]
            if len(starts) == 1:
                action = known[starts[0]]
        if action is None:
            near = closest(option, longs)
            hint = f"; did you mean {near!r}?" if near else ""
            return f"unknown option {option!r}{hint}"
        skip = action.nargs != 0 and not equals
    return None


class UsageParser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose usage errors are two lines and suggest the closest
    known word (see the module docstring)."""

    def error(self, message: str) -> NoReturn:
        """Say ``message`` and where the help is; exit 2 (a usage error)."""
        self.exit(2, f"{_program(self.prog)}: error: {message}\nsee '{self.prog} --help'\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value not among ``action``'s choices: the closest one offered, and for a command
        the commands listed."""
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        near = closest(str(value), names)
        hint = f"; did you mean {near!r}?" if near else ""
        if isinstance(action, argparse._SubParsersAction):
            raise argparse.ArgumentError(
                None, f"unknown command {value!r}{hint} (commands: {', '.join(names)})"
            )
        raise argparse.ArgumentError(action, f"{value!r} is not one of {', '.join(names)}{hint}")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's, but an unknown ``--option`` anywhere is said first, as one (only the
        program's own parser, which sees every word, checks)."""
        words = list(sys.argv[1:] if args is None else args)
        if " " not in self.prog:  # the program's parser, not a command's
            problem = unknown_option(self, words)
            if problem is not None:
                self._command_parser(words).error(problem)
        return super().parse_known_args(words, namespace)

    def _command_parser(self, words: Sequence[str]) -> argparse.ArgumentParser:
        """The parser of the command ``words`` name (whose help is the one to read), or this
        one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word in words:
                    command = action.choices.get(word)
                    if isinstance(command, argparse.ArgumentParser):
                        return command
        return self


def _program(prog: str) -> str:
    """The program's own name (``openwop-tui``), for the error's prefix."""
    return prog.split(" ", 1)[0]
