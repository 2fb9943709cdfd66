"""Shared helpers for the `test_client_*` files: a `HostClient` on an `httpx.MockTransport`, canned
answers, and the captured discovery documents of the reference hosts.

A plain module, not a test file: the tests import it as ``from client_support import ...`` (tests/
has no ``__init__.py``, so pytest puts tests/ itself on ``sys.path``, as for `render_helpers`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from openwop_tui.protocol.client import HostClient

CAPTURES = Path(__file__).parent / "data" / "captures"
BASE = "http://127.0.0.1:8765"
KEY = "sk-secret-test-key-123"

Handler = Callable[[httpx.Request], httpx.Response]


def wellknown(host: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((CAPTURES / f"{host}-host-wellknown.json").read_text())
    return doc


def make_client(handler: Handler, api_key: str | None = KEY, base: str = BASE) -> HostClient:
    return HostClient(base, api_key, transport=httpx.MockTransport(handler))


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, str | bytes):
            return httpx.Response(status, content=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    return handler


def raising(error: Exception) -> Handler:
    def handler(request: httpx.Request) -> httpx.Response:
        raise error

    return handler
