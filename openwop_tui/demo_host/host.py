"""`DemoHost`: the embedded OpenWOP host as an object the app, the CLI and tests can start.

It binds on loopback (a random free port by default), serves from a daemon thread, and stops
cleanly: workflows halted, open streams ended, every thread joined.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from openwop_tui.demo_host.assets import AssetStore
from openwop_tui.demo_host.discovery import DEFAULT_MAX_BODY_BYTES
from openwop_tui.demo_host.faults import Faults
from openwop_tui.demo_host.identity import Identity
from openwop_tui.demo_host.runs import RunStore
from openwop_tui.demo_host.server import DemoHTTPServer
from openwop_tui.demo_host.workflows import WORKFLOWS

#: The key the demo host accepts unless told otherwise. Not a secret: it only guards loopback.
DEFAULT_API_KEY = "openwop-tui-demo-key"


class DemoHost:
    """A real OpenWOP HTTP server running in this process: v1, or with ``protocol=2`` v1 and v2.

    Its settings (pace, keep-alives, faults, the size limit) are described in the constructor's
    ``Args:``.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        pace: float = 1.0,
        keepalive: float = 15.0,
        deterministic: bool = False,
        drop_every: int = 0,
        garbage_every: int = 0,
        stall_ms: int = 0,
        status: int | None = None,
        status_times: int = 1,
        protocol: int = 1,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        more_keys: Mapping[str, str] | None = None,
    ) -> None:
        """Check the settings; the server starts in `start`.

        Args:
            host: The address to listen on.
            port: The port to listen on; 0 takes a free one.
            api_key: The key the host accepts; None for `DEFAULT_API_KEY`.
            pace: Multiplies every delay between events (1 feels like a model typing; 0 removes all
                delays, for tests).
            keepalive: The SSE keep-alive interval in seconds (0: none).
            deterministic: True makes ids, tokens and timestamps repeatable (snapshot tests only).
            drop_every: Each event-stream connection sends this many events whole, then half a
                frame, then closes (0: off; see `openwop_tui.demo_host.faults`).
            garbage_every: After every this many events a connection sends a frame that is not JSON
                (0: off).
            stall_ms: A pause in milliseconds before each event frame (0: off).
            status: An error status (400 to 599) the first events requests of each run are answered
                with; None: off.
            status_times: How many events requests of each run get ``status``.
            protocol: 1 serves v1 only; 2 serves v1 and v2 (a host of the overlap).
            max_body_bytes: The request size limit it advertises (``limits.maxRequestBodyBytes``)
                and enforces (413).
            more_keys: Further API keys it accepts, each mapped to the tenant it names (``api_key``
                names ``demo``). A media upload is served only to its tenant's keys; runs are not
                partitioned. None: the one key.
        """
        if max_body_bytes < 1:
            raise ValueError("max_body_bytes must be at least 1")
        self.max_body_bytes = max_body_bytes
        """Request bodies above this many bytes are refused with 413 (and advertised)."""
        if protocol not in (1, 2):
            raise ValueError("protocol must be 1 (v1 only) or 2 (v1 and v2)")
        self.protocol = protocol
        """1: serve v1 only; 2: serve v1 and v2 (a host of the overlap, `server`)."""
        if pace < 0:
            raise ValueError("pace must be >= 0")
        if keepalive < 0:
            raise ValueError("keepalive must be >= 0 (0: no keep-alives)")
        self.faults = Faults(drop_every, garbage_every, stall_ms, status, status_times)
        """The faults this host injects into its event streams."""
        self._host = host
        self._port = port
        self._api_key = DEFAULT_API_KEY if api_key is None else api_key
        self._pace = pace
        self._keepalive = keepalive
        self._deterministic = deterministic
        self._more_keys = dict(more_keys or {})
        self._server: DemoHTTPServer | None = None
        self._store: RunStore | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:<port>`` (the bound port once started)."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    @property
    def api_key(self) -> str:
        """The Bearer key every protocol call but discovery needs."""
        return self._api_key

    def start(self) -> None:
        """Bind and serve in a daemon thread; on return the host accepts connections."""
        if self._server is not None:
            raise RuntimeError("the demo host is already running")
        identity = Identity(deterministic=self._deterministic)
        assets = AssetStore(identity)
        store = RunStore(WORKFLOWS, assets, self._pace, identity)
        # Binding and listen() happen in the constructor, so connections queue from here on.
        server = DemoHTTPServer(
            (self._host, self._port),
            store,
            assets,
            self._api_key,
            self._keepalive or None,
            self.faults,
            self.protocol,
            self.max_body_bytes,
            self._more_keys,
        )
        self._port = int(server.server_address[1])
        store.base_url = self.url
        self._server, self._store = server, store
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="openwop-demo-host",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, end open streams and workflows, and join every thread. Idempotent."""
        server, store, thread = self._server, self._store, self._thread
        if server is None or store is None or thread is None:
            return
        self._server = self._store = self._thread = None
        server.shutdown()  # no new connections
        store.shutdown()  # workflows stop; waiting SSE and poll handlers wake and return
        server.abort_connections()  # idle keep-alive connections and stalled downloads
        server.join_handlers()
        server.server_close()  # closes the listening socket
        thread.join()

    def __enter__(self) -> DemoHost:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def serve_forever(port: int = 0, api_key: str | None = None, **options: Any) -> None:
    """Run the demo host in the foreground (``openwop-tui demo-host``) until Ctrl-C.

    ``options`` are `DemoHost` keywords (``keepalive``, ``max_body_bytes`` and the faults)."""
    host = DemoHost(port=port, api_key=api_key, **options)
    host.start()
    try:
        print(f"OpenWOP demo host listening on {host.url}")
        print(f"API key: {host.api_key}")
        if host.faults.active:
            print(f"Injected faults: {host.faults.describe()}")
        if host.protocol == 2:
            print("Protocol: v1 on /v1/…, v2 on the bare paths with OpenWOP-Version: 2")
        print(f"Try: OPENWOP_BASE_URL={host.url} OPENWOP_API_KEY={host.api_key} openwop-tui")
        print("Press Ctrl-C to stop.", flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        print("\nStopping the demo host.", flush=True)
    finally:
        host.stop()
