"""A thin async client for one OpenWOP host: discovery, runs, cancel, interrupts, assets.

Written against what real hosts send (protocol.md §10), not only the spec:

* discovery reads capability families at the document root first, then the deprecated
  ``capabilities`` wrapper that the SQLite and Python reference hosts still fill (§1.1);
* the protocol major is negotiated once (§1.4): v2 (bare ``/runs`` paths, ``OpenWOP-Version: 2``
  on every call) only when the document lists a 2.x version *and* the response says 2; else v1
  (``/v1/runs``, no version header). `HostClient._path` and `HostClient.request_headers` are the
  only places that know the difference;
* the Python host's create response has no ``eventsUrl``; it is built from the run id;
* every failure is a `HostError` whose ``message`` is one sentence a user can act on. The API key
  never appears in one: it is only ever put in an ``Authorization`` header, never logged, never
  sent to discovery, and scrubbed from anything a host echoes back.

The SSE subscription lives in `openwop_tui.protocol.stream`; the media URL policy in
`openwop_tui.protocol.media`. No Textual here.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx

from openwop_tui.protocol.media import DEFAULT_MAX_BYTES, MediaPolicy, fetch_asset
from openwop_tui.renderers.base import Asset

__all__ = [
    "DEFAULT_MAX_INLINE_MEDIA_BYTES",
    "TERMINAL_STATUSES",
    "Discovery",
    "HostClient",
    "HostError",
    "RunHandle",
]

#: `aiProviders.maxInlineMediaBytes` when a host does not say (protocol.md §1.1, §4.5).
DEFAULT_MAX_INLINE_MEDIA_BYTES = 262144

#: Run statuses after which nothing more happens (protocol.md §2.3).
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})

#: The discovery path; public and unauthenticated (protocol.md §1).
DISCOVERY_PATH = "/.well-known/openwop"

#: How much of a non-JSON error body a message quotes.
_BODY_EXCERPT = 120
#: How much of a host's error message a HostError repeats.
_HOST_MESSAGE_MAX = 300


class HostError(Exception):
    """A request to the host failed; ``message`` says why in one user-facing sentence.

    ``status`` is the HTTP status (``None`` when no response arrived); ``code`` is the host's
    ``error`` code, or one of the client's own for failures without a response:
    ``connection_refused``, ``dns_failure``, ``timeout``, ``tls_error``, ``connection_error``,
    ``invalid_url``, ``bad_response`` (a 2xx whose body is not what the protocol promises),
    ``redirect``. ``retry_after`` is the host's ``Retry-After`` in seconds, when it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        details: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.retry_after = retry_after
        self.details = details

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"HostError(status={self.status!r}, code={self.code!r}, message={self.message!r})"


@dataclass(frozen=True, slots=True)
class Discovery:
    """What ``GET /.well-known/openwop`` told us, with the fields a chat client needs lifted out."""

    protocol_version: str | None
    """``protocolVersion`` (v1), else ``preferredVersion`` (v2)."""
    protocol_versions: tuple[str, ...]
    """``protocolVersions`` (present on v2-capable hosts only)."""
    major: int
    """The protocol major this client will speak to the host: 1 or 2 (protocol.md §1.4)."""
    implementation_name: str | None
    implementation_version: str | None
    supported_envelopes: tuple[str, ...]
    """Envelope kinds the engine accepts (v1 list, or the v2 record's ``kinds``)."""
    max_inline_media_bytes: int
    """``aiProviders.maxInlineMediaBytes``; 262144 when absent."""
    model_capabilities: tuple[str, ...]
    """``modelCapabilities.advertised``."""
    raw: Mapping[str, Any] = field(repr=False)
    """The whole document as received."""

    def family(self, name: str) -> Any:
        """A capability family: at the document root first, else in the legacy ``capabilities``."""
        return _family(self.raw, name)

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], *, version_header: str | None) -> Discovery:
        """Read a discovery document; ``version_header`` is the response's ``OpenWOP-Version``."""
        versions = tuple(v for v in _list(doc.get("protocolVersions")) if isinstance(v, str))
        lists_v2 = any(v == "2" or v.startswith("2.") for v in versions)
        speaks_v2 = (version_header or "").strip().startswith("2")
        protocol_version = doc.get("protocolVersion")
        if not isinstance(protocol_version, str):
            preferred = doc.get("preferredVersion")
            protocol_version = preferred if isinstance(preferred, str) else None

        implementation = _family(doc, "implementation")
        impl = implementation if isinstance(implementation, Mapping) else {}

        envelopes = _family(doc, "supportedEnvelopes")
        if isinstance(envelopes, Mapping):  # a v2 record: {status, since, kinds: [...]}
            envelopes = envelopes.get("kinds")

        models = _family(doc, "modelCapabilities")
        advertised = models.get("advertised") if isinstance(models, Mapping) else models

        inline = _facet(doc, "aiProviders", "maxInlineMediaBytes")
        if not isinstance(inline, int) or isinstance(inline, bool) or inline <= 0:
            inline = DEFAULT_MAX_INLINE_MEDIA_BYTES

        return cls(
            protocol_version=protocol_version,
            protocol_versions=versions,
            major=2 if lists_v2 and speaks_v2 else 1,
            implementation_name=_text(impl.get("name")),
            implementation_version=_text(impl.get("version")),
            supported_envelopes=tuple(e for e in _list(envelopes) if isinstance(e, str)),
            max_inline_media_bytes=inline,
            model_capabilities=tuple(m for m in _list(advertised) if isinstance(m, str)),
            raw=doc,
        )


