"""Documents for the lazy JSON view's tests (``test_json_rows``, ``test_json_tree``): a 10 MB
envelope shaped like a real one (a table of records and an inline blob), and its run event
through the real normalisation and extraction, as the inspector gets it."""

from __future__ import annotations

import json
from typing import Any

from openwop_tui.protocol.envelopes import Envelope, extract_envelopes
from openwop_tui.protocol.events import normalize

TEN_MB = 10_000_000


def big_document(size: int = TEN_MB) -> dict[str, Any]:
    """An envelope of at least ``size`` bytes of JSON: records (about 70 % of it) and base64."""
    blob = "QUJD" * (size * 3 // 10 // 4)
    record_bytes = len(json.dumps(_record(0))) + 2
    rows = [_record(n) for n in range((size - len(blob)) // record_bytes + 1)]
    return {
        "type": "vendor.acme.table",
        "envelopeId": "env_big",
        "meta": {"rendering": {"display": "vendor.acme.table", "title": "Everything"}},
        "payload": {
            "columns": ["id", "name", "tags", "score", "detail"],
            "rows": rows,
            "blob": blob,
        },
    }


def _record(n: int) -> dict[str, Any]:
    return {
        "id": n,
        "name": f"row number {n}",
        "tags": ["alpha", "beta"],
        "score": n / 7,
        "detail": {"ok": n % 2 == 0, "note": None},
    }


def envelope_of(document: dict[str, Any]) -> Envelope:
    """``document`` as the one envelope of a ``node.completed`` event."""
    event = normalize(
        {
            "type": "node.completed",
            "runId": "run_big",
            "sequence": 7,
            "nodeId": "n1",
            "payload": {"nodeId": "n1", "outputs": {"envelope": document}},
        }
    )
    (found,) = extract_envelopes(event)
    return found
