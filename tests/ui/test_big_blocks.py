"""A big block freed goes back to the system, whatever was freed before it
(`openwop_tui.ui.big_blocks`): glibc raised its threshold for a block of its own to the size
of the last one freed, so the next big blocks came from the heap and left holes in it."""

from __future__ import annotations

import ctypes
import subprocess
import sys

import pytest

#: In a process of its own (the threshold is the process's): a 4 MB block freed, then whether a
#: 300 KB block is a mapping of its own (``mallinfo2().hblkhd``, bytes in such mappings).
_PROBE = """
import ctypes, sys
from openwop_tui.ui import big_blocks
if sys.argv[1] == "install":
    assert big_blocks.install()
names = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
         "fordblks", "keepcost")
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in names]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
gone = bytearray(4_000_000)
del gone
before = libc.mallinfo2().hblkhd
block = bytearray(300_000)
print(libc.mallinfo2().hblkhd - before >= 300_000)
"""


def _glibc_with_mallinfo2() -> bool:
    libc = ctypes.CDLL(None)
    return hasattr(libc, "gnu_get_libc_version") and hasattr(libc, "mallinfo2")


def _own_mapping(*args: str) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True
    )
    return out.stdout.strip() == "True"


@pytest.mark.skipif(not _glibc_with_mallinfo2(), reason="glibc 2.33 or later only")
def test_a_big_block_after_a_bigger_one_freed_is_a_mapping_of_its_own() -> None:
    assert _own_mapping("install")
    # (What it works around: without it, glibc served the block from the heap.)
    assert not _own_mapping("as-is")
