"""Where the tests' own files are, for test modules in any folder of ``tests/``.

A plain module, not a test file: ``tests/`` is on ``sys.path`` (``pythonpath`` in
pyproject.toml), so ``from paths import TESTS`` works from ``tests/ui/`` as from ``tests/``.
"""

from __future__ import annotations

from pathlib import Path

#: ``tests/`` itself: ``TESTS / "data" / "captures"`` holds the recorded streams.
TESTS = Path(__file__).resolve().parent
