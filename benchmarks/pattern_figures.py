"""The host-pattern figure of ``python -m benchmarks`` (registered on import by
`benchmarks.figures`): issue 14's ``^(a|aa)+$`` against 34 a's and a ``b``.

Ours is `openwop_tui.protocol.resume_schema.schema_problem` (RE2, linear time) on the measured
value and on one of 100,000 characters; the baseline is Python's backtracking `re` on the same
pattern with 26 a's (each two more a's roughly double it: the measured 34 took seconds).
"""

from __future__ import annotations

import re
import time

from benchmarks.figures import Figure, figure
from openwop_tui.protocol.resume_schema import schema_problem

EVIL = "^(a|aa)+$"


def _best(fn: object, repeat: int = 5) -> float:
    assert callable(fn)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


@figure("host_pattern")
async def host_pattern() -> list[Figure]:
    """One answer checked against the measured pattern, ours against backtracking `re`."""
    schema = {"type": "string", "pattern": EVIL}
    measured = "a" * 34 + "b"
    ours = _best(lambda: schema_problem(schema, measured, "v"))
    longest = "a" * 99_999 + "b"
    ours_long = _best(lambda: schema_problem(schema, longest, "v"))
    baseline = _best(lambda: re.search(EVIL, "a" * 26 + "b"), repeat=1)
    return [
        Figure(
            "host_pattern_ms",
            ours * 1000,
            "ms",
            "re.search, 26 a's and a b",
            baseline * 1000,
            "< 100 ms",
            ours < 0.1,
            note="34 a's and a b, through schema_problem (the form and run --answer)",
        ),
        Figure(
            "host_pattern_100k_ms",
            ours_long * 1000,
            "ms",
            "none",
            None,
            "< 100 ms",
            ours_long < 0.1,
            note="a 100,000-character answer, the longest checked",
        ),
    ]
