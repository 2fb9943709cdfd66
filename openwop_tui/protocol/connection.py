"""The connection to one OpenWOP host under `openwop_tui.protocol.client.HostClient`: its base
URL (credentials and a trailing ``/v1`` dropped), the URLs of its resources in the negotiated
major's layout, the headers of a protocol call (the Bearer key, the version header), failures
turned into `HostError` sentences free of the key, and one request sent and its JSON answer
decoded through `openwop_tui.protocol.hostdata.host_value`.

`HostConnection` is the base of `HostClient`, which adds the protocol's calls (discovery, runs,
answers to interrupts, polling, media). No Textual here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import urlsplit, urlunsplit

from openwop_tui.protocol.discovery import Discovery
from openwop_tui.protocol.errors import (
    BODY_EXCERPT,
    HostError,
    error_for_exception,
    error_for_response,
    excerpt,
    host_error,
    too_large,
)
from openwop_tui.protocol.hostdata import host_value, secrets_of
from openwop_tui.protocol.ids import UnsafeId, path_segment

if TYPE_CHECKING:
    # Imported where a request is made, not here: the app's first frame does not wait for
    # httpx (and the ssl, email and cookie modules behind it; tests/ui/test_first_frame.py).
    import httpx


class HostConnection:
    """One host's address, headers and requests; `HostClient` makes the protocol's calls on it.

    Until `HostClient.discover` finds a v2 host, it speaks v1, which every reference host serves.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        """Raises `HostError` (code ``invalid_url``) for a URL that is no http(s) address.

        Args:
            base_url: The host's base URL (a trailing ``/v1`` and, with a key, any
                ``user:password@`` are dropped).
            api_key: The Bearer key (``None``: none).
            transport: The httpx transport to use (tests pass a mock).
            timeout: The per-request timeout in seconds.
        """
        parts = urlsplit(base_url.strip())
        try:
            port_number = parts.port
        except ValueError:
            port_number = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or port_number == -1:
            raise HostError(
                f"The host URL {excerpt(base_url)!r} is not a valid http:// or https:// address.",
                code="invalid_url",
            )
        # Shown in messages: scheme and host[:port] only, never a user:password@ part.
        port = f":{port_number}" if port_number else ""
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        self._origin = f"{parts.scheme}://{host}{port}"
        self._base = base_url.strip().rstrip("/")
        if api_key and (parts.username is not None or parts.password is not None):
            # httpx turns URL credentials into a Basic Authorization header that replaces the
            # Bearer key: with a key, the key wins and the URL's user:password is dropped.
            # Without one, they stay, for a host behind a Basic-auth proxy.
            self._base = (self._origin + parts.path).rstrip("/")
        # `--host http://h:3737/v1` is the base users copy from a host's docs: the client adds
        # `/v1/…` (or the bare v2 paths) and finds discovery at the base itself, so a trailing
        # `/v1` would give `/v1/.well-known/openwop` and `/v1/v1/runs`. It is dropped.
        base = urlsplit(self._base)
        self._base = urlunsplit(base._replace(path=_without_version_suffix(base.path)))
        self._shown_base = self._origin + _without_version_suffix(parts.path.rstrip("/"))
        """The base as messages show it: no user:password, no trailing ``/v1``."""
        self._api_key = api_key or None
        self._timeout = timeout
        self._transport = transport
        self._major = 1
        self._discovery: Discovery | None = None
        # No default Authorization header: discovery and assets must go without it, and
        # redirects are never followed, so the key cannot leak to another origin.
        import httpx  # here, not at the top: the first frame does not wait for it

        self._http = httpx.AsyncClient(
            transport=transport, timeout=httpx.Timeout(timeout), follow_redirects=False
        )

    def __repr__(self) -> str:
        return f"HostClient({self._base!r}, major={self._major})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    # -- what other protocol modules need -------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The host's base URL, without a trailing slash."""
        return self._base

    @property
    def shown_url(self) -> str:
        """The base URL as messages show it: no ``user:password@``, no trailing ``/v1``."""
        return self._shown_base

    @property
    def origin(self) -> str:
        """``scheme://host[:port]`` of the host: what messages show."""
        return self._origin

    @property
    def major(self) -> int:
        """The protocol major in use: 1 until `discover` finds a v2 host."""
        return self._major

    @property
    def timeout(self) -> float:
        """The per-request timeout in seconds."""
        return self._timeout

    @property
    def api_key(self) -> str | None:
        """The API key, for `openwop_tui.protocol.media.fetch_asset` only (it decides where the
        key may go). Never display, log or export it; `fetch_asset` on this client is simpler."""
        return self._api_key

    @property
    def secrets(self) -> tuple[str, ...]:
        """What to mask in host data (the API key, if set): pass it to
        `openwop_tui.protocol.hostdata.host_value` and `normalize` wherever host JSON enters."""
        return secrets_of(self._api_key)

    @property
    def discovery(self) -> Discovery | None:
        """The last discovery result, if `discover` was called."""
        return self._discovery

    @property
    def http(self) -> httpx.AsyncClient:
        """The underlying httpx client (the stream module opens SSE connections on it)."""
        return self._http

    def request_headers(self, *, auth: bool = True) -> dict[str, str]:
        """Headers for a protocol call: Bearer key (unless ``auth`` is false) and version header."""
        headers = {"Accept": "application/json"}
        if auth and self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        if self._major == 2:
            # v2 hosts serve header-less bare paths as their preferred major, which is 1.x
            # during the overlap: the header is what makes them v2 (versioning.md §1.1).
            headers["OpenWOP-Version"] = "2"
        return headers

    def url(self, *segments: str, what: str = "id") -> str:
        """The absolute URL of a protocol resource in the negotiated major's layout:
        ``url("workflows")`` is ``…/v1/workflows`` on a v1 host and ``…/workflows`` on v2.
        Each segment is percent-encoded and is exactly one segment: a dot segment, a ``/`` and
        the like raise `HostError` (code ``invalid_id``) naming it as ``what``
        (`openwop_tui.protocol.ids.path_segment`)."""
        url = self._base + ("/v1" if self._major == 1 else "")
        for part in segments:
            url += "/" + self._segment(part, what)
        return url

    def _segment(self, value: str, what: str, *, tenant_bound: bool = False) -> str:
        try:
            return path_segment(value, major=self._major, tenant_bound=tenant_bound, what=what)
        except UnsafeId as error:
            raise HostError(str(error), code="invalid_id") from None

    def _path(self, run_id: str | None = None, *tail: str) -> str:
        """The absolute URL of a runs resource, in the negotiated major's layout (``tail``:
        constant segments and a node id). Raises `HostError` ``invalid_id`` for an id that
        cannot be one segment."""
        url = self.url("runs")
        if run_id is not None:
            # v2 run ids are `<tenant>/<opaque>`: one path segment, RFC 0184 projected.
            url += "/" + self._segment(run_id, "run id", tenant_bound=True)
        for part in tail:
            url += "/" + self._segment(part, "node id")
        return url

    def run_url(self, run_id: str) -> str:
        """``…/runs/{runId}``: the run snapshot."""
        return self._path(run_id)

    def events_url(self, run_id: str) -> str:
        """``…/runs/{runId}/events``: the SSE stream."""
        return self._path(run_id, "events")

    def poll_url(self, run_id: str) -> str:
        """``…/runs/{runId}/events/poll``: the polling fallback."""
        return self._path(run_id, "events", "poll")

    def interrupt_url(self, run_id: str, node_id: str) -> str:
        """``…/runs/{runId}/interrupts/{nodeId}``: the run-scoped answer route."""
        return self._path(run_id, "interrupts", node_id)

    def token_url(self, token: str) -> str:
        """``…/interrupts/{token}``: the signed-token answer route."""
        return self.url("interrupts", token, what="interrupt token")

    def _error(
        self, message: str, *, status: int | None = None, code: str | None = None
    ) -> HostError:
        """A `HostError` whose message is guaranteed free of the API key."""
        return host_error(message, self._api_key, status=status, code=code)

    def error_for_exception(self, exc: httpx.HTTPError, *, action: str) -> HostError:
        """Translate a network-level failure into a `HostError` with a specific sentence
        (`openwop_tui.protocol.errors.error_for_exception` with this host's details)."""
        return error_for_exception(
            exc,
            action=action,
            base_url=self._base,
            origin=self._origin,
            timeout=self._timeout,
            api_key=self._api_key,
        )

    def error_for_response(
        self, response: httpx.Response, body: bytes, *, action: str, subject: str | None = None
    ) -> HostError:
        """Translate an HTTP error response into a `HostError` with a specific sentence
        (`openwop_tui.protocol.errors.error_for_response` with this host's API key).

        Args:
            response: The error response.
            body: Its body.
            action: What was asked, as the sentence says it (``start workflow 'x'``).
            subject: The id the request was about (a run, a workflow), if any.
        """
        return error_for_response(
            response,
            body,
            action=action,
            api_key=self._api_key,
            subject=subject,
            request_limit=self.request_limit,
        )

    @property
    def request_limit(self) -> int | None:
        """The largest request body the host advertised (``limits.maxRequestBodyBytes``)."""
        found = self._discovery
        return found.max_request_body_bytes if found is not None else None

    # -- requests -------------------------------------------------------------------------------

    async def _send(
        self,
        method: str,
        url: str,
        *,
        action: str,
        subject: str | None = None,
        auth: bool = True,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
        extra_headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> tuple[httpx.Response, Any]:
        """Send one request; return the response and its decoded JSON (``None`` when empty),
        cleaned by `host_value`. Raises `HostError`.

        Args:
            method: The HTTP method.
            url: The absolute URL.
            action: What is asked, as an error's sentence says it.
            subject: The id the request is about (a run, a workflow), if any.
            auth: Whether the Bearer key goes with it.
            body: The JSON body (``None``: none).
            params: Query parameters.
            idempotency_key: The ``Idempotency-Key`` header, if any.
            extra_headers: More headers.
            timeout: Seconds for this request (``None``: the client's timeout).
        """
        headers = self.request_headers(auth=auth)
        if extra_headers:
            headers.update(extra_headers)
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        import httpx  # here, not at the top: the first frame does not wait for it

        try:
            response = await self._http.request(
                method,
                url,
                headers=headers,
                json=body,
                params=params,
                timeout=httpx.Timeout(timeout) if timeout is not None else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.HTTPError as exc:
            limit = self.request_limit
            size = _body_size(body) if body is not None and limit is not None else None
            if size is not None and limit is not None and size > limit:
                # A host may cut the connection on a body over its limit instead of answering
                # 413 (the 3,000-turn session's "ReadError"): the size is the reason.
                raise self._error(
                    too_large(action, size, limit), code="request_too_large"
                ) from None
            raise self.error_for_exception(exc, action=action) from None
        if not 200 <= response.status_code < 300:
            raise self.error_for_response(
                response, response.content, action=action, subject=subject
            )
        text = response.text
        if not text.strip():
            return response, None
        try:
            return response, host_value(json.loads(text), self.secrets)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            shown = excerpt(text, BODY_EXCERPT, secrets=self.secrets)
            raise self._error(
                f"The host answered {response.status_code} when asked to {action}, but the body "
                f"is not JSON: {shown!r}.",
                status=response.status_code,
                code="bad_response",
            ) from None

    def _expect_object(self, response: httpx.Response, doc: Any, *, action: str) -> dict[str, Any]:
        if isinstance(doc, Mapping):
            return dict(doc)
        kind = "an empty body" if doc is None else f"a JSON {type(doc).__name__}"
        raise self._error(
            f"The host answered {response.status_code} when asked to {action}, but sent {kind} "
            "instead of a JSON object.",
            status=response.status_code,
            code="bad_response",
        )


def _without_version_suffix(path: str) -> str:
    """A URL *path* without a trailing ``/v1`` segment (``/api/v1/`` → ``/api``)."""
    head, sep, last = path.rstrip("/").rpartition("/")
    return head if sep and last.lower() == "v1" else path.rstrip("/")


def _body_size(body: Any) -> int | None:
    """Bytes of ``body`` as httpx sends it (compact UTF-8 JSON); ``None`` if it cannot be."""
    try:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return len(text.encode("utf-8", "surrogatepass"))
