"""Every figure a benchmark module defines is in the table ``python -m benchmarks`` prints.

The figures register themselves as their module is imported, and `benchmarks.figures.register_all`
imports them: a module it leaves out has its figures missing from the table without a word
(``pty_flood_60``, the 60 s flood issue 26 asks for, was: ``python -m benchmarks`` did not know
it).
"""

from __future__ import annotations

import re
import subprocess
import sys

from paths import TESTS

ROOT = TESTS.parent

_DEFINED = re.compile(r'^@figure\("([^"]+)"\)', re.MULTILINE)


def _defined() -> set[str]:
    """The figure names the benchmark modules define (read from their source)."""
    names: set[str] = set()
    for module in (ROOT / "benchmarks").glob("*.py"):
        names.update(_DEFINED.findall(module.read_text(encoding="utf-8")))
    return names


def test_every_figure_defined_is_known_to_the_table() -> None:
    defined = _defined()
    assert "pty_flood_60" in defined
    # As the table is run: from the repository, in a process of its own (its imports are
    # those of the command, not of this test session).
    listed = subprocess.run(
        [sys.executable, "-c", "import benchmarks.figures as f; print(*f.register_all())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert defined <= set(listed), sorted(defined - set(listed))
