"""``GET /runs`` (v2, gated on the advertised ``runList`` family) and ``GET /v1/runs``: the
caller's runs newest first, a page at a time with an opaque cursor, filtered by status and
workflow id; a cursor the host did not mint, a bad limit or an unknown status is ``400``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from demo_drive import Wire, client
from hitl_support import assert_error

from openwop_tui.demo_host import DemoHost


@pytest.fixture(scope="module", params=[1, 2], ids=["v1", "v2"])
def http(request: pytest.FixtureRequest) -> Iterator[tuple[httpx.Client, Wire, list[str]]]:
    """A host with five finished noop runs and two clarifications waiting, oldest first."""
    major: int = request.param
    with DemoHost(pace=0, keepalive=0, protocol=2) as host, client(host, major) as http:
        wire = Wire(major)
        created: list[str] = []
        for workflow in ["conformance-noop"] * 5 + ["demo.clarify"] * 2:
            response = http.post(f"{wire.prefix}/runs", json={"workflowId": workflow})
            run_id = response.json()["runId"]
            created.append(run_id)
            if workflow == "conformance-noop":  # to its end, so its status is settled
                poll = f"{wire.prefix}/runs/{wire.segment(run_id)}/events/poll"
                while not http.get(poll, params={"timeout": 5}).json()["isTerminal"]:
                    pass
        yield http, wire, created


def _pages(http: httpx.Client, wire: Wire, **params: Any) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = []
    cursor: str | None = None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        response = http.get(f"{wire.prefix}/runs", params=query)
        assert response.status_code == 200, response.text
        body = response.json()
        assert set(body) <= {"runs", "nextCursor"}
        pages.append(body["runs"])
        cursor = body.get("nextCursor")
        if cursor is None:
            return pages


def test_pages_walk_every_run_once_newest_first(
    http: tuple[httpx.Client, Wire, list[str]],
) -> None:
    client_, wire, created = http
    pages = _pages(client_, wire, limit=3)
    assert [len(page) for page in pages] == [3, 3, 1]
    assert [run["runId"] for page in pages for run in page] == created[::-1]
    snapshot = pages[0][0]
    assert {"runId", "workflowId", "status", "startedAt"} <= set(snapshot)
    if wire.major == 2:  # tenant-bound ids and the owner, as GET /runs/{id} has them
        assert snapshot["runId"].startswith("demo/") and snapshot["owner"]["tenant"] == "demo"


def test_filters_by_status_and_workflow(http: tuple[httpx.Client, Wire, list[str]]) -> None:
    client_, wire, created = http
    done = [r["runId"] for p in _pages(client_, wire, status="completed") for r in p]
    assert done == created[:5][::-1]
    waiting = _pages(client_, wire, workflowId="demo.clarify")
    assert [r["runId"] for r in waiting[0]] == created[5:][::-1]
    assert all(r["status"] == "waiting-input" for r in waiting[0])
    both = _pages(client_, wire, workflowId="demo.clarify", status="completed,failed")
    assert both == [[]]
    paged = _pages(client_, wire, status="completed", limit=2)
    assert [len(p) for p in paged] == [2, 2, 1]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"cursor": "3.forged"}, "cursor"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"limit": "0"}, "limit"),
        ({"limit": "1001"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"status": "done"}, "status"),
    ],
)
def test_bad_queries_are_400(
    http: tuple[httpx.Client, Wire, list[str]], params: dict[str, str], field: str
) -> None:
    client_, wire, _ = http
    body = assert_error(client_.get(f"{wire.prefix}/runs", params=params), 400, "validation_error")
    assert body["details"]["field"] == field


def test_creating_still_works_beside_listing(http: tuple[httpx.Client, Wire, list[str]]) -> None:
    client_, wire, _ = http
    refused = client_.delete(f"{wire.prefix}/runs")
    assert refused.status_code == 405
    assert set(refused.headers["allow"].replace(" ", "").split(",")) == {"GET", "POST"}
