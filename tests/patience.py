"""How long a test waits before it calls something hung.

A guard against a hang, never a synchronisation: a test waits for a condition (an exit, a line,
a state), and this bounds only the wait for one that never comes. It is far above any normal
wait so that a machine five times slower than a developer's (a shared CI runner, four other
CPU-bound processes) still passes; ``OPENWOP_TUI_TEST_PATIENCE`` (seconds) moves it.
A plain module (``tests/`` is on ``sys.path``).
"""

from __future__ import annotations

import os

PATIENCE = float(os.environ.get("OPENWOP_TUI_TEST_PATIENCE", "300"))
