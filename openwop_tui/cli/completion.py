"""Shell completion for bash, zsh and fish: ``openwop-tui completion SHELL`` prints the
script to source, and the program answers the shell's requests (`answer_if_asked`).

The work is argcomplete's (a well-kept library, the one pip and many CLIs use): the script
asks the program itself for completions on Tab (``_ARGCOMPLETE`` in its environment), so they
follow the parser (`openwop_tui.cli.parser`) and cannot drift from it; a hand-written script per
shell would. The program answers right after building its parser, before any of its other
modules load.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["SHELLS", "answer_if_asked", "script"]

#: The shells a script is printed for.
SHELLS = ("bash", "zsh", "fish")

#: Where each shell's script goes for every new shell (said in the command's help).
HOW = {
    "bash": 'eval "$(openwop-tui completion bash)"   # in ~/.bashrc',
    "zsh": 'eval "$(openwop-tui completion zsh)"    # in ~/.zshrc',
    "fish": "openwop-tui completion fish | source   # in ~/.config/fish/config.fish",
}


def answer_if_asked(parser: argparse.ArgumentParser) -> None:
    """When a shell's completion script is asking (``_ARGCOMPLETE`` set), write the completions
    for the line it gives and exit; else return at once (argcomplete is not even imported)."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    argcomplete.autocomplete(parser)


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of `SHELLS`)."""
    from argcomplete.shell_integration import shellcode

    return shellcode(["openwop-tui"], shell=shell)


def completion_command(shell: str) -> int:
    """``openwop-tui completion SHELL``: the script on stdout."""
    sys.stdout.write(script(shell))
    return 0
