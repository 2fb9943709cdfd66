"""tmux's passthrough: a sequence tmux hands to the outer terminal untouched.

Inside tmux an escape sequence for the outer terminal (a kitty graphics command) is wrapped in
``ESC P tmux; … ESC \\`` with every ESC inside doubled; tmux forwards it only when its
``allow-passthrough`` option is on (`openwop_tui.devices.terminal` checks that before relying on
it).
"""

from __future__ import annotations

__all__ = ["passthrough"]


def passthrough(sequence: str) -> str:
    """``sequence`` wrapped for tmux to pass on to the terminal it runs in."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
