"""``python -m benchmarks [--json] [NAME ...]``: every figure of issue 6 with its baseline.

Each figure function runs in a fresh Python process (memory figures must not see each other's
allocations), and prints its value, the baseline measured in the same run, the ratio and the
target. ``--json`` prints one JSON list for machines instead of the table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from benchmarks.figures import FIGURES


def _collect(names: list[str]) -> list[dict[str, object]]:
    results: list[dict[str, object]] = []
    for name in names:
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.figures", name],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        if out.returncode != 0:
            tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
            results.append({"name": name, "error": tail})
            continue
        results.extend(json.loads(out.stdout.strip().splitlines()[-1]))
    return results


def _table(results: list[dict[str, object]]) -> str:
    lines = [f"{'figure':<28} {'value':>12} {'baseline':>12} {'ratio':>7}  target (met?)"]
    for row in results:
        if "error" in row:
            lines.append(f"{row['name']:<28} failed: {row['error']}")
            continue
        ratio = row["ratio"]
        base = row["baseline_value"]
        met = {True: "yes", False: "NO", None: "-"}[row["met"]]  # type: ignore[index]
        lines.append(
            f"{row['name']:<28} {row['value']:>10.3f} {row['unit']!s:<1} "
            f"{base if base is None else format(base, '.3f'):>12} "
            f"{'' if ratio is None else format(ratio, '.2f'):>7}  {row['target']} ({met})"
        )
        lines.append(
            f"{'':<28} baseline: {row['baseline']}" + (f"; {row['note']}" if row["note"] else "")
        )
    return "\n".join(lines)


def main() -> int:
    # Each registers its figures on import.
    import benchmarks.inspect_figures
    import benchmarks.lint_figures
    import benchmarks.pattern_figures
    import benchmarks.pty_figures
    import benchmarks.store_figures
    import benchmarks.view_figures  # noqa: F401

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
    results = _collect(names)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
