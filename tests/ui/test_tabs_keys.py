"""The tab keys (issue 27) are keys a terminal sends and Textual delivers, past the prompt.

Textual reads ESC and a digit (Alt+1…9 from xterm, tmux, GNOME Terminal: any terminal without
the kitty keyboard protocol) as the character macOS's Option+digit types; `keys.ALT_DIGITS`
binds those beside ``alt+N``, and the prompt does not type them. Fails when Textual's table
changes under it, or when a tab key is one the prompt keeps for itself.
"""

from __future__ import annotations

from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from textual.keys import _character_to_key
from textual.widgets import TextArea

from openwop_tui import keymap
from openwop_tui.ui import keys
from openwop_tui.ui.widgets.prompt import PromptInput

TAB_KEYS = ("new_chat", "close_tab", "next_tab", "previous_tab", "move_tab_left", "move_tab_right")


def test_alt_digits_are_what_textual_reads_esc_and_a_digit_as() -> None:
    for digit in "123456789":
        character = ANSI_SEQUENCES_KEYS[f"\x1b{digit}"]
        assert isinstance(character, str)
        assert keys.ALT_DIGITS[f"alt+{digit}"] == _character_to_key(character)


def test_each_tab_jump_is_bound_both_ways_and_before_the_prompt() -> None:
    bound = {binding.id: binding for binding in keys.bindings(keys.APP_KEYS)}
    for n in range(1, 10):
        binding = bound[f"tab_{n}"]
        assert binding.key.split(",") == [f"alt+{n}", keys.ALT_DIGITS[f"alt+{n}"]]
        assert binding.priority
        assert not PromptInput().check_consume_key(keys.ALT_DIGITS[f"alt+{n}"], None)


def test_the_tab_keys_are_not_the_prompts_own() -> None:
    taken = {
        key.strip()
        for binding in TextArea.BINDINGS
        for key in getattr(binding, "key", "").split(",")
    }
    for name in (*TAB_KEYS, *(f"tab_{n}" for n in range(1, 10))):
        for key in keymap.ACTIONS[name].keys.split(","):
            assert key not in keymap.RESERVED and key not in taken, (name, key)
            assert keymap.check_key(key) == key
