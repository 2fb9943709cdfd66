"""The lint remembers each sequence of a run (to tell a redelivery from another event) in
eight bytes, not a dict entry of about a hundred (issue 26: 60 MB over 600,000 chunks), and
tells the two apart the same wherever the sequence falls: in the run's numbering from 0 up,
or far from it (a host's own numbering)."""

from __future__ import annotations

import tracemalloc

import pytest

from openwop_tui.inspect.lint import Linter
from openwop_tui.protocol.events import normalize


def _chunk(sequence: int, text: str = "w") -> object:
    return normalize(
        {
            "eventId": f"ev_{sequence}_{text}",
            "type": "output.chunk",
            "runId": "r",
            "timestamp": "2026-01-01T00:00:00Z",
            "sequence": sequence,
            "nodeId": "n",
            "payload": {"nodeId": "n", "chunk": text},
        }
    )


@pytest.mark.parametrize("start", [0, 10**12])
def test_a_redelivery_and_another_event_at_a_seen_sequence_are_told_apart(start: int) -> None:
    linter = Linter()
    for n in range(5):
        linter.feed(_chunk(start + n))  # type: ignore[arg-type]
    again = [f.code for f in linter.feed(_chunk(start + 2))]  # type: ignore[arg-type]
    other = [f.code for f in linter.feed(_chunk(start + 3, "x"))]  # type: ignore[arg-type]
    assert "OW112" in again and "OW113" not in again
    assert "OW113" in other


def test_a_run_s_sequences_cost_a_few_bytes_each() -> None:
    linter = Linter()
    events = [_chunk(n) for n in range(2_000)]
    for event in events[:1_000]:
        linter.feed(event)  # type: ignore[arg-type]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for event in events[1_000:]:
            linter.feed(event)  # type: ignore[arg-type]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / 1_000 < 40, grown
