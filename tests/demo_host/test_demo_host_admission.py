"""The demo host refuses, before any run exists, a message part it will not take: inline bytes
over its own ``aiProviders.maxInlineMediaBytes`` (in any message), and a URL that is not one of
its assets the caller may read (in the message it reads). Real loopback HTTP, v1 and v2; each
refusal is ``400 validation_error`` whose sentence names the part and what to do, and whose v2
body is the conformance schema's error envelope."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conformance_schemas import error_problems
from demo_drive import Scenario, run
from media_parts import UPLOAD, b64, part, said, two_colour_png, upload
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost

CAP = 262_144
OTHER_KEY = "acme-key"
V2 = {"OpenWOP-Version": "2"}


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0, protocol=2, more_keys={OTHER_KEY: "acme"}) as demo:
        yield demo


def _client(host: DemoHost, key: str, **headers: str) -> httpx.Client:
    headers["Authorization"] = f"Bearer {key}"
    return httpx.Client(base_url=host.url, headers=headers, timeout=PATIENCE)


@pytest.fixture(scope="module")
def http(host: DemoHost) -> Iterator[httpx.Client]:
    with _client(host, host.api_key) as client:
        yield client


def _text(size: int) -> bytes:
    """``size`` bytes of plain text: ``a b`` lines (``size`` a multiple of 4)."""
    assert size % 4 == 0
    return b"a b\n" * (size // 4)


def _runs(http: httpx.Client) -> list[str]:
    return [r["runId"] for r in http.get("/v1/runs", params={"limit": 100}).json()["runs"]]


def _refused(http: httpx.Client, inputs: dict[str, Any], major: int = 1) -> dict[str, Any]:
    """Ask for a ``demo.chat`` run with ``inputs``; check it is refused with 400 and that no
    run was made; the error body.

    Args:
        http: A keyed client.
        inputs: The run's inputs.
        major: 1: ``POST /v1/runs``; 2: ``POST /runs`` with ``OpenWOP-Version: 2``.
    """
    before = _runs(http)
    path, headers = ("/v1/runs", {}) if major == 1 else ("/runs", V2)
    response = http.post(path, json={"workflowId": "demo.chat", "inputs": inputs}, headers=headers)
    assert response.status_code == 400, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == "validation_error"
    if major == 2:
        assert error_problems(400, body) == []
    assert _runs(http) == before, "a refused run must leave no run behind"
    return body


def _reply(host: DemoHost, inputs: dict[str, Any]) -> str:
    _, events = run(host, Scenario("turn", "demo.chat", inputs), 1)
    assert events[-1]["type"] == "run.completed", events[-1]
    done = next(e for e in events if e["type"] == "node.completed" and e["nodeId"] == "reply")
    completion: str = done["payload"]["outputs"]["completion"]
    return completion


def test_discovery_states_the_cap_that_is_enforced(http: httpx.Client) -> None:
    assert http.get("/.well-known/openwop").json()["aiProviders"]["maxInlineMediaBytes"] == CAP


# ---------------------------------------------------------------------------- inline bytes


def test_an_inline_part_at_the_cap_is_read(host: DemoHost) -> None:
    data = _text(CAP)
    reply = _reply(host, said(part("file", "text/plain", data, name="full.txt"), text="hi"))
    assert f"`full.txt` (text/plain, {CAP:,} bytes, inline): 65,536 lines, 131,072 words." in reply


@pytest.mark.parametrize("major", [1, 2])
def test_an_inline_part_one_byte_over_is_refused_naming_its_size_and_the_cap(
    http: httpx.Client, major: int
) -> None:
    over = _text(CAP) + b"!"
    body = _refused(
        http, said(part("file", "text/plain", over, name="picture.txt"), text="hi"), major
    )
    assert body["message"] == (
        "the message's part 2 (picture.txt) is 262,145 bytes inline, over the 262,144 bytes "
        "(256 KiB) this host takes inline (aiProviders.maxInlineMediaBytes): upload it "
        f"(POST {UPLOAD}) and send the url it answers instead"
    )
    assert body["details"] == {
        "field": "inputs.messages[2].content[1].dataBase64",
        "maxInlineMediaBytes": CAP,
        "receivedBytes": CAP + 1,
        "uploadRoute": UPLOAD,
    }


def test_an_earlier_message_over_the_cap_is_refused_too(http: httpx.Client) -> None:
    big = part("image", "image/png", dataBase64=b64(two_colour_png()) + "A" * (CAP * 4 // 3))
    inputs = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look"}, big]},
            {"role": "assistant", "content": "a picture"},
            {"role": "user", "content": "and now?"},
        ]
    }
    body = _refused(http, inputs)
    assert body["message"].startswith("message 1's part 2 (image/png) is ")
    assert body["details"]["field"] == "inputs.messages[0].content[1].dataBase64"
    assert body["details"]["receivedBytes"] > CAP


def test_text_that_is_not_base64_is_held_to_the_cap_too(http: httpx.Client) -> None:
    garbage = "@" * (CAP * 4 // 3 + 6)  # not base64, and not even a base64 length
    body = _refused(http, said(part("file", "text/plain", dataBase64=garbage, name="x.txt")))
    assert body["details"]["receivedBytes"] == len(garbage) * 3 // 4 > CAP


# -------------------------------------------------------------------------------------- URLs


def test_a_url_elsewhere_is_refused_and_never_fetched(http: httpx.Client) -> None:
    with socket.create_server(("127.0.0.1", 0)) as elsewhere:
        elsewhere.setblocking(False)
        port = elsewhere.getsockname()[1]
        url = f"http://127.0.0.1:{port}/picture.png"
        body = _refused(http, said(part("image", "image/png", url=url, alt="far"), text="hi"))
        with pytest.raises(BlockingIOError):  # nobody ever connected
            elsewhere.accept()
    assert body["message"] == (
        f"the message's part 2 (far) names a URL on `http://127.0.0.1:{port}`, not this host: "
        f"it reads only parts sent inline or uploaded to it (POST {UPLOAD}), and fetches nothing "
        "elsewhere"
    )
    assert body["details"] == {"field": "inputs.messages[2].content[1].url", "uploadRoute": UPLOAD}


@pytest.mark.parametrize("major", [1, 2])
def test_another_tenants_upload_is_refused_as_if_it_did_not_exist(
    host: DemoHost, http: httpx.Client, major: int
) -> None:
    with _client(host, OTHER_KEY) as other:
        theirs = upload(other, b"acme's secret\n", "text/plain", "secret.txt").json()["url"]
    never = theirs[: theirs.rindex("/") + 1] + "A" * 43  # a token no upload has
    said_of = [
        _refused(http, said(part("file", "text/plain", url=url, name="n.txt")), major)
        for url in (theirs, never)
    ]
    assert said_of[0] == said_of[1]  # nothing tells another tenant's upload from none
    assert said_of[0]["message"] == (
        "the message's part 1 (n.txt) names no upload of yours on this host: upload the file "
        f"with your own key (POST {UPLOAD}) and send the url it answers"
    )
    assert "secret" not in str(said_of[0])


def test_a_path_on_this_host_that_is_no_asset_is_refused(
    host: DemoHost, http: httpx.Client
) -> None:
    body = _refused(http, said(part("file", "application/json", url=f"{host.url}/v1/runs")))
    assert "names no upload of yours on this host" in body["message"]


def test_your_own_upload_is_read_by_its_absolute_or_its_relative_url(
    host: DemoHost, http: httpx.Client
) -> None:
    url = upload(http, b"one two\n", "text/plain", "mine.txt").json()["url"]
    relative = url.removeprefix(host.url)
    assert relative.startswith("/")
    for given in (url, relative):
        reply = _reply(host, said(part("file", "text/plain", url=given)))
        assert "`mine.txt` (text/plain, 8 bytes, uploaded): 1 line, 2 words." in reply


def test_an_earlier_messages_url_is_not_checked(host: DemoHost) -> None:
    """No workflow reads it, and a session continued after the host restarted carries upload
    URLs this host never made: the turn goes on."""
    gone = part("image", "image/png", url="http://127.0.0.1:9/v1/host/openwop-tui-demo/assets/x")
    inputs = {
        "messages": [
            {"role": "user", "content": [gone]},
            {"role": "assistant", "content": "a picture"},
            {"role": "user", "content": "hello again"},
        ]
    }
    assert "What you sent" not in _reply(host, inputs)