@dataclass(frozen=True, slots=True)
class RunHandle:
    """A started run: its id, first status, and the absolute URL of its event stream."""

    run_id: str
    status: str | None
    events_url: str
    raw: Mapping[str, Any] = field(repr=False)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _family(doc: Mapping[str, Any], name: str) -> Any:
    # RFC 0073: families MUST be at the root; the wrapper is a legacy mirror real hosts still use.
    value = doc.get(name)
    if value is not None:
        return value
    wrapper = doc.get("capabilities")
    return wrapper.get(name) if isinstance(wrapper, Mapping) else None


def _facet(doc: Mapping[str, Any], family: str, key: str) -> Any:
    """A key inside a family, looked for at the root family, then in the wrapper's copy."""
    wrapper = doc.get("capabilities")
    for holder in (doc.get(family), wrapper.get(family) if isinstance(wrapper, Mapping) else None):
        if isinstance(holder, Mapping) and holder.get(key) is not None:
            return holder.get(key)
    return None


def _clean(text: str, limit: int = _HOST_MESSAGE_MAX) -> str:
    """Make host-supplied text safe for a one-line message: controls made visible, length cut."""
    out = "".join(
        ch if ch.isprintable() else ("\\n" if ch == "\n" else f"\\u{ord(ch):04x}") for ch in text
    )
    return out if len(out) <= limit else out[: limit - 1] + "…"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # an HTTP-date; rare for APIs, and the caller's backoff covers it
    return max(0.0, seconds)


