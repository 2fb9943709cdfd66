"""Putting ids into URL paths, in each protocol major's way.

v1 run ids are opaque strings (``run_…``, ``run-<uuid>``) and go into a path percent-encoded like
any other segment. v2 run ids are tenant-bound, ``<tenant>/<opaque>`` (``spec/v2/core/identity.md``
§5), and travel as *one* path segment through the RFC 0184 projection: every UTF-8 byte outside
``[A-Za-z0-9._-]`` becomes ``~`` and two uppercase hex digits, so ``acme/r-9f3c`` is sent as
``acme~2Fr-9f3c``. A host must accept that form (it also accepts ``%2F``, but a front door that
decodes ``%2F`` before routing would split the id in two, so the projection is what is sent).

The projection is applied exactly once, where the id leaves the client: ids in bodies and events
stay bound (with their ``/``), and a ``~`` in an id is projected too (``~7E``), so a projected
id can never be mistaken for an already-projected one.

Pure functions, no I/O.
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["path_segment", "project_id"]

#: Bytes the RFC 0184 projection leaves as they are.
_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def project_id(value: str) -> str:
    """The RFC 0184 projection of a tenant-bound id: ``acme/r-9f3c`` → ``acme~2Fr-9f3c``."""
    return "".join(chr(b) if b in _KEPT else f"~{b:02X}" for b in value.encode("utf-8"))


def path_segment(value: str, *, major: int, tenant_bound: bool = False) -> str:
    """``value`` as one URL path segment under protocol ``major``.

    ``tenant_bound`` ids (run ids) are projected under v2; everything else (and every v1 id) is
    percent-encoded, ``/`` included, so no value can add a path segment of its own.
    """
    if major >= 2 and tenant_bound:
        return project_id(value)
    return quote(value, safe="~")
