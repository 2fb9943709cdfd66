"""A thin async client for one OpenWOP host: discovery, runs, cancel, interrupts, assets.

`HostClient` is the only thing in the TUI that talks HTTP to a host's protocol endpoints. It is
written against what real hosts send (protocol.md §10), not only the spec:

* the protocol major is negotiated once, by `HostClient.discover` (§1.4): v2 (bare ``/runs``
  paths, ``OpenWOP-Version: 2`` on every call) only when the discovery document lists a 2.x
  version *and* the response says 2; else v1 (``/v1/runs``, no version header).
  `HostClient._path` and `HostClient.request_headers` are the only places that know the
  difference;
* the Python host's create response has no ``eventsUrl``; it is built from the run id, and an
  ``eventsUrl`` on another origin is ignored so the Bearer key cannot follow it;
* the API key is only ever put in an ``Authorization`` header: never logged, never sent to
  discovery or to an asset URL, and redirects are never followed;
* every JSON answer is passed through `openwop_tui.protocol.hostdata.host_value` as it is
  decoded (strings cleaned, the API key masked, numbers clamped, depth bounded): what the
  client's methods return is safe to show.

The rest of the protocol layer is split by concern, and this module wires it together:

* `openwop_tui.protocol.discovery` reads the discovery document into a `Discovery` (capability
  families at the root or in the legacy ``capabilities`` wrapper, the major to speak);
* `openwop_tui.protocol.errors` defines `HostError` and turns every failure into one sentence a
  user can act on, scrubbed of the API key;
* `openwop_tui.protocol.connection` holds `HostConnection`, the base of `HostClient`: the base
  URL, resource URLs, headers, error sentences and sending one request;
* `openwop_tui.protocol.stream` holds the SSE subscription; `openwop_tui.protocol.media_policy`
  the media URL policy and `openwop_tui.protocol.media` fetching under it.

`HostError`, `Discovery` and `DEFAULT_MAX_INLINE_MEDIA_BYTES` are re-exported here, so
``from openwop_tui.protocol.client import HostError, Discovery, HostClient, RunHandle`` keeps
working. No Textual here.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from openwop_tui.protocol.connection import HostConnection
from openwop_tui.protocol.discovery import (
    DEFAULT_MAX_INLINE_MEDIA_BYTES,
    DISCOVERY_PATH,
    Discovery,
    MediaUpload,
)
from openwop_tui.protocol.errors import BODY_EXCERPT, HostError, excerpt
from openwop_tui.protocol.hostdata import host_value
from openwop_tui.protocol.media import DEFAULT_MAX_BYTES, Asset, fetch_asset
from openwop_tui.protocol.media_policy import MediaPolicy

__all__ = [
    "DEFAULT_MAX_INLINE_MEDIA_BYTES",
    "TERMINAL_STATUSES",
    "Discovery",
    "HostClient",
    "HostError",
    "RunHandle",
]

#: Run statuses after which nothing more happens (protocol.md §2.3).
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})


@dataclass(frozen=True, slots=True)
class RunHandle:
    """A started run: its id, first status, and the absolute URL of its event stream."""

    run_id: str
    status: str | None
    events_url: str
    raw: Mapping[str, Any] = field(repr=False)

    @property
    def workflow(self) -> str:
        """The workflow its snapshot names (``""``: none)."""
        named = self.raw.get("workflowId") or self.raw.get("workflow") or ""
        return str(named)


class HostClient(HostConnection):
    """An async client for one host. Use as ``async with HostClient(url, key) as client:``.

    Call `discover` first to negotiate the protocol major; until then the client speaks v1,
    which every reference host serves.
    """

    def handle_of(self, run_id: str, snapshot: Mapping[str, Any]) -> RunHandle:
        """A run this client did not start, from its ``GET …/runs/{id}`` answer."""
        status = snapshot.get("status")
        status = status if isinstance(status, str) else None
        return RunHandle(run_id, status, self.events_url(run_id), snapshot)

    async def discover(self, *, verify_key: bool = True) -> Discovery:
        """``GET /.well-known/openwop`` (no Bearer) and negotiate the protocol major.

        Then, unless ``verify_key`` is false, `verify_key` makes one cheap authenticated read,
        so a rejected (or missing) API key is reported here, at connect, rather than at the
        first message: its `HostError` is raised. The discovery result is kept either way
        (`discovery`).
        """
        url = self._base + DISCOVERY_PATH
        shown = self._shown_base + DISCOVERY_PATH  # what was fetched, without credentials
        action = "describe itself (discovery)"
        headers = {"Accept": "application/json", "OpenWOP-Version": "2"}
        import httpx  # here, not at the top: the first frame does not wait for it

        try:
            response = await self._http.get(url, headers=headers)
            if response.status_code in (400, 406):
                # A strict v1 host may reject the version header it does not know; ask plainly.
                response = await self._http.get(url, headers={"Accept": "application/json"})
        except httpx.HTTPError as exc:
            raise self.error_for_exception(exc, action=action) from None
        if response.status_code == 404:
            raise self._error(
                f"There is no OpenWOP discovery document at {shown} "
                "(404). Is this an OpenWOP host, and is the URL right?",
                status=404,
                code=None,
            )
        if not 200 <= response.status_code < 300:
            raise self.error_for_response(response, response.content, action=f"{action} at {shown}")
        try:
            doc = host_value(json.loads(response.text), self.secrets)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            content_type = response.headers.get("content-type", "no content type")
            raise self._error(
                f"{shown} did not return a JSON discovery document "
                f"(got {excerpt(content_type, 60)}): is this an OpenWOP host?",
                status=response.status_code,
                code="bad_response",
            ) from None
        if not isinstance(doc, Mapping):
            raise self._error(
                f"The discovery document at {shown} is a JSON "
                f"{type(doc).__name__}, not an object: is this an OpenWOP host?",
                status=response.status_code,
                code="bad_response",
            )
        discovery = Discovery.from_document(
            doc, version_header=response.headers.get("openwop-version")
        )
        self._major = discovery.major
        self._discovery = discovery
        if verify_key:
            rejected = await self.verify_key()
            if rejected is not None:
                raise rejected
        return discovery

    async def verify_key(self) -> HostError | None:
        """One cheap authenticated read, to find a rejected or missing API key at connect.

        Returns the `HostError` of a refusal (401; 403 too where the read is a listing the key
        should be allowed), else ``None``, also when the host has no such read or the read
        fails for any other reason: this check must never stop a working host from being used.

        The read is the runs list (``GET /runs``) on a v2 host that advertises ``runList``;
        otherwise the snapshot of a run id that cannot exist, ``GET …/runs/{id}``, which every
        host serves and answers 404 once the key is accepted. That one trusts only 401: a host
        may answer 403 for a run it will not say exists (``id_tenant_mismatch``,
        ``run_forbidden``), whatever the key.
        """
        discovery = self._discovery
        listing = self._major == 2 and discovery is not None and discovery.family("runList")
        url = self.url("runs") if listing else self._path(f"openwop-tui-key-check-{uuid.uuid4()}")
        action = "list runs (checking the API key)"
        headers = self.request_headers()
        import httpx  # here, not at the top: the first frame does not wait for it

        try:
            response = await self._http.get(url, headers=headers)
        except httpx.HTTPError:
            return None  # discovery just worked: a failure here is not about the key
        if response.status_code == 401 or (listing and response.status_code == 403):
            return self.error_for_response(response, response.content, action=action)
        return None

    async def create_run(
        self,
        workflow_id: str,
        inputs: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RunHandle:
        """``POST …/runs``: start a run; its handle.

        Args:
            workflow_id: The workflow to run.
            inputs: The run's ``inputs`` (a chat turn's ``messages``); None sends none.
            idempotency_key: One per user send, so a retried request starts one run; one is
                made if omitted.
            metadata: The run's ``metadata``; None sends none.
        """
        body: dict[str, Any] = {"workflowId": workflow_id}
        if inputs is not None:
            body["inputs"] = dict(inputs)
        if metadata is not None:
            body["metadata"] = dict(metadata)
        action = f"start workflow {workflow_id!r}"
        response, doc = await self._send(
            "POST",
            self._path(),
            action=action,
            subject=workflow_id,
            body=body,
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )
        created = self._expect_object(response, doc, action=action)
        run_id = created.get("runId")
        if not isinstance(run_id, str) or not run_id:
            raise self._error(
                f"The host answered {response.status_code} when asked to {action}, but the body "
                f"has no runId: {excerpt(json.dumps(created), BODY_EXCERPT)!r}.",
                status=response.status_code,
                code="bad_response",
            )
        status = created.get("status")
        return RunHandle(
            run_id=run_id,
            status=status if isinstance(status, str) and status else None,
            events_url=self._events_url_from(created.get("eventsUrl"), run_id),
            raw=created,
        )

    def _events_url_from(self, given: Any, run_id: str) -> str:
        """The host's ``eventsUrl`` made absolute, if it stays on the host's origin; else ours."""
        if isinstance(given, str) and given:
            absolute = urljoin(self._base + "/", given)
            mine, theirs = urlsplit(self._base), urlsplit(absolute)
            # Never follow an eventsUrl to another origin: the Bearer key would go with it.
            if (theirs.scheme, theirs.netloc) == (mine.scheme, mine.netloc):
                return absolute
        return self.events_url(run_id)

    async def get_run(self, run_id: str) -> dict[str, Any]:
        """``GET …/runs/{runId}``: the run snapshot (status, outputs, error …)."""
        action = f"show run {run_id!r}"
        response, doc = await self._send("GET", self.run_url(run_id), action=action, subject=run_id)
        return self._expect_object(response, doc, action=action)

    async def list_runs(
        self,
        *,
        status: str | None = None,
        workflow_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """``GET …/runs``: one page of the caller's runs, newest first, ``{runs, nextCursor?}``
        (v2 ``spec/v2/core/runs.md`` §List, gated on ``runList``; a v1 host may serve it under
        ``/v1``). The filters go as query parameters.

        Args:
            status: Comma-separated statuses to keep; None keeps every status.
            workflow_id: Only this workflow's runs; None: every workflow's.
            limit: At most this many runs on the page; None: the host's default.
            cursor: The ``nextCursor`` of the page before; None: the first page.
        """
        given = {
            "status": status,
            "workflowId": workflow_id,
            "limit": str(limit) if limit is not None else None,
            "cursor": cursor,
        }
        params = {name: value for name, value in given.items() if value}
        action = "list runs"
        response, doc = await self._send("GET", self.url("runs"), action=action, params=params)
        return self._expect_object(response, doc, action=action)

    async def cancel_run(self, run_id: str, reason: str | None = None) -> dict[str, Any]:
        """``POST …/runs/{runId}/cancel``; returns ``{runId, status}`` (or ``{}`` if empty)."""
        action = f"cancel run {run_id!r}"
        response, doc = await self._send(
            "POST",
            self._path(run_id, "cancel"),
            action=action,
            subject=run_id,
            body={"reason": reason} if reason else {},
            idempotency_key=str(uuid.uuid4()),
        )
        return {} if doc is None else self._expect_object(response, doc, action=action)

    async def resolve_interrupt(
        self,
        run_id: str,
        node_id: str,
        resume_value: Any,
        *,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """``POST …/runs/{runId}/interrupts/{nodeId}`` with ``{"resumeValue": …}``.

        Args:
            run_id: The run that asked.
            node_id: The step whose question is answered.
            resume_value: The answer, as the interrupt's schema asks for it.
            idempotency_key: One per answer sent, so a retry resolves once; one is made if
                omitted.
        """
        action = f"answer the question of step {node_id!r}"
        response, doc = await self._send(
            "POST",
            self.interrupt_url(run_id, node_id),
            action=action,
            subject=run_id,
            body={"resumeValue": resume_value},
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )
        return {} if doc is None else self._expect_object(response, doc, action=action)

    async def resolve_interrupt_by_token(
        self, token: str, resume_value: Any, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """``POST …/interrupts/{token}`` with ``{"resumeValue": …}``: the signed-token route.

        The token is the authorization, so no Bearer key is sent (protocol.md §2.5, §5 C). The
        URL is built on this host from the token alone: a ``callbackUrl`` naming another origin
        is never followed.
        """
        response, doc = await self._send(
            "POST",
            self.token_url(token),
            action="answer the run's question by its token",
            auth=False,
            body={"resumeValue": resume_value},
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )
        return {} if doc is None else self._expect_object(response, doc, action="answer it")

    async def poll_events(
        self, run_id: str, after_sequence: int | None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """``GET …/events/poll``: events after ``after_sequence`` (``None``: from the start).

        The spec names the cursor ``afterSequence``; the v1 reference hosts read
        ``lastSequence`` (protocol.md §3.5, and their source), so a v1 host gets both with the
        same value. A v2 host gets ``afterSequence`` only, and none for "from the start".
        """
        params = {"timeout": f"{timeout:g}"}
        if self._major >= 2:
            # v2: `afterSequence` is an integer >= 0 and absent means "from the first event";
            # `lastSequence` is not a parameter (spec/v2/core/events.md §Poll).
            if after_sequence is not None and after_sequence >= 0:
                params["afterSequence"] = str(after_sequence)
        else:
            cursor = str(after_sequence if after_sequence is not None else -1)
            params.update(afterSequence=cursor, lastSequence=cursor)
        action = f"list the events of run {run_id!r}"
        response, doc = await self._send(
            "GET",
            self.poll_url(run_id),
            action=action,
            subject=run_id,
            params=params,
            # The host may hold the request up to `timeout` seconds waiting for events.
            timeout=timeout + self._timeout,
        )
        return self._expect_object(response, doc, action=action)

    def media_policy(self, max_bytes: int = DEFAULT_MAX_BYTES) -> MediaPolicy:
        """The media URL policy for this host."""
        return MediaPolicy(base_url=self._base, max_bytes=max_bytes, timeout=15.0)

    async def fetch_asset(
        self,
        url: str,
        advertised_bytes: int | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> Asset:
        """Fetch a media envelope's ``url`` under `media_policy`. Never raises."""
        return await fetch_asset(
            url,
            policy=self.media_policy(max_bytes),
            advertised_bytes=advertised_bytes,
            api_key=self._api_key,
            transport=self._transport,
        )

    async def upload_media(self, upload: MediaUpload, data: bytes, mime: str, name: str) -> str:
        """``POST`` an attachment to the host's media upload route (`MediaUpload`, protocol.md
        §12): the URL the host keeps it at, for the message's content part. Raises
        `HostError`: the route leaves the host's origin (the key would go with it), the host
        refused it (its status and message), or its answer names no URL.

        Args:
            upload: The route discovery named.
            data: The attachment's bytes.
            mime: Its media type.
            name: Its file name.
        """
        url = urljoin(self._base + "/", upload.route)
        mine, theirs = urlsplit(self._base), urlsplit(url)
        if (theirs.scheme, theirs.netloc) != (mine.scheme, mine.netloc):
            raise self._error(
                f"The host's media upload route {excerpt(upload.route, BODY_EXCERPT)!r} is on "
                f"another origin than the host ({mine.netloc}): {name} was not sent there, "
                "so the API key does not leave this host.",
                code="foreign_upload_route",
            )
        action = f"upload {name}"
        body = {
            "contentBase64": base64.b64encode(data).decode("ascii"),
            "contentType": mime,
            "name": name,
        }
        response, doc = await self._send("POST", url, action=action, subject=name, body=body)
        answer = self._expect_object(response, doc, action=action)
        found = answer.get("url")
        if not isinstance(found, str) or not found.strip():
            raise self._error(
                f"The host answered {response.status_code} when asked to {action}, but named "
                "no url for it.",
                status=response.status_code,
                code="bad_response",
            )
        return found
