"""The embedded demo host: a real OpenWOP v1 server on loopback that shows every envelope.

The app starts one in-process by default, so a newcomer sees markdown, code, cards, images,
audio, files and every degraded case with one command. ``openwop-tui demo-host`` runs one in
the foreground for other clients.

Modules: `host` (`DemoHost`, `serve_forever`), `server` and `routes` (HTTP), `run_list`
(``GET /runs``), `openapi` (``/openapi.json``), `discovery` (v1 and v2), `sse` (stream modes
and frames), `runs` (event logs and workflow threads), `steps`, `workflows`, `chat` and `tour`
(what runs produce), `media` and `assets` (the bytes behind media URLs), `mediatypes`,
`uploads`, `admission`, `attachments` and `describe` (what a person sends: uploads, what a
run start refuses, and reading them), `text_only` (``demo.text``). What it sends is checked
against the OpenWOP conformance schemas (``tests/demo_host/test_demo_host_conformance.py``).
"""

from openwop_tui.demo_host.host import DEFAULT_API_KEY, DemoHost, serve_forever

__all__ = ["DEFAULT_API_KEY", "DemoHost", "serve_forever"]
