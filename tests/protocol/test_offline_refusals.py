"""Offline, a media URL the policy refuses whatever the network says why it is refused, in the
online path's words; only a URL that could be fetched says it was not, offline (issue 23 item
10). Measured before: ``render`` said "not fetched: this transcript is shown offline" for
``file:``, private-address and ``javascript:`` URLs alike.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from installed import printing_env, run_installed

from openwop_tui.protocol.asset import OFFLINE_REASON
from openwop_tui.protocol.media import fetch_asset
from openwop_tui.protocol.media_policy import MediaPolicy, offline_asset

HOST = "http://127.0.0.1:8765"

REFUSED = [
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:image/png;base64,AAAA",
    "http://192.168.1.10/x.png",
    "https://10.0.0.5/y.png",
    "https://localhost/z.png",
    "http://cdn.example.com/plain.png",
    "https://user:pw@cdn.example.com/a.png",
    "vbscript:x",
]


@pytest.mark.parametrize("url", REFUSED)
@pytest.mark.parametrize("host", [HOST, None], ids=["host known", "host unknown"])
def test_a_refused_url_says_the_online_refusal(url: str, host: str | None) -> None:
    offline = offline_asset(url, host)
    online = asyncio.run(
        fetch_asset(
            url, policy=MediaPolicy(base_url=host or "https://other.example"), advertised_bytes=100
        )
    )
    assert offline.failure == "refused"
    assert offline.error == online.error and offline.error is not None
    assert offline.error.startswith("refused: ")


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://cdn.example.com/ok.png", None),
        ("https://cdn.example.com/ok.png", HOST),
        (f"{HOST}/v1/host/assets/tok", HOST),  # the run's own (loopback) host
        ("/v1/host/assets/tok", HOST),
        ("/v1/host/assets/tok", None),  # only its host could resolve it
    ],
)
def test_a_url_that_could_be_fetched_is_not_fetched_offline(url: str, host: str | None) -> None:
    asset = offline_asset(url, host)
    assert (asset.error, asset.failure, asset.url) == (OFFLINE_REASON, "not-fetched", url)


def test_render_gives_each_url_its_true_reason(tmp_path: Path) -> None:
    """The real command on a recording that names its host: the host's own loopback asset is
    'not fetched: offline'; a stranger's private address, file: and javascript: are refused."""
    urls = [
        "file:///etc/passwd",
        "http://192.168.1.10/x.png",
        "javascript:alert(1)",
        f"{HOST}/v1/host/assets/tok",
    ]
    lines = [
        ": openwop-tui recording 1",
        "",
        f': run {{"run": "r1", "workflow": "w", "host": "{HOST}"}}',
        "",
    ]
    for seq, url in enumerate(urls):
        payload = {"url": url, "mimeType": "image/png", "bytes": 100, "name": f"p{seq}.png"}
        doc = {
            "eventId": f"e{seq}",
            "runId": "r1",
            "type": "media.image",
            "payload": payload,
            "sequence": seq,
            "timestamp": "2026-11-30T10:00:00.000Z",
        }
        lines += [f"id: {seq}", "event: media.image", f"data: {json.dumps(doc)}", ""]
    (tmp_path / "media.sse").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_installed(
        ["render", str(tmp_path / "media.sse")], printing_env(tmp_path, columns=250)
    )
    why = [
        line.split("why", 1)[1].strip(" │") for line in done.stdout.splitlines() if "│ why" in line
    ]
    assert why == [
        "refused: file: URLs are never fetched",
        "refused: 192.168.1.10 is a private address and not the configured host "
        "(and plain http: is only fetched from the configured host)",
        "refused: javascript: URLs are never fetched",
        OFFLINE_REASON,
    ]
