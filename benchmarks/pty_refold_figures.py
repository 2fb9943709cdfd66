"""The first open of a long session whose kept folds are missing (copied from another machine,
or an upgrade changed the fold), measured from outside the process (issue 23, item 7).

``pty_refold``: a 3,000-turn session of real-shaped turns, its kept folds deleted before every
open, opened with ``--session`` in a pty; from the process's start to "● connected" on the
status line, against a one-turn session opened the same way; key echo while its older turns
are read (every echo timed while the status line still says they are); a message sent while
they are read, from Enter to its answer on screen, against the same message sent in the same
session once it is read (the same history goes: only the reading differs), and whether it was
answered before the reading ended; the same with two CPU-bound
processes running; and the start to the whole session read (for context: the refold itself,
which the host, the keys and the next message no longer wait for).

The session is one this version wrote (each run's effect on the chat history kept beside the
log, `openwop_tui.store.histories`); only its kept folds are deleted, as an upgrade of the fold
leaves them.
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


#: The message sent while the older turns are read (its answer quotes it: twice on screen),
#: numbered: the session keeps each, and the next open shows the last.
ASKED = "zebra crossing {}"

_asked = iter(range(1_000_000))


def _ask(
    home: str, url: str, key: str, path: Path, session_id: str, *, forget: bool
) -> tuple[float, bool]:
    """Seconds from Enter on a message (`ASKED`) to its answer on screen; and whether the
    older turns were still being read when it was. ``forget``: the kept folds deleted first,
    and the message typed as soon as the prompt is there (while they are read); else typed
    once the session is all in (the baseline: the same history sent, nothing being read)."""
    if forget:
        _forget_folds(path)
    asked = ASKED.format(next(_asked))
    term = Terminal([*APP, "--host", url, "--session", session_id], _env(home, key))
    try:
        term.wait_for(CONNECTED, timeout=180)
        if forget:
            term.wait_for(lambda text: PROMPT in text or READING in text)
        else:
            term.wait_for(lambda text: PROMPT in text and READING not in text, timeout=300)
        term.send(asked)
        term.wait_for(lambda text: text.count(asked) == 1)
        start = time.perf_counter()
        term.send("\r")
        answered = term.wait_for(lambda text: text.count(asked) >= 2, timeout=300)
        return answered - start, READING in term.text
    finally:
        term.close()


@figure("pty_refold")
async def pty_refold() -> list[Figure]:
    """A 3,000-turn session without kept folds opened in the app, against one turn."""
    from benchmarks.sessions import recorded_turn, write_session
    from openwop_tui.core.opening import stored
    from openwop_tui.store.sessions import Store

    turn = await recorded_turn()
    with demo_host(pace=0) as (url, key), tempfile.TemporaryDirectory() as home:
        path = Path(home) / "data" / "openwop-tui" / "sessions.db"
        path.parent.mkdir(parents=True)
        with Store(path) as store:
            one = write_session(store, turn, 1)
            many = write_session(store, turn, REOPEN_TURNS)
            for session_id in (one, many):
                stored(store, session_id)  # (its folds and history rows, as if chatted live)
        # Alternating, so that a slow spell of the machine hits both sides; the best of three.
        ones, manys = [], []
        asked_read, asked_many = [], []
        for _ in range(3):
            ones.append(_open(home, url, key, path, one, typing=False))
            manys.append(_open(home, url, key, path, many, typing=True))
            asked_read.append(_ask(home, url, key, path, many, forget=False))
            asked_many.append(_ask(home, url, key, path, many, forget=True))
        # The same with two CPU-bound processes running (a busy machine: the reading thread,
        # the loop and the host then share what is left of two cores).
        with burners(2):
            busy_one = _open(home, url, key, path, one, typing=False)
            busy_many = _open(home, url, key, path, many, typing=True)
            busy_asked_read = _ask(home, url, key, path, many, forget=False)
            busy_asked_many = _ask(home, url, key, path, many, forget=True)
    best_one = min(c for c, _, _ in ones)
    best_many = min(c for c, _, _ in manys)
    keys = [e * 1000 for _, echoes, _ in manys for e in echoes]
    read = min(r for _, _, r in manys)
    median = statistics.median(keys) if keys else float("nan")
    worst = max(keys) if keys else float("nan")
    busy_keys = [e * 1000 for e in busy_many[1]]
    busy_median = statistics.median(busy_keys) if busy_keys else float("nan")
    busy_worst = max(busy_keys) if busy_keys else float("nan")
    answer_read = min(seconds for seconds, _ in asked_read)
    answer_many = min(seconds for seconds, _ in asked_many)
    while_reading = sum(1 for _, reading in asked_many if reading)
    return [
        Figure(
            "pty_refold_answered_s",
            answer_many,
            "s",
            "the same message in the same session once it is read (s)",
            answer_read,
            "ratio <= 1.5, answered while the older turns were read",
            answer_many / answer_read <= 1.5 and while_reading == len(asked_many),
            note=f"Enter to the answer on screen, best of 3; {while_reading} of "
            f"{len(asked_many)} answered before the reading ended",
        ),
        Figure(
            "pty_refold_busy_answered_s",
            busy_asked_many[0],
            "s",
            "the same once it is read, two CPU-bound processes running too (s)",
            busy_asked_read[0],
            "ratio <= 1.5, answered while the older turns were read",
            busy_asked_many[0] / busy_asked_read[0] <= 1.5 and busy_asked_many[1],
            note="Enter to the answer on screen, two CPU-bound processes running; answered "
            + ("before" if busy_asked_many[1] else "after")
            + " the reading ended",
        ),
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
