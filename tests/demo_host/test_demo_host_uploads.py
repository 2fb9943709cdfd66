"""The demo host's side of "answer in every medium" (issue 25, part 7), over real loopback HTTP:
discovery says what it reads and where uploads go, and the upload route stores an attachment
as a tenant-scoped asset or refuses it saying why (protocol.md §12; RFC 0055 §A, §C)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conformance_schemas import discovery_v2_problems
from demo_drive import chat, run
from media_parts import UPLOAD, b64, noise_png, two_colour_png, upload
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost

MiB = 1024 * 1024
ALLOWED = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
    "text/plain",
    "text/markdown",
    "application/json",
    "text/csv",
    "audio/ogg",
    "audio/wav",
]
OTHER_KEY = "another-tenants-key"


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    # A small request limit: uploads must not be bound by it. A second key is a second tenant.
    with DemoHost(
        pace=0, keepalive=0, protocol=2, max_body_bytes=4096, more_keys={OTHER_KEY: "acme"}
    ) as demo:
        yield demo


def _client(host: DemoHost, key: str | None, **headers: str) -> httpx.Client:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.Client(base_url=host.url, headers=headers, timeout=PATIENCE)


@pytest.fixture
def keyed(host: DemoHost) -> Iterator[httpx.Client]:
    with _client(host, host.api_key) as http:
        yield http


def _refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error"] == code and set(body) <= {"error", "message", "details"}
    return body


# -------------------------------------------------------------------------------- discovery


def test_v1_discovery_advertises_reading_and_the_upload_route(host: DemoHost) -> None:
    doc = httpx.get(f"{host.url}/.well-known/openwop").json()
    assert {"vision-input", "audio-input", "image-output", "audio-output"} <= set(
        doc["modelCapabilities"]["advertised"]
    )
    providers = doc["aiProviders"]
    assert providers["maxInlineMediaBytes"] == 262144
    assert providers["mediaUpload"] == {
        "route": UPLOAD,
        "maxBytes": 6 * MiB,
        "contentTypes": ALLOWED,
    }
    assert providers["input"]["maxBytesPerPart"] == 6 * MiB


def test_v2_discovery_keeps_its_closed_records_and_names_the_route_in_an_extension(
    host: DemoHost,
) -> None:
    doc = httpx.get(f"{host.url}/.well-known/openwop", headers={"OpenWOP-Version": "2"}).json()
    assert discovery_v2_problems(doc) == []
    assert {"vision-input", "audio-input"} <= set(doc["modelCapabilities"]["advertised"])
    providers = doc["aiProviders"]
    assert providers["maxInlineMediaBytes"] == 262144
    # v2's aiProviders record is closed: its own facet for what a person may send…
    assert providers["input"] == {
        "modalities": ["text", "image", "audio", "document"],
        "maxBytesPerPart": 6 * MiB,
    }
    assert "mediaUpload" not in providers
    # …and the host's route under its extensions.
    assert doc["extensions"]["openwop-tui.media-upload"]["route"] == UPLOAD


def test_openapi_lists_the_upload_route(host: DemoHost) -> None:
    paths = httpx.get(f"{host.url}/openapi.json").json()["paths"]
    assert set(paths[UPLOAD]) == {"post"}


# ----------------------------------------------------------------------------- the upload


def test_an_upload_is_stored_and_read_back_byte_for_byte(
    host: DemoHost, keyed: httpx.Client
) -> None:
    data = noise_png((300, 300))  # about 270 KB: over the inline cap and the 4 KB body limit
    response = upload(keyed, data, "image/png", "noise.png")
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {"url", "assetId", "contentType", "bytes"}
    assert body["url"].startswith(f"{host.url}/v1/host/") and body["url"].endswith(body["assetId"])
    assert body["contentType"] == "image/png" and body["bytes"] == len(data)
    assert response.headers["location"] == body["url"]
    fetched = keyed.get(body["url"])
    assert fetched.status_code == 200
    assert fetched.content == data
    assert fetched.headers["content-type"] == "image/png"
    assert fetched.headers["cache-control"].startswith("private")


def test_the_upload_route_takes_the_v2_header_and_answers_text_types(
    host: DemoHost,
) -> None:
    # A v2 client sends OpenWOP-Version on every call: the host route serves it all the same.
    with _client(host, host.api_key, **{"OpenWOP-Version": "2"}) as http:
        response = upload(http, b"# Notes\n\nsome words\n", "text/markdown; charset=utf-8")
    assert response.status_code == 201, response.text
    assert response.json()["contentType"] == "text/markdown"


def test_an_upload_over_the_cap_is_413_with_its_size_and_the_cap(keyed: httpx.Client) -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(6 * MiB - 7)  # one byte over
    body = _refused(upload(keyed, data, "image/png"), 413, "payload_too_large")
    assert str(6 * MiB + 1) in body["message"] and str(6 * MiB) in body["message"]
    assert body["details"] == {"maxBytes": 6 * MiB, "receivedBytes": 6 * MiB + 1}


def test_a_body_over_the_routes_own_limit_is_413_too(keyed: httpx.Client) -> None:
    body = {"contentBase64": "A" * (10 * MiB), "contentType": "image/png", "name": "big"}
    refused = _refused(keyed.post(UPLOAD, json=body), 413, "payload_too_large")
    assert str(9 * MiB) in refused["message"] and str(6 * MiB) in refused["message"]


@pytest.mark.parametrize("content_type", ["image/bmp", "video/mp4", "application/zip", ""])
def test_a_type_not_on_the_list_is_415(keyed: httpx.Client, content_type: str) -> None:
    body = _refused(upload(keyed, b"anything", content_type), 415, "unsupported_media_type")
    assert "image/png" in body["message"]  # it says what it takes
    assert body["details"]["accepted"] == ALLOWED


@pytest.mark.parametrize(
    ("data", "content_type", "said"),
    [
        (two_colour_png(), "application/pdf", "PNG image, not application/pdf"),
        (b"%PDF-1.4 not a picture", "image/png", "PDF document, not image/png"),
        (b"just some words", "image/png", "not a PNG image"),
        (b"GIF89a......", "image/jpeg", "GIF image, not image/jpeg"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "audio/wav", "WebP image, not audio/wav"),
        (b"RIFF\x00\x00\x00\x00WAVEfmt ", "audio/ogg", "WAV file, not audio/ogg"),
        (b"\xff\xfe\x00caf\xe9", "text/plain", "not UTF-8"),
        (b'{"open": ', "application/json", "not valid JSON"),
        (two_colour_png(), "text/csv", "PNG image, not text/csv"),
    ],
)
def test_bytes_that_are_not_what_they_say_are_415(
    keyed: httpx.Client, data: bytes, content_type: str, said: str
) -> None:
    body = _refused(upload(keyed, data, content_type), 415, "unsupported_media_type")
    assert said in body["message"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"contentBase64": "not base64!", "contentType": "text/plain"}, "not valid base64"),
        ({"contentBase64": "QUJD\nREVG", "contentType": "text/plain"}, "not valid base64"),
        ({"contentBase64": "", "contentType": "text/plain"}, "is empty"),
        ({"contentType": "text/plain", "name": "x"}, "'contentBase64' is missing"),
        ({"contentBase64": b64(b"hi"), "name": "x"}, "'contentType' is missing"),
        ({"contentBase64": 12, "contentType": "text/plain"}, "must be a string"),
        ({"contentBase64": b64(b"hi"), "contentType": "text/plain", "name": 3}, "'name' must"),
        ([], "must be a JSON object"),
    ],
)
def test_a_malformed_upload_is_400(keyed: httpx.Client, body: Any, said: str) -> None:
    refused = _refused(keyed.post(UPLOAD, json=body), 400, "validation_error")
    assert said in refused["message"]


def test_a_body_that_is_not_json_is_400(keyed: httpx.Client) -> None:
    response = keyed.post(UPLOAD, content=b"{nope", headers={"Content-Type": "application/json"})
    assert "not valid JSON" in _refused(response, 400, "validation_error")["message"]


def test_uploading_needs_a_key_and_a_post(host: DemoHost, keyed: httpx.Client) -> None:
    with _client(host, None) as anonymous:
        _refused(upload(anonymous, b"hi", "text/plain"), 401, "unauthorized")
    with _client(host, "wrong-key") as wrong:
        _refused(upload(wrong, b"hi", "text/plain"), 401, "unauthorized")
    _refused(keyed.get(UPLOAD), 405, "method_not_allowed")


# ---------------------------------------------------------------------------- the tenant


def test_an_upload_is_served_only_to_its_tenant(host: DemoHost, keyed: httpx.Client) -> None:
    data = b"only for the demo tenant\n"
    url = upload(keyed, data, "text/plain", "mine.txt").json()["url"]
    assert keyed.get(url).content == data
    assert keyed.head(url).status_code == 200
    with _client(host, None) as anonymous:
        _refused(anonymous.get(url), 401, "unauthorized")
    with _client(host, OTHER_KEY) as other:
        # Another tenant learns nothing: the same answer as a token never issued.
        _refused(other.get(url), 404, "not_found")
        _refused(other.get(url[:-4] + "xxxx"), 404, "not_found")
        assert other.head(url).status_code == 404
        # Its own uploads are its own, and not the first tenant's.
        theirs = upload(other, b"acme's file\n", "text/plain").json()["url"]
        assert other.get(theirs).content == b"acme's file\n"
    assert keyed.get(theirs).status_code == 404


def test_the_workflows_own_assets_stay_open_to_their_token(host: DemoHost) -> None:
    """What a run makes (the chat's chart) is still served on its token alone."""
    _, events = run(host, chat("image", "an image please"), 1)
    urls = [
        e["payload"]["outputs"]["envelope"]["payload"]["url"]
        for e in events
        if e["type"] == "node.completed" and "envelope" in e["payload"]["outputs"]
    ]
    assert urls and httpx.get(urls[0]).status_code == 200  # no key at all


# -------------------------------------------------------------------------------- the log


def test_each_upload_and_refusal_is_logged(
    keyed: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="openwop_tui.demo_host")
    body = upload(keyed, b"a line\n", "text/plain", "note.txt").json()
    upload(keyed, b"x", "image/bmp")
    lines = [r.getMessage() for r in caplog.records if r.name == "openwop_tui.demo_host.uploads"]
    assert (
        f"media upload: name='note.txt' type=text/plain bytes=7 asset={body['assetId']} tenant=demo"
    ) in lines
    assert any(line.startswith("media upload refused: 415") for line in lines)


def test_base64_of_the_url_safe_alphabet_is_refused(keyed: httpx.Client) -> None:
    text = base64.urlsafe_b64encode(b"\xfb\xff\xfe").decode()  # "-__-"
    body = {"contentBase64": text, "contentType": "text/plain", "name": "x"}
    _refused(keyed.post(UPLOAD, json=body), 400, "validation_error")
