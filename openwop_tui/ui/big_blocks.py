"""Big blocks of memory given back to the system when they are freed (glibc's ``malloc``).

Python takes every object over 512 bytes from the C library's ``malloc``. glibc serves a block
of 128 KiB or more as a mapping of its own, returned to the system when it is freed; but once
such a block is freed, it raises that threshold to the freed block's size (up to 32 MiB), so
the next blocks of that size come from the heap instead. A flood's reply makes blocks of that
size several times a second and drops them (its text joined as it grows, its open paragraph
parsed and drawn again whole), between the blocks that live on (the timeline's columns as they
grow, the reply's text): in the heap, they left holes that the process kept. After three floods
of 150,000 events the heap held 15 MB free against 37 MB in use (``mallinfo2``), and the app's
RSS was 10 MB above what ``malloc_trim`` brought it back to (issue 26).

`install` sets the threshold at glibc's default, 128 KiB, which also stops glibc raising it:
every big block is a mapping of its own, returned as soon as it is freed (a big array that
grows is moved by remapping, not copied). With another C library (musl, macOS) nothing is
done: their allocators do not raise a threshold this way.
"""

from __future__ import annotations

__all__ = ["THRESHOLD", "install"]

#: Blocks this big or bigger are mappings of their own (glibc's default, kept fixed).
THRESHOLD = 128 * 1024
#: glibc's ``mallopt`` parameter for it (``malloc.h``).
_M_MMAP_THRESHOLD = -3


def install() -> bool:
    """Fix glibc's threshold for a block of its own at `THRESHOLD` (again: the same); whether
    it is set (not where the C library is not glibc)."""
    # (Imported here: ctypes is not needed for the first frame, which this is called after.)
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc's own: another libc has no such name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, THRESHOLD))
