"""``python -m benchmarks [--json] [NAME ...]``: every figure of issue 6 with its baseline.

Each figure function runs in a fresh Python process (memory figures must not see each other's
allocations), and prints its value, the baseline measured in the same run, the ratio and the
target. ``--json`` prints one JSON list for machines instead of the table.
"""

from __future__ import annotations

import argparse
import compileall
import json
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from benchmarks.figures import FIGURES, register_all


def _byte_compile() -> None:
    """Compile the app's modules, as pip does when it installs the wheel: a process started
    from a source tree that may not write bytecode (``PYTHONDONTWRITEBYTECODE``, set on some
    machines) would otherwise compile them at every start, 0.2 s that no installed copy pays."""
    import openwop_tui
    import openwop_tui.renderers

    for package in (openwop_tui, openwop_tui.renderers):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def _collect(names: list[str], progress: TextIO) -> list[dict[str, object]]:
    """Run each figure in its own process; each one's rows are printed to ``progress`` as it
    ends (a long run shows how far it is, and a figure that breaks later loses nothing)."""
    _byte_compile()
    results: list[dict[str, object]] = []
    print(_HEADER, file=progress, flush=True)
    for name in names:
        started = len(results)
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.figures", name],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
            results.append({"name": name, "error": tail})
            print(_table(results[started:]), file=progress, flush=True)
            continue
        results.extend(json.loads(out.stdout.strip().splitlines()[-1]))
        print(_table(results[started:]), file=progress, flush=True)
    return results


def _number(value: object, width: int) -> str:
    """A figure's number (or ``-`` where a figure has none) right-aligned in ``width``."""
    return f"{value:>{width}.3f}" if isinstance(value, int | float) else f"{'-':>{width}}"


_HEADER = f"{'figure':<28} {'value':>12} {'baseline':>12} {'ratio':>7}  target (met?)"


def _table(results: list[dict[str, object]]) -> str:
    lines: list[str] = []
    for row in results:
        if "error" in row:
            lines.append(f"{row['name']:<28} failed: {row['error']}")
            continue
        ratio = row["ratio"]
        met = {True: "yes", False: "NO", None: "-"}[row["met"]]  # type: ignore[index]
        lines.append(
            f"{row['name']:<28} {_number(row['value'], 10)} {row['unit']!s:<1} "
            f"{_number(row['baseline_value'], 12)} "
            f"{format(ratio, '.2f') if isinstance(ratio, float) else '':>7}  "
            f"{row['target']} ({met})"
        )
        lines.append(
            f"{'':<28} baseline: {row['baseline']}" + (f"; {row['note']}" if row["note"] else "")
        )
    return "\n".join(lines)


def main() -> int:
    register_all()
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--json", action="store_true", help="one JSON list, for machines")
    parser.add_argument(
        "names", nargs="*", help=f"figures to run (default all: {', '.join(FIGURES)})"
    )
    args = parser.parse_args()
    names = args.names or list(FIGURES)
    unknown = [n for n in names if n not in FIGURES]
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(unknown)}; known: {', '.join(FIGURES)}")
    # The table is printed as the figures come; with --json, that goes to stderr and the JSON
    # list (all of them) to stdout at the end.
    results = _collect(names, sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
