"""Sessions whose ``run.started`` echoes the chat history, for the chunk tests and figures:
deterministic, weakly compressible text (sentences drawn from a seeded word list), and the
bytes a store holds counted from its tables (not the file, whose free pages vary).
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store


class Talk:
    """A seeded chat: each `sentence` a few hundred bytes of words from a fixed list."""

    def __init__(self, seed: int = 26) -> None:
        self._random = random.Random(seed)
        letters = "abcdefghijklmnopqrstuvwxyzéü"
        self._words = [
            "".join(self._random.choice(letters) for _ in range(self._random.randint(2, 9)))
            for _ in range(3000)
        ]

    def sentence(self) -> str:
        """One message: 40 to 70 words."""
        count = self._random.randint(40, 70)
        return " ".join(self._random.choice(self._words) for _ in range(count)).capitalize()


def echo_session(store: Store, turns: int, talk: Talk | None = None) -> tuple[str, list[str]]:
    """A session of ``turns`` turns in ``store``, each a message, a run whose ``run.started``
    echoes the history, the reply in a few chunks, its completion and its end; its id and
    every frame's data as appended."""
    talk = talk or Talk()
    session = store.create(host="http://127.0.0.1:9", workflow="demo.chat")
    history: list[dict[str, str]] = []
    frames: list[str] = []
    for turn in range(turns):
        run = f"run_{turn:08d}"
        message = talk.sentence()
        history.append({"role": "user", "content": message})
        store.append(session, Entry("user", message))
        store.append(session, Entry("run", run=run, meta={"workflow": "demo.chat"}))
        started = {"type": "run.started", "runId": run, "inputs": {"messages": history}}
        reply = talk.sentence()
        pieces = [reply[at : at + 64] for at in range(0, len(reply), 64)]
        events = [
            started,
            *({"type": "message.chunk", "runId": run, "text": piece} for piece in pieces),
            {"type": "run.completed", "runId": run, "outputs": {"reply": reply}},
        ]
        for sequence, event in enumerate(events):
            data = json.dumps(event, ensure_ascii=False)
            frames.append(data)
            store.append(session, Entry("frame", data, run=run, frame_id=str(sequence)))
        store.append(session, Entry("end", run=run, meta={"status": "completed"}))
        history.append({"role": "assistant", "content": reply})
    return session, frames


def stored_bytes(path: Path) -> int:
    """What the store at ``path`` holds: every entry's data and meta, and every chunk's key
    and data (a chunk's row counted once however many entries share it)."""
    with sqlite3.connect(path) as db:
        entries = db.execute(
            "SELECT coalesce(sum(length(data) + coalesce(length(meta), 0)), 0) FROM entries"
        ).fetchone()[0]
        chunks = db.execute(
            "SELECT coalesce(sum(length(key) + length(data)), 0) FROM chunks"
        ).fetchone()[0]
    return int(entries) + int(chunks)