def _exception_chain(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


class HostClient:
    """An async client for one host. Use as ``async with HostClient(url, key) as client:``.

    Call `discover` first to negotiate the protocol major; until then the client speaks v1,
    which every reference host serves.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 10.0,
    ) -> None:
        parts = urlsplit(base_url.strip())
        try:
            port_number = parts.port
        except ValueError:
            port_number = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or port_number == -1:
            raise HostError(
                f"The host URL {_clean(base_url)!r} is not a valid http:// or https:// address.",
                code="invalid_url",
            )
        self._base = base_url.strip().rstrip("/")
        # Shown in messages: scheme and host[:port] only, never a user:password@ part.
        port = f":{port_number}" if port_number else ""
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        self._origin = f"{parts.scheme}://{host}{port}"
        self._api_key = api_key or None
        self._timeout = timeout
        self._transport = transport
        self._major = 1
        self._discovery: Discovery | None = None
        # No default Authorization header: discovery and assets must go without it, and
        # redirects are never followed, so the key cannot leak to another origin.
        self._http = httpx.AsyncClient(
            transport=transport, timeout=httpx.Timeout(timeout), follow_redirects=False
        )

    def __repr__(self) -> str:
        return f"HostClient({self._base!r}, major={self._major})"

    async def __aenter__(self) -> HostClient:
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

    def _path(self, run_id: str | None = None, *tail: str) -> str:
        """The absolute URL of a runs resource, in the negotiated major's layout."""
        prefix = "/v1/runs" if self._major == 1 else "/runs"
        url = self._base + prefix
        if run_id is not None:
            # v2 run ids are `<tenant>/<opaque>`, projected to one path segment as `~2F`.
            segment = run_id.replace("/", "~2F") if self._major == 2 else run_id
            url += "/" + quote(segment, safe="~")
        for part in tail:
            url += "/" + quote(part, safe="~")
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

    def _scrub(self, text: str) -> str:
        if self._api_key and self._api_key in text:
            text = text.replace(self._api_key, "[api key]")
        return text

    def error(self, message: str, **kwargs: Any) -> HostError:
        """A `HostError` whose message is guaranteed free of the API key."""
        return HostError(self._scrub(message), **kwargs)

    def error_for_exception(self, exc: httpx.HTTPError, *, action: str) -> HostError:
        """Translate a network-level failure into a `HostError` with a specific sentence."""
        chain = _exception_chain(exc)
        text = " ".join(str(e) for e in chain).lower()
        host = urlsplit(self._base).hostname or self._origin
        if isinstance(exc, httpx.TimeoutException):
            if isinstance(exc, httpx.ConnectTimeout):
                message = (
                    f"Cannot reach {self._origin} — no answer within {self._timeout:g} s. "
                    "Is the host running and reachable?"
                )
            else:
                message = (
                    f"The host at {self._origin} did not answer within {self._timeout:g} s "
                    f"when asked to {action}."
                )
            return self.error(message, code="timeout")
        if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
            return self.error(
                f"Cannot {action}: the URL is not usable ({_clean(str(exc))}).", code="invalid_url"
            )
        if isinstance(exc, httpx.ConnectError):
            if any(isinstance(e, ConnectionRefusedError) for e in chain) or "refused" in text:
                return self.error(
                    f"Cannot reach {self._origin} — connection refused. Is the host running?",
                    code="connection_refused",
                )
            if any(isinstance(e, socket.gaierror) for e in chain) or any(
                marker in text
                for marker in (
                    "name or service not known",
                    "nodename nor servname",
                    "temporary failure in name resolution",
                    "getaddrinfo failed",
                    "no address associated",
                    "name resolution",
                )
            ):
                return self.error(
                    f"Cannot reach {self._origin} — the name {host!r} does not resolve "
                    "(DNS lookup failed). Check the host URL.",
                    code="dns_failure",
                )
            if "ssl" in text or "certificate" in text or "tls" in text:
                return self.error(
                    f"Cannot reach {self._origin} — the TLS handshake failed "
                    f"({_clean(str(exc), 160)}).",
                    code="tls_error",
                )
            return self.error(
                f"Cannot reach {self._origin} — {_clean(str(exc), 160) or 'connection failed'}.",
                code="connection_error",
            )
        detail = _clean(str(exc), 160)
        return self.error(
            f"The connection to {self._origin} failed while trying to {action} "
            f"({type(exc).__name__}{': ' + detail if detail else ''}).",
            code="connection_error",
        )

    def error_for_response(
        self, response: httpx.Response, body: bytes, *, action: str, subject: str | None = None
    ) -> HostError:
        """Translate an HTTP error response into a `HostError` with a specific sentence.

        ``action`` completes "when asked to …"; ``subject`` names the workflow or run involved.
        Accepts ``{error, message, details?}``, ``{"error": "code"}`` alone (real hosts), and
        ``{"error": {code, message}}``; anything else is quoted as a non-JSON body.
        """
        status = response.status_code
        code: str | None = None
        host_message: str | None = None
        details: Any = None
        body_note = ""
        text = body.decode("utf-8", errors="replace")
        try:
            doc: Any = json.loads(text) if text.strip() else None
        except json.JSONDecodeError:
            doc = None
            body_note = f" The response body is not JSON: {_clean(text, _BODY_EXCERPT)!r}."
        if isinstance(doc, Mapping):
            error = doc.get("error")
            if isinstance(error, Mapping):  # {"error": {"code", "message"}} (older hosts)
                code = _text(error.get("code"))
                host_message = _text(error.get("message"))
            else:
                code = _text(error)
            host_message = _text(doc.get("message")) or host_message
            details = doc.get("details")
        elif doc is not None:
            body_note = f" The error body is not an object: {_clean(text, _BODY_EXCERPT)!r}."

        says = f" Host says: {_clean(host_message)}" if host_message else ""
        says = (says.rstrip(".") + ".") if says else ""
        says += body_note
        try:
            phrase = HTTPStatus(status).phrase.lower()
        except ValueError:
            phrase = "error"
        label = f"{status} {code or phrase}"
        retry_after = _retry_after(response)
        wait = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        what = f" {subject!r}" if subject else ""

        if status == 401:
            if self._api_key:
                message = (
                    f"The host rejected the API key ({label}). Set --api-key or OPENWOP_API_KEY."
                )
            else:
                message = f"The host needs an API key ({label}). Set --api-key or OPENWOP_API_KEY."
        elif status == 403:
            message = (
                f"The host refused to {action} with this API key ({label}): the key may lack "
                f"the scope for it.{says} Set --api-key or OPENWOP_API_KEY to a key that has it."
            )
        elif status == 404 and code == "workflow_not_found":
            message = f"The host has no workflow{what} ({label}).{says}"
        elif status == 404 and code == "run_not_found":
            message = f"The host does not know run{what} ({label}).{says}"
        elif status == 404:
            message = f"Not found: the host could not {action} ({label}).{says}"
        elif status == 409 and code == "run_already_active":
            message = (
                f"A run of this workflow is already active on the host ({label}{wait}). "
                f"Wait for it to finish or cancel it.{says}"
            )
        elif status == 409 and code == "idempotency_key_mismatch":
            message = (
                f"The host already received this request's Idempotency-Key with a different "
                f"body ({label}). Send it again as a new request.{says}"
            )
        elif status == 409 and code == "idempotency_in_flight":
            message = (
                f"The host is still processing an identical request ({label}{wait}); "
                f"wait for it instead of sending again.{says}"
            )
        elif status == 409 and code == "interrupt_already_resolved":
            message = f"That question was already answered ({label}).{says}"
        elif status == 409 and code == "run_terminal":
            message = f"The run has already finished ({label}).{says}"
        elif status == 409:
            message = f"The host refused to {action} because of a conflict ({label}).{says}"
        elif status == 410:
            message = f"It is too late to {action} ({label}).{says}"
        elif status == 422 and code == "capability_required":
            message = (
                f"The workflow{what} needs a capability this host does not have ({label}).{says}"
            )
        elif status == 429:
            message = f"The host is rate limiting requests ({label}{wait}).{says}"
        elif status == 406 or code == "protocol_version_unsupported":
            message = f"The host does not speak this protocol version ({label}).{says}"
        elif status == 426:
            message = f"The host requires a newer client ({label}).{says}"
        elif status in (502, 503, 504):
            message = (
                f"The host is unavailable ({label}{wait}) when asked to {action}; "
                f"try again shortly.{says}"
            )
        elif status >= 500:
            message = f"The host failed while trying to {action} ({label}).{says}"
        elif 300 <= status < 400:
            location = response.headers.get("location", "")
            message = (
                f"The host redirected the request to {action} ({label}) to "
                f"{_clean(location, 160)!r}; redirects are not followed. "
                "Use the final address as the host URL."
            )
            code = code or "redirect"
        elif status >= 400:
            message = f"The host rejected the request to {action} ({label}).{says}"
        else:
            message = f"The host answered {label} when asked to {action}.{says}"
        return self.error(
            message, status=status, code=code, retry_after=retry_after, details=details
        )

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
        """Send one request; return the response and its decoded JSON (``None`` when empty)."""
        headers = self.request_headers(auth=auth)
        if extra_headers:
            headers.update(extra_headers)
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
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
            raise self.error_for_exception(exc, action=action) from None
        if not 200 <= response.status_code < 300:
            raise self.error_for_response(
                response, response.content, action=action, subject=subject
            )
        text = response.text
        if not text.strip():
            return response, None
        try:
            return response, json.loads(text)
        except json.JSONDecodeError:
            raise self.error(
                f"The host answered {response.status_code} when asked to {action}, but the body "
                f"is not JSON: {_clean(text, _BODY_EXCERPT)!r}.",
                status=response.status_code,
                code="bad_response",
            ) from None

    def _expect_object(self, response: httpx.Response, doc: Any, *, action: str) -> dict[str, Any]:
        if isinstance(doc, Mapping):
            return dict(doc)
        kind = "an empty body" if doc is None else f"a JSON {type(doc).__name__}"
        raise self.error(
            f"The host answered {response.status_code} when asked to {action}, but sent {kind} "
            "instead of a JSON object.",
            status=response.status_code,
            code="bad_response",
        )

    async def discover(self) -> Discovery:
        """``GET /.well-known/openwop`` (no Bearer) and negotiate the protocol major."""
        url = self._base + DISCOVERY_PATH
        action = "describe itself (discovery)"
        headers = {"Accept": "application/json", "OpenWOP-Version": "2"}
        try:
            response = await self._http.get(url, headers=headers)
            if response.status_code in (400, 406):
                # A strict v1 host may reject the version header it does not know; ask plainly.
                response = await self._http.get(url, headers={"Accept": "application/json"})
        except httpx.HTTPError as exc:
            raise self.error_for_exception(exc, action=action) from None
        if response.status_code == 404:
            raise self.error(
                f"There is no OpenWOP discovery document at {self._origin}{DISCOVERY_PATH} "
                "(404). Is this an OpenWOP host, and is the URL right?",
                status=404,
                code=None,
            )
        if not 200 <= response.status_code < 300:
            raise self.error_for_response(response, response.content, action=action)
        try:
            doc = json.loads(response.text)
        except json.JSONDecodeError:
            content_type = response.headers.get("content-type", "no content type")
            raise self.error(
                f"{self._origin}{DISCOVERY_PATH} did not return a JSON discovery document "
                f"(got {_clean(content_type, 60)}): is this an OpenWOP host?",
                status=response.status_code,
                code="bad_response",
            ) from None
        if not isinstance(doc, Mapping):
            raise self.error(
                f"The discovery document at {self._origin}{DISCOVERY_PATH} is a JSON "
                f"{type(doc).__name__}, not an object: is this an OpenWOP host?",
                status=response.status_code,
                code="bad_response",
            )
        discovery = Discovery.from_document(
            doc, version_header=response.headers.get("openwop-version")
        )
        self._major = discovery.major
        self._discovery = discovery
        return discovery

    async def create_run(
        self,
        workflow_id: str,
        inputs: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> RunHandle:
        """``POST …/runs``. Pass one ``idempotency_key`` per user send; one is made if omitted."""
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
            raise self.error(
                f"The host answered {response.status_code} when asked to {action}, but the body "
                f"has no runId: {_clean(json.dumps(created), _BODY_EXCERPT)!r}.",
                status=response.status_code,
                code="bad_response",
            )
        return RunHandle(
            run_id=run_id,
            status=_text(created.get("status")),
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
        """``POST …/runs/{runId}/interrupts/{nodeId}`` with ``{"resumeValue": …}``."""
        action = f"answer the question of step {node_id!r}"
        response, doc = await self._send(
            "POST",
            self._path(run_id, "interrupts", node_id),
            action=action,
            subject=run_id,
            body={"resumeValue": resume_value},
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )
        return {} if doc is None else self._expect_object(response, doc, action=action)

    async def poll_events(
        self, run_id: str, after_sequence: int | None, *, timeout: float = 30.0
    ) -> dict[str, Any]:
        """``GET …/events/poll``: events after ``after_sequence`` (``None``: from the start).

        The spec names the cursor ``afterSequence``; the reference hosts read ``lastSequence``
        (protocol.md §3.5, and their source). Both are sent with the same value.
        """
        cursor = str(after_sequence if after_sequence is not None else -1)
        action = f"list the events of run {run_id!r}"
        response, doc = await self._send(
            "GET",
            self.poll_url(run_id),
            action=action,
            subject=run_id,
            params={"afterSequence": cursor, "lastSequence": cursor, "timeout": f"{timeout:g}"},
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
