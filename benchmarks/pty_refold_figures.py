"""The first open of a long session whose kept folds are missing (copied from another machine,
or an upgrade changed the fold), measured from outside the process (issue 23, item 7).

``pty_refold``: a 3,000-turn session of real-shaped turns, its kept folds deleted before every
open, opened with ``--session`` in a pty; from the process's start to "● connected" on the
status line, against a one-turn session opened the same way; key echo while its older turns
are read (every echo timed while the status line still says they are); the same two with two
CPU-bound processes running; and the start to the whole session read (for context: the refold
itself, which the host and the keys no longer wait for).
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.figures import Figure, figure
from benchmarks.pty_figures import APP, PROMPT, REOPEN_TURNS, _env, burners, demo_host
from benchmarks.terminal import Terminal

CONNECTED = "● connected"
#: What the status line says while the older turns are read.
READING = "older turns"
#: Keys timed while the older turns are read (as many as the reading lasts for, at most).
ECHOES = 40


def _forget_folds(path: Path) -> None:
    """Delete every kept fold: the session opens as after an upgrade."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("DELETE FROM folds")
    finally:
        db.close()


def _open(
    home: str, url: str, key: str, path: Path, session_id: str, *, typing: bool
) -> tuple[float, list[float], float]:
    """Seconds from start to connected; key echoes (s) while the older turns are read (when
    ``typing``); seconds from start to the reading's end (0 when it was never seen)."""
    _forget_folds(path)
    term = Terminal([*APP, "--host", url, "--session", session_id], _env(home, key))
    try:
        connected = term.wait_for(CONNECTED, timeout=180) - term.started
        # (The prompt says how far the reading is, in place of its usual words, until it ends.)
        term.wait_for(lambda text: PROMPT in text or READING in text)
        echoes: list[float] = []
        if typing and READING in term.text:
            term.start_typing()
            while len(echoes) < ECHOES and READING in term.text:
                echoes.append(term.echo())
                time.sleep(0.05)
            # Only the keys typed while the reading went on count.
            if READING not in term.text and echoes:
                echoes.pop()
        read = 0.0
        if typing:
            read = term.wait_for(lambda text: READING not in text, timeout=300) - term.started
    finally:
        term.close()
    return connected, echoes, read


@figure("pty_refold")
async def pty_refold() -> list[Figure]:
    """A 3,000-turn session without kept folds opened in the app, against one turn."""
    from benchmarks.sessions import recorded_turn, write_session
    from openwop_tui.store.sessions import Store

    turn = await recorded_turn()
    with demo_host(pace=0) as (url, key), tempfile.TemporaryDirectory() as home:
        path = Path(home) / "data" / "openwop-tui" / "sessions.db"
        path.parent.mkdir(parents=True)
        with Store(path) as store:
            one = write_session(store, turn, 1)
            many = write_session(store, turn, REOPEN_TURNS)
        # Alternating, so that a slow spell of the machine hits both sides; the best of three.
        ones, manys = [], []
        for _ in range(3):
            ones.append(_open(home, url, key, path, one, typing=False))
            manys.append(_open(home, url, key, path, many, typing=True))
        # The same with two CPU-bound processes running (a busy machine: the reading thread,
        # the loop and the host then share what is left of two cores).
        with burners(2):
            busy_one = _open(home, url, key, path, one, typing=False)
            busy_many = _open(home, url, key, path, many, typing=True)
    best_one = min(c for c, _, _ in ones)
    best_many = min(c for c, _, _ in manys)
    keys = [e * 1000 for _, echoes, _ in manys for e in echoes]
    read = min(r for _, _, r in manys)
    median = statistics.median(keys) if keys else float("nan")
    worst = max(keys) if keys else float("nan")
    busy_keys = [e * 1000 for e in busy_many[1]]
    busy_median = statistics.median(busy_keys) if busy_keys else float("nan")
    busy_worst = max(busy_keys) if busy_keys else float("nan")
    return [
        Figure(
            "pty_refold_connected_s",
            best_many,
            "s",
            "a one-turn session opened the same way (s)",
            best_one,
            "ratio <= 1.5",
            best_many / best_one <= 1.5,
            note="process start to '● connected', no kept folds, best of 3",
        ),
        Figure(
            "pty_refold_key_echo_ms",
            median,
            "ms",
            "the slowest of them (ms)",
            worst,
            "< 150 ms",
            bool(keys) and worst < 150.0,
            note=f"median of {len(keys)} keys typed while the older turns were read",
        ),
        Figure(
            "pty_refold_busy_connected_s",
            busy_many[0],
            "s",
            "a one-turn session, two CPU-bound processes running too (s)",
            busy_one[0],
            "ratio <= 1.5",
            busy_many[0] / busy_one[0] <= 1.5,
            note="process start to '● connected', two CPU-bound processes running",
        ),
        Figure(
            "pty_refold_busy_key_echo_ms",
            busy_median,
            "ms",
            "the slowest of them (ms)",
            busy_worst,
            "< 150 ms",
            bool(busy_keys) and busy_worst < 150.0,
            note=f"median of {len(busy_keys)} keys typed while the older turns were read, "
            "two CPU-bound processes running",
        ),
        Figure(
            "pty_refold_read_s",
            read,
            "s",
            "connected (s)",
            best_many,
            "shown for context",
            None,
            note="process start to the whole session read (no kept folds), best of 3",
        ),
    ]
