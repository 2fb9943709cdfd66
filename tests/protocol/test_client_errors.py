"""`HostClient` errors, each a `HostError` with a sentence: network failures, HTTP errors from
401 to 503 (with the host's own message, Retry-After and details), bodies that are not what a
success should be, an API key never shown, control characters made visible, invalid base URLs.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest
from client_support import KEY, answer, make_client, raising

from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.text.sanitize import clean


async def test_connection_refused_on_a_real_closed_port() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with HostClient(f"http://127.0.0.1:{port}", KEY) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.message == (
        f"Cannot reach http://127.0.0.1:{port} — connection refused. Is the host running?"
    )
    assert caught.value.code == "connection_refused"
    assert caught.value.status is None


@pytest.mark.parametrize(
    ("error", "code", "fragment"),
    [
        (httpx.ConnectError("[Errno 111] Connection refused"), "connection_refused", "refused"),
        (
            httpx.ConnectError("[Errno -2] Name or service not known"),
            "dns_failure",
            "the name '127.0.0.1' does not resolve",
        ),
        (httpx.ConnectTimeout("timed out"), "timeout", "no answer within 10 s"),
        (httpx.ReadTimeout("timed out"), "timeout", "did not answer within 10 s"),
        (
            httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"),
            "tls_error",
            "TLS handshake failed",
        ),
        (httpx.RemoteProtocolError("peer closed"), "connection_error", "RemoteProtocolError"),
    ],
)
async def test_network_errors(error: Exception, code: str, fragment: str) -> None:
    async with make_client(raising(error)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.code == code
    assert fragment in caught.value.message
    assert "Traceback" not in caught.value.message


async def test_dns_failure_names_the_host() -> None:
    async with make_client(
        raising(httpx.ConnectError("[Errno -3] Temporary failure in name resolution")),
        base="https://no-such-host.invalid",
    ) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert caught.value.message == (
        "Cannot reach https://no-such-host.invalid — the name 'no-such-host.invalid' does not "
        "resolve (DNS lookup failed). Check the host URL."
    )


async def test_401_with_key() -> None:
    async with make_client(answer(401, {"error": "unauthorized", "message": "bad key"})) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert caught.value.message == (
        "The host rejected the API key (401 unauthorized). Set --api-key or OPENWOP_API_KEY."
    )
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")
    # Kept apart for a front end that words its own advice (the app's settings screen).
    assert caught.value.key_trouble == "rejected"
    assert caught.value.problem == "The host rejected the API key (401 unauthorized)."


async def test_401_without_key() -> None:
    async with make_client(answer(401, ""), api_key=None) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.message == (
        "The host needs an API key (401 unauthorized). Set --api-key or OPENWOP_API_KEY."
    )
    assert caught.value.key_trouble == "missing"


async def test_403() -> None:
    async with make_client(answer(403, {"error": "forbidden", "message": "scope"})) as client:
        with pytest.raises(HostError) as caught:
            await client.cancel_run("r")
    assert "403 forbidden" in caught.value.message
    assert "Set --api-key or OPENWOP_API_KEY" in caught.value.message
    assert caught.value.key_trouble == "scope"
    assert "--api-key" not in caught.value.problem


async def test_other_refusals_are_not_about_the_key() -> None:
    tenant = {"error": "id_tenant_mismatch", "message": "not yours"}
    async with make_client(answer(403, tenant)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.key_trouble is None
    assert caught.value.problem == caught.value.message


async def test_404_workflow_not_found_with_host_message() -> None:
    body = {
        "error": "workflow_not_found",
        "message": "Unknown workflow 'chatt'. Available: chat, echo.",
    }
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("chatt")
    assert caught.value.message == (
        "The host has no workflow 'chatt' (404 workflow_not_found). "
        "Host says: Unknown workflow 'chatt'. Available: chat, echo."
    )
    assert caught.value.code == "workflow_not_found"


async def test_404_workflow_not_found_without_message() -> None:
    async with make_client(answer(404, {"error": "workflow_not_found"})) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("nope")
    assert caught.value.message == "The host has no workflow 'nope' (404 workflow_not_found)."


async def test_404_run_not_found() -> None:
    body = {"error": "run_not_found", "message": "Unknown runId: r9"}
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r9")
    assert caught.value.message.startswith("The host does not know run 'r9' (404 run_not_found).")


@pytest.mark.parametrize(
    ("status", "body", "headers", "fragment"),
    [
        (
            409,
            {"error": "run_already_active", "message": "dedup"},
            {"Retry-After": "3"},
            "already active on the host (409 run_already_active; retry after 3 s)",
        ),
        (
            409,
            {"error": "idempotency_key_mismatch", "message": "different body"},
            None,
            "Idempotency-Key with a different body (409 idempotency_key_mismatch)",
        ),
        (
            409,
            {"error": "idempotency_in_flight", "message": "busy"},
            None,
            "still processing an identical request (409 idempotency_in_flight)",
        ),
        (
            422,
            {"error": "capability_required", "message": "needs conversationPrimitive"},
            None,
            "needs a capability this host does not have (422 capability_required). "
            "Host says: needs conversationPrimitive.",
        ),
        (
            429,
            {"error": "rate_limited", "message": "slow down", "details": {"retryAfterMs": 7000}},
            {"Retry-After": "7"},
            "rate limiting requests (429 rate_limited; retry after 7 s)",
        ),
        (500, "Internal Server Error", None, "body is not JSON: 'Internal Server Error'"),
        (503, {"error": "runner_unavailable"}, None, "unavailable (503 runner_unavailable)"),
        (
            400,
            {"error": "validation_error", "message": "inputs MUST be an object"},
            None,
            "rejected the request to start workflow 'w' (400 validation_error)",
        ),
        (302, "", {"Location": "https://elsewhere.example/v1/runs"}, "redirects are not followed"),
    ],
)
async def test_http_errors(
    status: int, body: Any, headers: dict[str, str] | None, fragment: str
) -> None:
    async with make_client(answer(status, body, headers)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert fragment in caught.value.message
    assert caught.value.status == status


async def test_retry_after_and_details_kept() -> None:
    body = {"error": "rate_limited", "message": "m", "details": {"retryAfterMs": 7000}}
    async with make_client(answer(429, body, {"Retry-After": "7"})) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.retry_after == 7.0
    assert caught.value.details == {"retryAfterMs": 7000}


async def test_nested_error_object_is_read() -> None:
    body = {"error": {"code": "not_found", "message": "Unknown runId: r"}}
    async with make_client(answer(404, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert caught.value.code == "not_found"
    assert "Unknown runId: r" in caught.value.message


@pytest.mark.parametrize(
    ("status", "body", "fragment"),
    [
        (201, "not json at all", "body is not JSON: 'not json at all'"),
        (201, {"status": "pending"}, "has no runId"),
        (201, [1, 2], "sent a JSON list instead of a JSON object"),
        (201, "", "sent an empty body instead of a JSON object"),
    ],
)
async def test_unexpected_success_bodies(status: int, body: Any, fragment: str) -> None:
    async with make_client(answer(status, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert caught.value.code == "bad_response"
    assert fragment in caught.value.message


async def test_api_key_never_in_messages_even_when_echoed() -> None:
    body = {"error": "unauthorized", "message": f"key {KEY} is revoked"}
    for status in (400, 401, 403, 500):
        async with make_client(answer(status, body)) as client:
            with pytest.raises(HostError) as caught:
                await client.get_run("r")
        assert KEY not in caught.value.message
        assert KEY not in repr(caught.value)
    async with make_client(answer(500, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "[api key]" in caught.value.message
    assert KEY not in repr(client)


async def test_control_characters_from_host_are_made_visible() -> None:
    body = {"error": "bad", "message": "evil \x1b]52;c;AAAA\x07 text"}
    async with make_client(answer(400, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "\x1b" not in caught.value.message
    # Shown as `openwop_tui.text.sanitize.clean` shows it (was the escape `\u001b`).
    assert "evil ␛]52;c;AAAA␇ text" in caught.value.message


@pytest.mark.parametrize("url", ["ftp://example.com", "example.com", "http://h:99999", "http://"])
def test_invalid_base_url(url: str) -> None:
    with pytest.raises(HostError) as caught:
        HostClient(url)
    assert caught.value.code == "invalid_url"


#: Everything a terminal would act on or reorder: ESC (OSC 52, CSI), BEL, C1 CSI, bidi overrides.
HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\u202eexe.txt\u2066\r\n"
TERMINAL_ACTIVE = ["\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\r", "\n"]


def assert_terminal_safe(message: str) -> None:
    assert not [ch for ch in TERMINAL_ACTIVE if ch in message], message


@pytest.mark.parametrize(
    "status", [400, 401, 403, 404, 409, 410, 422, 426, 429, 500, 503, 406, 418]
)
@pytest.mark.parametrize(
    "body",
    [
        {"error": HOSTILE, "message": HOSTILE},
        {"error": {"code": HOSTILE, "message": HOSTILE}},
        {"error": HOSTILE},
    ],
    ids=["flat", "nested", "code-only"],
)
async def test_host_error_codes_and_messages_are_cleaned(status: int, body: Any) -> None:
    # Regression: the host's `error` code went into the message verbatim.
    async with make_client(answer(status, body)) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert_terminal_safe(caught.value.message)
    # The code is cleaned where the body is decoded (hostdata): only printable text leaves it.
    assert caught.value.code == clean(HOSTILE)


async def test_host_error_code_shows_as_sanitize_clean_shows_it() -> None:
    async with make_client(answer(409, {"error": "x\x1b[2J\x9by\u202e"})) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "(409 x␛[2J<U+009B>y<U+202E>)" in caught.value.message


async def test_long_host_error_code_is_cut() -> None:
    async with make_client(answer(400, {"error": "c" * 5000})) as client:
        with pytest.raises(HostError) as caught:
            await client.get_run("r")
    assert "(400 " + "c" * 63 + "…)" in caught.value.message


@pytest.mark.parametrize(
    ("status", "body", "headers"),
    [
        (400, HOSTILE, None),  # not JSON
        (400, [HOSTILE], None),  # JSON, not an object
        # Header bytes arrive as Latin-1 (C1 controls) or UTF-8 (here U+202E).
        (302, "", [(b"location", "https://x.example/\x9b".encode("latin-1"))]),
        (302, "", [(b"location", "https://x.example/\u202e".encode())]),
        (201, HOSTILE, None),  # a success whose body is not JSON
        (201, {"status": HOSTILE}, None),  # no runId
    ],
)
async def test_every_host_text_in_a_message_is_cleaned(
    status: int, body: Any, headers: list[tuple[bytes, bytes]] | None
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(status, content=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)

    async with make_client(handler) as client:
        with pytest.raises(HostError) as caught:
            await client.create_run("w")
    assert_terminal_safe(caught.value.message)


async def test_content_type_of_a_non_json_discovery_answer_is_cleaned() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"<html>", headers=[(b"content-type", b"text/\x9bhtml")])

    async with make_client(handler) as client:
        with pytest.raises(HostError) as caught:
            await client.discover()
    assert_terminal_safe(caught.value.message)
    assert "text/<U+009B>html" in caught.value.message


def test_excerpt_matches_sanitize_clean_and_stays_on_one_line() -> None:
    from openwop_tui.protocol.errors import excerpt
    from openwop_tui.text.sanitize import clean

    text = "a\x1b[31mb\x9b\u202ec\x7f"
    assert excerpt(text) == clean(text)
    assert excerpt("one\r\ntwo\nthree\tfour\u2028five") == "one␊two␊three␉four<U+2028>five"
    # A cut never leaves half a marker behind.
    assert excerpt("a" * 10 + "\u202e", limit=14) == "a" * 10 + "…"
    assert excerpt("é" * 1000, limit=20) == "é" * 19 + "…"
