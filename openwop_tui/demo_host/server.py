"""The HTTP side: routing, Bearer auth, JSON errors, SSE, the asset route and the media upload
route (`uploads`, with a body limit of its own).

With ``protocol=1`` the host serves ``/v1/…`` only. With ``protocol=2`` it is a dual-stack host
of the v1/v2 overlap: ``/v1/…`` as before, and the bare paths (``/runs``, …) in the major the
request's ``OpenWOP-Version`` selects; every response then names its contract in the
``OpenWOP-Version`` header (versioning.md §1.3-§1.4). What differs between the majors on the
wire is `openwop_tui.demo_host.wire`.

Standard library only (`http.server`): one thread per connection, so any number of SSE streams
can be open while other requests are served. HTTP/1.1 with keep-alive for JSON; an SSE response
closes its connection when the run ends, which is what marks the end of its body.

Nothing is written to stdout or stderr: the TUI owns the terminal. A client that goes away
mid-response is normal (a closed stream, an abandoned 48 MiB download) and is dropped quietly.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import re
import socket
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from openwop_tui.demo_host import (
    extra_routes,
    openapi,
    pausing,
    routes,
    run_list,
    uploads,
    well_known,
)
from openwop_tui.demo_host.assets import ASSET_PREFIX, AssetStore
from openwop_tui.demo_host.discovery import DEFAULT_MAX_BODY_BYTES
from openwop_tui.demo_host.faults import Faults
from openwop_tui.demo_host.mediatypes import MAX_UPLOAD_BYTES, UPLOAD_BODY_LIMIT, UPLOAD_ROUTE
from openwop_tui.demo_host.routes import HttpError, Request
from openwop_tui.demo_host.runs import RunStore
from openwop_tui.demo_host.wire import (
    RUN_ID_SEGMENT,
    TENANT,
    V1,
    V1_OF_DUAL_STACK,
    Wire,
    protocol_versions,
    v2_error_code,
    wire_for,
)

logger = logging.getLogger(__name__)

#: How much of an over-limit body is read and thrown away so the client sees the 413. Closing
#: with the body unread makes the kernel reset the connection, and a client still sending (an
#: async httpx client, measured) gets a ReadError instead of the answer. Past this, the host
#: stops reading and closes anyway.
DRAIN_LIMIT = 64 * 1024 * 1024
_DRAIN_CHUNK = 64 * 1024

_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)
#: The authenticated routes, without the major's prefix (``/v1`` for v1, none for v2):
#: (path pattern, method, route function).
_RUN_ROUTES: tuple[tuple[re.Pattern[str], str, routes.Route], ...] = (
    (re.compile(r"^/runs$"), "POST", routes.create),
    (re.compile(r"^/runs$"), "GET", run_list.list_runs),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}$"), "GET", routes.snapshot),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}/events$"), "GET", routes.events),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}/events/poll$"), "GET", routes.poll),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}/cancel$"), "POST", routes.cancel),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}:pause$"), "POST", pausing.pause),
    (re.compile(rf"^/runs/{RUN_ID_SEGMENT}:resume$"), "POST", pausing.resume),
)
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class DemoHTTPServer(ThreadingHTTPServer):
    """A threading server that can end every connection it has open, for a prompt stop()."""

    # Handler threads are daemons (an app that forgets stop() must still be able to exit),
    # which the stdlib mixin then refuses to join; so they are tracked and joined here.
    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        address: tuple[str, int],
        store: RunStore,
        assets: AssetStore,
        api_key: str,
        keepalive: float | None,
        faults: Faults | None = None,
        protocol: int = 1,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        more_keys: Mapping[str, str] | None = None,
    ) -> None:
        """Bind to ``address``; requests are served by `DemoRequestHandler`.

        Args:
            address: ``(host, port)`` to listen on; port 0 takes a free one.
            store: The runs and workflows served.
            assets: The media served.
            api_key: The key authenticated routes want.
            keepalive: Seconds of silence before a keep-alive comment; None never sends one.
            faults: The faults injected into event streams; None for none.
            protocol: 1: a v1-only host; 2: a dual-stack host of the overlap (v1 and v2, see
                `wire`).
            max_body_bytes: Requests with a bigger body are refused (413) without reading it;
                discovery says so.
            more_keys: Further API keys, each mapped to the tenant it authenticates (``api_key``
                is `TENANT`'s); None for none.
        """
        self.store, self.assets, self.api_key = store, assets, api_key
        self.keys: dict[str, str] = {api_key: TENANT, **(more_keys or {})}
        """Every API key the host takes, and the tenant each one is."""
        self.protocol = protocol
        self.max_body_bytes = max_body_bytes
        """Requests with a bigger body are refused (413) without reading it; discovery says so."""
        """1: a v1-only host; 2: a dual-stack host of the overlap (v1 and v2, see `wire`)."""
        self.keepalive = keepalive
        """Seconds of silence before a keep-alive comment; ``None``: never send one."""
        self.faults = faults or Faults()
        self._open: set[socket.socket] = set()
        self._handlers: list[threading.Thread] = []
        self._open_lock = threading.Lock()
        super().__init__(address, DemoRequestHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"openwop-demo-conn-{client_address[1]}",
            daemon=True,
        )
        with self._open_lock:
            if isinstance(request, socket.socket):
                self._open.add(request)
            self._handlers = [t for t in self._handlers if t.is_alive()]
            self._handlers.append(thread)
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def abort_connections(self) -> None:
        """Shut down every open connection, unblocking handlers waiting on idle keep-alives."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def join_handlers(self, timeout: float = 5.0) -> None:
        """Wait for every connection thread to finish (after `abort_connections`)."""
        with self._open_lock:
            threads = list(self._handlers)
        for thread in threads:
            thread.join(timeout)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The default prints a traceback to stderr, which would scribble over the TUI.
        logger.debug("demo host request from %s failed", client_address, exc_info=True)


class DemoRequestHandler(BaseHTTPRequestHandler):
    """One connection; one method per route (the route table is `_RUN_ROUTES`)."""

    protocol_version = "HTTP/1.1"
    server_version = "openwop-tui-demo"
    timeout = 120  # idle keep-alive connections give up after this long
    # Headers and body go out in separate writes; with Nagle on, delayed ACKs add ~40 ms to
    # every keep-alive response on loopback.
    disable_nagle_algorithm = True

    @property
    def host(self) -> DemoHTTPServer:
        """The server, with its run store, assets and key."""
        server = self.server
        assert isinstance(server, DemoHTTPServer)
        return server

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing: the terminal belongs to the TUI."""

    wire: Wire = V1
    """The major the current request selected (set per request by `_route`)."""
    tenant: str = TENANT
    """The tenant the current request's key authenticates (set by `_authorise`)."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """JSON instead of the stdlib's HTML page (used for malformed requests)."""
        self.close_connection = True
        self.send_json(
            code,
            {
                "error": "bad_request" if code < 500 else "internal_error",
                "message": message or "malformed request",
            },
        )

    def do_GET(self) -> None:
        self._dispatch()

    def do_HEAD(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    # -- plumbing -----------------------------------------------------------------------------

    def _dispatch(self) -> None:
        self._sent_headers = False
        self.wire = V1
        self.tenant = TENANT
        try:
            self._route()
        except HttpError as error:
            self._error(error)
        except _CLIENT_GONE:
            self.close_connection = True
        except Exception:  # never let a bug kill the thread noisily; answer 500 if we still can
            logger.debug(
                "demo host handler crashed on %s %s", self.command, self.path, exc_info=True
            )
            self.close_connection = True
            if not self._sent_headers:
                try:
                    self._error(HttpError(500, "internal_error", "the demo host hit a bug"))
                except (*_CLIENT_GONE, OSError):
                    pass

    def begin(self, status: int, headers: dict[str, str]) -> None:
        """Send the status line and headers; the caller writes the body."""
        self.send_response(status)
        if self.close_connection:
            # Say so: a keep-alive client that is not told sends its next request on a socket
            # the host is closing, and gets a ReadError instead of an answer.
            headers = {"Connection": "close", **headers}
        for name, value in {**self.wire.headers(), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self._sent_headers = True

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """Answer with a JSON body (no body for HEAD); ``headers`` override the defaults."""
        data = json.dumps(body).encode()
        self.begin(
            status,
            {
                "Content-Type": "application/json",
                "Content-Length": str(len(data)),
                "Cache-Control": "no-store",
                **(headers or {}),
            },
        )
        if self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, error: HttpError) -> None:
        """Answer with the JSON error body ``{error, message, details?}``."""
        code = v2_error_code(error.code) if self.wire.major == 2 else error.code
        body: dict[str, Any] = {"error": code, "message": error.message}
        if error.details is not None:
            body["details"] = error.details
        self.send_json(error.status, body, error.headers)

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise HttpError(411, "length_required", "send the body with a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise HttpError(400, "validation_error", "bad Content-Length") from None
        if length < 0:
            self.close_connection = True
            raise HttpError(400, "validation_error", "bad Content-Length")
        # The upload route has a limit of its own: an attachment of up to 6 MiB, as base64.
        upload = urlsplit(self.path).path == UPLOAD_ROUTE
        limit = UPLOAD_BODY_LIMIT if upload else self.host.max_body_bytes
        if length > limit:
            self.close_connection = True  # whatever is left unread would desynchronise keep-alive
            self._drain(length)
            said = (
                f"an upload's body is at most {limit} bytes (a file of at most "
                f"{MAX_UPLOAD_BYTES} bytes as base64, aiProviders.mediaUpload.maxBytes)"
                if upload
                else f"this host accepts at most {limit} (limits.maxRequestBodyBytes in discovery)"
            )
            raise HttpError(
                413,
                "payload_too_large",
                f"the request body is {length} bytes; {said}",
                {"maxRequestBodyBytes": limit, "receivedBytes": length},
            )
        return self.rfile.read(length) if length else b""

    def _drain(self, length: int) -> None:
        """Read and discard up to `DRAIN_LIMIT` bytes of a refused body, in small pieces."""
        left = min(length, DRAIN_LIMIT)
        while left > 0:
            piece = self.rfile.read(min(left, _DRAIN_CHUNK))
            if not piece:  # the client stopped sending
                return
            left -= len(piece)

    def _authorise(self) -> str:
        """The tenant the request's Bearer key names (also kept as `tenant`); 401 without one."""
        scheme, _, token = self.headers.get("Authorization", "").partition(" ")
        given = token.strip().encode()
        found = None
        # compare_digest against every key: the check must not leak how many characters matched.
        for key, tenant in self.host.keys.items():
            if hmac.compare_digest(given, key.encode()):
                found = tenant
        if scheme.lower() != "bearer" or found is None:
            raise HttpError(
                401,
                "unauthorized",
                "a valid 'Authorization: Bearer <key>' is required",
                headers={"WWW-Authenticate": 'Bearer realm="openwop-tui-demo"'},
            )
        self.tenant = found
        return found

    def _route(self) -> None:
        # Read the body first, whatever happens next, so a keep-alive connection stays in sync.
        try:
            body = self._body()
        except HttpError:
            self.wire = self._wire_of_path()  # a refused body is answered in the request's major
            raise
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query, keep_blank_values=True)
        method = self.command
        if path == "/.well-known/openwop":
            self._allow(method, "GET", "HEAD")
            return well_known.discovery(self, Request(None, body, query))
        if path in ("/openapi.json", "/v1/openapi.json"):
            # Public, like discovery and the reference hosts' description of their API.
            self._allow(method, "GET", "HEAD")
            return openapi.serve(self, path)
        if path.startswith(ASSET_PREFIX):
            self._allow(method, "GET", "HEAD")
            return self._asset(path.removeprefix(ASSET_PREFIX))
        if path == UPLOAD_ROUTE:
            # A host route, not a protocol path: served whatever OpenWOP-Version says.
            self._authorise()
            self._allow(method, "POST")
            return uploads.upload(self, Request(None, body, query))
        version = self.headers.get("OpenWOP-Version")
        if path.startswith("/v1/"):
            if self.host.protocol == 2:
                self.wire = V1_OF_DUAL_STACK
            if version is not None and version.strip().split(".")[0] != "1":
                raise HttpError(
                    400,
                    "protocol_version_mismatch",
                    "a /v1/ path takes no OpenWOP-Version header but 1"
                    + ("; use the bare paths for v2" if self.host.protocol == 2 else ""),
                    {"protocolVersions": list(protocol_versions(self.host.protocol))},
                )
            path = path.removeprefix("/v1")
        elif self.host.protocol == 2:
            # Bare paths are the v2 surface; without the header they are served as the
            # preferred major, which through the overlap is 1 (versioning.md §1.3).
            self.wire = routes.negotiated(version)
        else:
            raise HttpError(404, "not_found", f"no route for {path!r}")
        # Interrupts and catalogs (extra_routes.py); the token route needs no Bearer key.
        if extra_routes.dispatch_public(self, method, path, body):
            return None
        self._authorise()
        if extra_routes.dispatch(self, method, path, body):
            return None
        found = [(p.match(path), m, r) for p, m, r in _RUN_ROUTES if p.match(path)]
        for match, allowed, route in found:
            if method == allowed and match is not None:
                run_id = match.group(1) if match.re.groups else None
                return route(self, Request(run_id, body, query))
        if found:
            self._allow(method, *(allowed for _, allowed, _ in found))
        raise HttpError(404, "not_found", f"no route for {path!r}")

    def _wire_of_path(self) -> Wire:
        """The major a request's path and header select, without refusing anything."""
        if self.host.protocol != 2:
            return V1
        if urlsplit(self.path).path.startswith("/v1/"):
            return V1_OF_DUAL_STACK
        return wire_for(self.headers.get("OpenWOP-Version")) or V1_OF_DUAL_STACK

    def _allow(self, method: str, *allowed: str) -> None:
        if method not in allowed:
            raise HttpError(
                405,
                "method_not_allowed",
                f"{method} is not allowed here",
                headers={"Allow": ", ".join(allowed)},
            )

    def _asset(self, token: str) -> None:
        asset = self.host.assets.get(token) if _TOKEN.match(token) else None
        # An upload is its tenant's alone: no key is 401, another tenant's key the same 404 as
        # a token never issued (nothing to learn about what others uploaded).
        if asset is not None and asset.tenant is not None and self._authorise() != asset.tenant:
            asset = None
        if asset is None:
            raise HttpError(404, "not_found", "no such asset")
        self.begin(
            200,
            {
                "Content-Type": asset.content_type,
                "Content-Length": str(asset.size),
                "Cache-Control": "private, max-age=300",
                "X-Content-Type-Options": "nosniff",
            },
        )
        if self.command == "HEAD":
            return
        for piece in asset.chunks():
            self.wfile.write(piece)
