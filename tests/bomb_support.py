"""A stored session holding a decompression bomb: a frame entry of about 1 MB that inflates to
1 GiB, written into the store file as the store writes a compressed entry (its marker and a
zlib stream), between ordinary frames of one run (a plain module, imported as
``from bomb_support import ...``).

The zlib stream is built a MiB at a time with `zlib.compressobj`, never whole in memory: each
MiB of zeros is compressed with a full flush, so after the first every MiB gives the same bytes
(about 1 KB), which are repeated; the stream ends with the final block and the Adler-32 of the
whole GiB, so it is a valid stream that inflates to exactly 1 GiB.
"""

from __future__ import annotations

import json
import resource
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from installed import PROGRAM

from openwop_tui.store.entry_bytes import DEFLATED
from openwop_tui.store.records import Entry
from openwop_tui.store.sessions import Store

#: What the bomb inflates to.
INFLATED = 1 << 30
_MIB = 1 << 20
#: The peak memory allowed to a command reading the bomb (it took GBs before the bound).
PEAK_BYTES = 200 * _MIB
#: Address space given to a measured command: reading the bomb whole fails fast at this
#: instead of taking the machine's memory (the run without the bound fails, not swaps).
ADDRESS_SPACE = 3 << 30

RUN = "run_bomb"
BEFORE = "the part before"
AFTER = " and the part after"


def bomb() -> bytes:
    """Compressed entry data (marker included) that inflates to `INFLATED` zero bytes."""
    zeros = bytes(_MIB)
    packer = zlib.compressobj(9)
    first = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    steady = packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH)
    assert packer.compress(zeros) + packer.flush(zlib.Z_FULL_FLUSH) == steady
    last = zlib.compressobj(9, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)  # the final block
    checksum = 1
    for _ in range(INFLATED // _MIB):
        checksum = zlib.adler32(zeros, checksum)
    blocks = INFLATED // _MIB - 1
    return DEFLATED + first + steady * blocks + last + struct.pack(">I", checksum)


def _frame(sequence: int, doc: dict[str, object]) -> Entry:
    data = json.dumps({"runId": RUN, "sequence": sequence, **doc})
    return Entry("frame", data, run=RUN, label="message", frame_id=str(sequence))


def _chunk(sequence: int, text: str) -> Entry:
    payload = {"nodeId": "reply", "chunk": text}
    return _frame(sequence, {"type": "output.chunk", "nodeId": "reply", "payload": payload})


def bomb_session(store_path: Path, data: bytes | None = None) -> tuple[str, int]:
    """A session in the store at ``store_path``: a message, a run whose reply comes in two
    chunks with ``data`` (by default `bomb`'s) between them, and the run's end. Its id and the
    bomb's position in its log (as people count, from 1)."""
    with Store(store_path) as store:
        session = store.create(host="http://127.0.0.1:9", workflow="demo.chat")
        store.append(session, Entry("user", "hello"))
        store.append(session, Entry("run", run=RUN, meta={"workflow": "demo.chat"}))
        store.append(session, _frame(0, {"type": "run.started", "payload": {}}))
        store.append(session, _chunk(1, BEFORE))
        # A long chunk, kept compressed (too short to be kept as shared chunks): its data is
        # replaced by the bomb below.
        placeholder = store.append(session, _chunk(2, "x" * 12_000))
        store.append(session, _chunk(3, AFTER))
        done = {"nodeId": "reply", "outputs": {"completion": BEFORE + AFTER}}
        completed = {"type": "node.completed", "nodeId": "reply", "payload": done}
        store.append(session, _frame(4, completed))
        store.append(session, _frame(5, {"type": "run.completed", "payload": {"outputs": {}}}))
        store.append(session, Entry("end", run=RUN, meta={"status": "completed"}))
    with sqlite3.connect(store_path) as db:
        (written,) = db.execute(
            "SELECT data FROM entries WHERE session = ? AND seq = ?", (session, placeholder)
        ).fetchone()
        assert bytes(written).startswith(DEFLATED)  # the store compressed it: the bomb's format
        db.execute(
            "UPDATE entries SET data = ? WHERE session = ? AND seq = ?",
            (data if data is not None else bomb(), session, placeholder),
        )
    return session, placeholder + 1


#: Runs a command and prints the peak resident memory of it (and its children) in KiB: a
#: fresh process, so nothing the test process ran before counts.
_MEASURE = """
import json, resource, subprocess, sys
limit = int(sys.argv[1])
def bounded():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
done = subprocess.run(sys.argv[2:], capture_output=True, text=True, preexec_fn=bounded)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": done.returncode, "out": done.stdout, "err": done.stderr, "peak": peak}))
"""


def measured(command: list[str], timeout: float) -> tuple[subprocess.CompletedProcess[str], int]:
    """Run ``command`` (address space limited to `ADDRESS_SPACE`); what it did and its peak
    resident memory in bytes."""
    wrapper = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(ADDRESS_SPACE), *command],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    found = json.loads(wrapper.stdout)
    done = subprocess.CompletedProcess(command, found["rc"], found["out"], found["err"])
    return done, int(found["peak"]) * 1024  # ru_maxrss is in KiB on Linux


def installed() -> list[str]:
    """The installed ``openwop-tui`` command (beside this interpreter), as users run it."""
    return [str(PROGRAM)]


assert resource.RLIMIT_AS  # (Linux and macOS have it: the measured commands need it)
