"""openwop-tui: a terminal chat client for OpenWOP hosts.

Layers, from the wire up: `openwop_tui.protocol` (HTTP, SSE, events, envelopes, media policy;
no Textual), `openwop_tui.core.fold` (the pure fold), `openwop_tui.renderers` (the registry and
one renderer per display family), and the Textual app (`openwop_tui.ui.app`, widgets, screens).
"""

__version__ = "0.1.0"
