"""The bytes behind a media envelope: from the store first, else from the host that ran it.

A media envelope names its bytes by URL. `asset_for` gives them: the session store's copy when
it has one (offline too), else the host's (fetched once, then stored), else why there are none.
A relative URL names an asset of the host that ran the envelope's run (`host_of`), which may
not be the host connected now (a reopened session) or there may be none (offline). A media
directive the policy refused is never fetched: its refusal is the answer. What an asset is
drawn with is decided above the core (`openwop_tui.present.envelope`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from openwop_tui.core.directives import refused_asset
from openwop_tui.core.origins import absolute
from openwop_tui.core.updates import NeedsBytes
from openwop_tui.openclaw.reader import check_media
from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.protocol.media import Asset
from openwop_tui.protocol.media_policy import offline_asset
from openwop_tui.store.database import StoreError
from openwop_tui.store.sessions import Store

if TYPE_CHECKING:
    from openwop_tui.core.conversation import Conversation

__all__ = ["DEFAULT_INLINE_BYTES", "asset_for", "check_link", "host_of"]

#: The spec's inline media cap, used when no host told its own (protocol.md §4.5).
DEFAULT_INLINE_BYTES = 262144


async def asset_for(
    chat: Conversation, envelope: Envelope, needs_bytes: NeedsBytes
) -> Asset | None:
    """The bytes behind ``envelope``'s ``url`` for ``chat``: stored ones first, else fetched
    from the host (and stored), else why there are none; ``None`` without a URL, or when the
    renderer for its display draws no bytes.

    Args:
        chat: The conversation the envelope came in: its host session, store and run hosts.
        envelope: The media envelope.
        needs_bytes: Whether the renderer for a display value draws bytes (the front end's
            renderer registry decides, not a list of families here).
    """
    refused = refused_asset(envelope)
    if refused is not None:
        return refused
    media = envelope.bytes_ref(needs_bytes)
    if media is None or media.url is None or media.base64 is not None:
        return None
    given = media.url
    host = host_of(chat.hosts, envelope)
    url = absolute(given, host)
    if url != given:
        media = replace(media, url=url)
    # Stores written before URLs were resolved keep the bytes under the URL as given.
    stored = _stored(chat, url) or (_stored(chat, given) if url != given else None)
    if stored is not None:
        return stored
    if chat.session is None:
        # Refused whatever the network (file:, a private address, …) says so, not "offline".
        return offline_asset(url, host)
    asset = await chat.session.asset_for(envelope, media)
    if asset is not None and asset.url:
        # The absolute URL the fetch resolved (after redirects) is what the user is shown,
        # redraw after redraw, also when the bytes come from the store.
        chat.resolved[url] = asset.url
    if asset is not None and asset.data is not None and chat.store is not None:
        try:
            chat.store.put_asset(url, asset.data, asset.content_type)
        except StoreError as error:
            chat.log_error = str(error)
    return asset


def host_of(hosts: Mapping[str, str], envelope: Envelope) -> str | None:
    """The base URL of the host whose run carried ``envelope`` (``None``: unknown), from
    ``hosts`` (run id → host). An event that names no run is the only host's when every run
    came from one."""
    run_id = envelope.source.run_id
    if run_id is not None:
        return hosts.get(run_id)
    every = set(hosts.values())
    return every.pop() if len(every) == 1 else None


def _stored(chat: Conversation, url: str) -> Asset | None:
    store: Store | None = chat.store
    if store is None:
        return None
    try:
        found = store.asset(url)
    except StoreError:
        return None
    if not found:
        return None
    return Asset(url=chat.resolved.get(url, url), data=found[0], content_type=found[1])


def check_link(url: str) -> tuple[str | None, str | None]:
    """A URL a renderer offers to a browser (an embed's), judged by the directive media policy:
    only a public ``https:`` URL is opened (`openwop_tui.renderers.base.LinkCheck`)."""
    checked = check_media(url)
    return checked.url, checked.refused
