"""A full disk under the session store, simulated or real (a plain module: ``tests/`` is on
``sys.path``).

`simulate` is a SIMULATION: the store's lowest write calls (`batch.write_sessions` and
`batch.write_rows`, by the names `openwop_tui.store.writer` and `openwop_tui.store.journal`
call them) raise SQLite's own "database or disk is full" error while it is on. `tmpfs` is the
real thing: a small filesystem mounted for the test (root only), filled with `fill`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from openwop_tui.store import journal, writer


class FullDisk:
    """Switch the simulated full disk on and off."""

    def __init__(self) -> None:
        self.on = False


def simulate(monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    """While the returned switch is ``on``, every write of any store fails as on a full disk."""
    disk = FullDisk()

    def failing(real: Callable[..., object]) -> Callable[..., object]:
        def write(*args: object, **options: object) -> object:
            if disk.on:
                raise sqlite3.OperationalError("database or disk is full")
            return real(*args, **options)

        return write

    for module in (writer, journal):  # (each calls them by its own name)
        monkeypatch.setattr(module, "write_rows", failing(module.write_rows))
        monkeypatch.setattr(module, "write_sessions", failing(module.write_sessions))
    return disk


@contextlib.contextmanager
def tmpfs(folder: Path, size: str = "2m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``folder`` for the block; skips (saying why) where this
    process may not mount one (not root, no mount, a container that forbids it)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root (CI runs as root)")
    folder.mkdir(parents=True, exist_ok=True)
    command = ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(folder)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        pytest.skip(f"cannot run mount: {error}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: Path) -> Path:
    """Fill the filesystem of ``folder`` to its last byte; the file that holds the space
    (remove it to free the disk)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            block = b"\0" * size
            while True:
                try:
                    os.write(fd, block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
    return filler
