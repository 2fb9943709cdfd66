"""Opening an embed's canvas in the user's browser (the app's ``open`` on an ``embed`` item).

The embed renderer offers ``open`` only for a public ``https:`` URL and puts it in its
degradation's reference; nothing else is handed to the browser.
"""

from __future__ import annotations

import webbrowser

from openwop_tui.devices.desktop import ActionError
from openwop_tui.openclaw.reader import check_media
from openwop_tui.renderers.base import Rendered
from openwop_tui.renderers.embed import OPEN_IN_BROWSER


def open_embed(rendered: Rendered) -> str:
    """Open the embed's URL in a browser; return what happened (raises `ActionError`)."""
    url = rendered.degradation.reference if rendered.degradation is not None else None
    if url is None or OPEN_IN_BROWSER not in rendered.actions:
        raise ActionError("this embed has no public https: URL a browser may open")
    if check_media(url).url != url:  # checked again here: the browser is outside the client
        raise ActionError("this embed's URL is not a public https: URL a browser may open")
    if not webbrowser.open(url):
        raise ActionError("no browser could be started")
    return f"opened {url} in the browser"
