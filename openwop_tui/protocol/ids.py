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

An id is always exactly one path segment, or it is refused (`UnsafeId`, one sentence): ``.`` and
``..`` (httpx, like every URL parser, removes dot segments, so ``attach ..`` would ask for
``GET /v1``), the empty id (``…/runs/`` is the run list), control characters, and a ``/`` or
``\\`` anywhere it is percent-encoded rather than projected: Starlette, the demo host's own
framework, and many front doors decode ``%2F`` before routing, so ``x/cancel`` would reach
another route. Ids are opaque to the client; no host issues such ids.

Pure functions, no I/O.
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["MAX_ID_CHARS", "UnsafeId", "path_segment", "project_id", "segment_problem"]

#: The longest id put into a URL path (signed tokens run to a few hundred characters).
MAX_ID_CHARS = 2_048


class UnsafeId(ValueError):
    """An id that cannot be one URL path segment; the message says which and why."""


#: Bytes the RFC 0184 projection leaves as they are.
_KEPT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def project_id(value: str) -> str:
    """The RFC 0184 projection of a tenant-bound id: ``acme/r-9f3c`` → ``acme~2Fr-9f3c``."""
    return "".join(chr(b) if b in _KEPT else f"~{b:02X}" for b in value.encode("utf-8"))


def segment_problem(value: str, *, projected: bool = False) -> str | None:
    """Why ``value`` cannot be one path segment, or ``None`` when it can. ``projected``: it goes
    through the RFC 0184 projection, where a ``/`` becomes ``~2F`` and is safe."""
    if not value:
        return "it is empty"
    if value in (".", ".."):
        return "a dot segment would be removed from the URL and reach another route"
    if len(value) > MAX_ID_CHARS:
        return f"it is longer than {MAX_ID_CHARS:,} characters"
    if any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in value):
        return "it holds a control character"
    if not projected and ("/" in value or "\\" in value):
        slash = "/" if "/" in value else "\\"
        return f"a {slash!r} in it could split it in two and reach another route"
    return None


def _shown(value: str) -> str:
    text = value if len(value) <= 60 else value[:59] + "…"
    return repr(text)  # repr: a control character shows as its escape


def path_segment(value: str, *, major: int, tenant_bound: bool = False, what: str = "id") -> str:
    """``value`` as one URL path segment; raises `UnsafeId` for an id that cannot be one.

    Args:
        value: The id.
        major: The protocol major version; ids are projected only under 2 and later.
        tenant_bound: True for ids bound to a tenant (run ids), which are projected under v2;
            everything else (and every v1 id) is percent-encoded.
        what: What the id is, as the error names it (``run id``, ``node id``…).
    """
    projected = major >= 2 and tenant_bound
    problem = segment_problem(value, projected=projected)
    if problem is not None:
        raise UnsafeId(f"The {what} {_shown(value)} cannot be used in a URL: {problem}.")
    if projected:
        return project_id(value)
    return quote(value, safe="~")
