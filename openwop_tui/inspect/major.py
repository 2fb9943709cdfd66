"""Which protocol major wrote a stream, read from the stream itself.

A v1 and a v2 event look alike (protocol.md §1.3; ``spec/v2/core/versioning.md``): most type
names are the same and both may carry ``schemaVersion``. What tells them apart, event by event:

* a type name only one catalogue has (v2 spells ``agent.tool-called`` what v1 spells
  ``agent.toolCalled``);
* ``engineVersion``: an integer in v2, a string in v1;
* the run id: v2 run ids are tenant-bound, ``<tenant>/<opaque>`` (``spec/v2/core/runs.md``
  §Identity); a v1 id is opaque and no host puts a ``/`` in it (it travels in a URL path);
* ``schemaVersion``: REQUIRED on every v2 event, optional in v1 (so only its absence tells).

`mark` answers for one document; the linter takes the first answer of a stream for the whole
log (a recording is one host's), unless ``--protocol`` or the host itself said. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openwop_tui.inspect.schemas import SchemaSet, short


def mark(raw: Mapping[str, Any], schemas: SchemaSet) -> tuple[int, str] | None:
    """The major ``raw`` (an event document) shows it was written by, and what shows it."""
    name = raw.get("type")
    if isinstance(name, str):
        if name in schemas.v2_types and name not in schemas.v1_types:
            return 2, f"event type {short(name)} is a v2 name"
        if name in schemas.v1_types and name not in schemas.v2_types:
            return 1, f"event type {short(name)} is a v1 name"
    engine = raw.get("engineVersion")
    if isinstance(engine, int) and not isinstance(engine, bool):
        return 2, "engineVersion is an integer"
    if isinstance(engine, str):
        return 1, "engineVersion is a string"
    run_id = raw.get("runId")
    if isinstance(run_id, str) and "/" in run_id.strip("/"):
        return 2, f"run id {short(run_id)} is tenant-bound"
    if isinstance(name, str) and "schemaVersion" not in raw:
        return 1, "an event without schemaVersion, which v2 requires"
    return None
