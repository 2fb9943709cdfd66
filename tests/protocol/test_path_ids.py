"""A run id, node id or interrupt token is always one URL path segment (issue 14 item 7).

httpx (like every URL parser) removes dot segments, so ``attach ..`` asked for ``GET /v1`` and
``attach .`` for ``GET /v1/runs``; a ``/`` percent-encoded as ``%2F`` is decoded before routing
by Starlette (the demo host's framework) and many front doors. Such ids are refused before any
request, with one sentence; v2 run ids keep their RFC 0184 projection (``/`` as ``~2F``).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from openwop_tui.__main__ import main
from openwop_tui.core.hitl import submit
from openwop_tui.demo_host import DemoHost
from openwop_tui.protocol.client import HostClient, HostError
from openwop_tui.protocol.ids import UnsafeId, path_segment
from openwop_tui.protocol.interrupts import InterruptRequest

BASE = "http://127.0.0.1:9"
UNSAFE = ["", ".", "..", "a/b", "../runs", "x/cancel", "a\\b", "a\nb", "\x1b[31m", "x" * 3000]


@pytest.mark.parametrize("value", UNSAFE)
@pytest.mark.parametrize("major", [1, 2])
def test_unsafe_node_ids_and_tokens_are_refused_in_both_majors(value: str, major: int) -> None:
    with pytest.raises(UnsafeId) as refused:
        path_segment(value, major=major, what="node id")
    message = str(refused.value)
    assert message.startswith("The node id ") and "cannot be used in a URL" in message
    assert "\n" not in message and "\x1b" not in message  # one printable line


@pytest.mark.parametrize("value", ["", ".", "..", "a\nb"])
def test_v2_run_ids_refuse_dot_segments_but_project_slashes(value: str) -> None:
    with pytest.raises(UnsafeId):
        path_segment(value, major=2, tenant_bound=True, what="run id")
    assert path_segment("acme/..", major=2, tenant_bound=True) == "acme~2F.."
    assert path_segment("acme/r-1", major=2, tenant_bound=True) == "acme~2Fr-1"


def test_ordinary_ids_pass_as_they_are() -> None:
    for value in ("run_1", "run-9f3c", "a.b.c", "...", ".x", "é", "a~b", "tok%2F"):
        assert path_segment(value, major=1) not in ("", ".", "..")
    assert path_segment("a b?#%", major=1) == "a%20b%3F%23%25"


class Recorder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(f"{request.method} {request.url.path}")
        return httpx.Response(200, json={"runId": "r", "status": "running"})


@pytest.mark.parametrize("run_id", [".", "..", "", "a/b"])
async def test_no_request_leaves_for_an_unsafe_run_id(run_id: str) -> None:
    recorder = Recorder()
    async with HostClient(BASE, "k", transport=httpx.MockTransport(recorder)) as client:
        for call in (
            client.get_run(run_id),
            client.cancel_run(run_id),
            client.poll_events(run_id, None),
            client.resolve_interrupt(run_id, "ask", {}),
        ):
            with pytest.raises(HostError) as refused:
                await call
            assert refused.value.code == "invalid_id"
            assert refused.value.message.startswith("The run id ")
        with pytest.raises(HostError, match=r"The node id '\.\.' cannot be used in a URL"):
            await client.resolve_interrupt("run_1", "..", {})
        with pytest.raises(HostError, match=r"The interrupt token '\.' cannot be used"):
            await client.resolve_interrupt_by_token(".", {})
    assert recorder.seen == []


async def test_an_answer_to_an_unsafe_node_is_not_sent_and_not_retried() -> None:
    recorder = Recorder()
    request = InterruptRequest("input", node_id="..", run_id="run_1")
    async with HostClient(BASE, "k", transport=httpx.MockTransport(recorder)) as client:
        done = await submit(client, request, "x")
    assert done.outcome == "failed" and not done.retry
    assert "The node id '..' cannot be used in a URL" in done.message
    assert recorder.seen == []


@pytest.mark.parametrize("run_id", [".", ".."])
def test_attach_dot_is_one_line_and_exit_2(
    run_id: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENWOP_TUI_AUDIO", "off")
    seen: list[str] = []
    with DemoHost(pace=0) as host:
        real = httpx.AsyncClient.send

        async def spy(self: httpx.AsyncClient, request: httpx.Request, **kw: Any) -> Any:
            seen.append(request.url.path)
            return await real(self, request, **kw)

        monkeypatch.setattr(httpx.AsyncClient, "send", spy)
        code = main(["attach", run_id, "--host", host.url, "--api-key", host.api_key])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [
        f"openwop-tui: The run id {run_id!r} cannot be used in a URL: a dot segment would be "
        "removed from the URL and reach another route."
    ]
    # Discovery and the key check only: never /v1 or the run list.
    assert seen[0] == "/.well-known/openwop"
    assert all(p.startswith("/v1/runs/openwop-tui-key-check-") for p in seen[1:]), seen
