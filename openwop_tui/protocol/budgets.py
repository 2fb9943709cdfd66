"""Download budgets as plain values, importable without httpx (the configuration reads them).

`openwop_tui.protocol.media` enforces them; it re-exports `DEFAULT_MAX_BYTES`.
"""

from __future__ import annotations

#: The download ceiling when none is configured.
DEFAULT_MAX_BYTES = 16_000_000
