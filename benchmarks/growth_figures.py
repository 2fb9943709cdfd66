"""The store's growth figure of ``python -m benchmarks`` (registered on import by
`benchmarks.figures`): ``store_growth``.

A session whose every ``run.started`` echoes its chat history (as a real host's does, in
``inputs.messages``) of realistic, weakly compressible text: each message 40 to 70 words drawn
from a seeded list of 3,000 made-up words (a few hundred bytes; zlib takes it to about 60 %,
where the demo host's repeated sentences compress fifty times). The bytes the store holds at
3,000 turns against 1,000: linear is 3.0, the square 9. The baseline is the same sessions in
a store with chunks off (`Store(dedup=False)`: each echo kept whole, compressed), measured in
the same run. Every frame of the 3,000-turn session is read back and compared byte for byte.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.figures import Figure, figure
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store
from openwop_tui.text.units import human_size

SHORT, LONG = 1_000, 3_000


def _sentences(seed: int = 26) -> Iterator[str]:
    """Messages of 40 to 70 words from a seeded list of made-up words, forever."""
    chance = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = [
        "".join(chance.choice(letters) for _ in range(chance.randint(2, 9))) for _ in range(3000)
    ]
    while True:
        count = chance.randint(40, 70)
        yield " ".join(chance.choice(words) for _ in range(count)).capitalize() + "."


def _turns(turns: int) -> Iterator[tuple[str, str, list[str]]]:
    """Each turn's run id, message and frames (the echo first), the history kept as its JSON
    pieces so a turn costs a join, not a ``json.dumps`` of the whole history."""
    said = _sentences()
    pieces: list[str] = []
    for turn in range(turns):
        run, message, reply = f"run_{turn:08d}", next(said), next(said)
        pieces.append(json.dumps({"role": "user", "content": message}))
        echo = (
            f'{{"type": "run.started", "runId": "{run}", "inputs": {{"messages": '
            f"[{', '.join(pieces)}]}}}}"
        )
        chunks = [
            json.dumps({"type": "message.chunk", "runId": run, "text": reply[at : at + 64]})
            for at in range(0, len(reply), 64)
        ]
        done = json.dumps({"type": "run.completed", "runId": run, "outputs": {"reply": reply}})
        yield run, message, [echo, *chunks, done]
        pieces.append(json.dumps({"role": "assistant", "content": reply}))


def _write(path: Path, turns: int, *, dedup: bool) -> tuple[str, float]:
    """The session written to a new store at ``path``; its id and the seconds it took."""
    start = time.perf_counter()
    with Store(path, dedup=dedup) as store:
        session = store.create(host="http://127.0.0.1:9", workflow="demo.chat")
        for run, message, frames in _turns(turns):
            store.append(session, Entry("user", message))
            store.append(session, Entry("run", run=run, meta={"workflow": "demo.chat"}))
            for sequence, data in enumerate(frames):
                store.append(session, Entry("frame", data, run=run, frame_id=str(sequence)))
            store.append(session, Entry("end", run=run, meta={"status": "completed"}))
    return session, time.perf_counter() - start


def _bytes(path: Path) -> int:
    """What the store holds: its entries' data and meta, and its chunks' keys and data."""
    with sqlite3.connect(path) as db:
        total = db.execute(
            "SELECT coalesce(sum(length(data) + coalesce(length(meta), 0)), 0) FROM entries"
        ).fetchone()[0]
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks'").fetchone():
            total += db.execute(
                "SELECT coalesce(sum(length(key) + length(data)), 0) FROM chunks"
            ).fetchone()[0]
    return int(total)


def _read_back(path: Path, session: str, turns: int) -> bool:
    """Whether every frame reads back byte for byte."""
    expected = (data for _, _, frames in _turns(turns) for data in frames)
    with Store(path) as store:
        read = (entry.data for entry in store.entries(session) if entry.kind == "frame")
        return all(a == b for a, b in zip(read, expected, strict=True))


@figure("store_growth")
async def store_growth() -> list[Figure]:
    """Store bytes of a 3,000-turn echoing session against 1,000 turns, chunks on and off."""
    sizes: dict[tuple[bool, int], int] = {}
    seconds: dict[tuple[bool, int], float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for dedup in (True, False):
            for turns in (SHORT, LONG):
                path = Path(folder) / f"{dedup}-{turns}.db"
                session, seconds[dedup, turns] = _write(path, turns, dedup=dedup)
                sizes[dedup, turns] = _bytes(path)
                if dedup and turns == LONG:
                    exact = _read_back(path, session, turns)
                path.unlink()
    ratio = sizes[True, LONG] / sizes[True, SHORT]
    whole = sizes[False, LONG] / sizes[False, SHORT]
    return [
        Figure(
            "store_3000_vs_1000_turns_bytes_ratio",
            ratio,
            "x",
            "the store without chunks (each echo kept whole, compressed)",
            whole,
            "ratio of 3,000 to 1,000 turns <= 3.5 (linear 3, the square 9)",
            ratio <= 3.5 and exact,
            note=(
                f"chunks: {human_size(sizes[True, SHORT])} at 1,000 turns, "
                f"{human_size(sizes[True, LONG])} at 3,000 (written in "
                f"{seconds[True, LONG]:.0f} s); without: {human_size(sizes[False, SHORT])}, "
                f"{human_size(sizes[False, LONG])} ({seconds[False, LONG]:.0f} s); "
                f"read back byte for byte: {exact}"
            ),
        )
    ]
