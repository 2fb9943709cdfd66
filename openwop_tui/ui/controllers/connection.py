"""Reaching the host: the embedded demo host started when no host is given, the sound card
probed, the HTTP client made, then each tab linked to it: its own `Session` (its own run in
flight) over the one client, and discovery read (by the tab's runs controller, which decides
what happens next: attach, pick a workflow, send what was typed meanwhile, say what the demo
host offers).

`ConnectionController` owns the demo host and the client, one for the whole app (every tab talks
to the same host; it closes both when the app goes), and tells the tabs' status lines where
things stand with `ConnectionChanged` and `HostShown`. A tab opened later is linked by `link`.
It is also the one place the connection changes while the app runs (the settings screen's host
and key): `trial` connects to a host with a key beside the connection in use (discovery and a
read that needs the key), and `switch` makes what was tried the app's connection, every tab's
session on it, so everything that reads ``chat.client`` and ``chat.session`` (every chat, every
controller) uses it from then on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from openwop_tui.core.session import Session
from openwop_tui.devices.audio import probe
from openwop_tui.protocol.client import Discovery, HostClient, HostError
from openwop_tui.protocol.hostdata import secrets_of
from openwop_tui.renderers.base import AudioSupport
from openwop_tui.text.redact import display_url
from openwop_tui.text.sanitize import clean_own
from openwop_tui.ui.controllers.chat import Common
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.messages import Connection, ConnectionChanged, HostShown, WorkflowChosen

if TYPE_CHECKING:
    from openwop_tui.demo_host import DemoHost
    from openwop_tui.ui.controllers.tab import Tab
    from openwop_tui.ui.controllers.tabs import TabsController

Told = ConnectionChanged | HostShown | WorkflowChosen


@dataclass(frozen=True, slots=True)
class Trial:
    """A host that answered with a key: connected beside the app's connection, not yet it."""

    host: str | None
    """The host's URL as configured (``None``: the embedded demo host)."""
    api_key: str | None
    """The key it accepted (the demo host's own for the demo host)."""
    client: HostClient
    discovery: Discovery
    """Its discovery document, read by the trial."""

    async def drop(self) -> None:
        """Not used after all: close its client."""
        await self.client.aclose()


class ConnectionController:
    """Makes (and closes) the app's connection to its host, and links each tab to it."""

    def __init__(
        self,
        common: Common,
        tabs: TabsController,
        lab: LabController,
        demo_host: DemoHost | None = None,
    ) -> None:
        """Keep what connecting needs.

        Args:
            common: What every tab shares: the host link is set there.
            tabs: The open tabs, each linked to the host once it is reached.
            lab: Told the sound card's answer once it is probed.
            demo_host: An embedded host to use when the config names none (a test's); None starts
                the default one when needed.
        """
        self.common = common
        self.tabs = tabs
        self.lab = lab
        self.demo_host = demo_host
        """The embedded host (``None`` until started, unless a test gave one)."""
        self._demo_started = False
        """This controller started `demo_host` (and stops it when the app goes)."""
        self._secrets: tuple[str, ...] = ()
        """The key's forms a host may echo (`secrets_of`), masked in every tab."""

    def _status(self, make: Callable[[], Told], tabs: list[Tab] | None = None) -> None:
        """Tell the status line of each of ``tabs`` (default: every tab) what ``make`` says."""
        for tab in self.tabs.tabs if tabs is None else tabs:
            tab.chat.parts.status.post_message(make())

    def runs_going(self) -> bool:
        """A run is going in some tab (the connection is not changed under it)."""
        return any(tab.runs.busy for tab in self.tabs.tabs)

    async def connect(self) -> None:
        """Start the demo host if needed, make the client, then link every open tab."""
        common = self.common
        config = common.config
        self._status(lambda: ConnectionChanged(Connection.CONNECTING))
        self._status(lambda: WorkflowChosen(clean_own(config.workflow)))  # the user's config
        if self.lab.audio_support is None:
            self.lab.set_audio(
                await asyncio.to_thread(probe)
                if config.audio
                else AudioSupport(False, "audio is off (--no-audio)")
            )
        else:
            self.lab.set_audio(self.lab.audio_support)
        host, api_key = config.host, config.api_key
        if host is None:
            try:
                # In a thread, the import too: the app's loop keeps drawing and reading keys
                # meanwhile (the host's modules load and its server starts on the other core).
                demo = await asyncio.to_thread(self._start_demo_host)
            except OSError as error:
                await self.tabs.chat.notice(
                    "error", f"could not start the embedded demo host: {error}"
                )
                self._status(lambda: ConnectionChanged(Connection.ERROR))
                return
            host, api_key = demo.url, demo.api_key
            common.redact = common.redact.with_secrets(api_key)
            common.host_label, common.demo = "embedded demo host", True
        else:
            common.host_label = display_url(host)
        label = clean_own(common.host_label)  # the user's host, or the demo
        self._status(lambda: HostShown(label))
        try:
            # In a thread: making the client loads httpx and builds its TLS context (tens of
            # milliseconds the loop would otherwise not draw or read keys in).
            common.client = await asyncio.to_thread(HostClient, host, api_key)
        except HostError as error:  # a URL the client cannot use, e.g. a port that is not one
            self._status(lambda: ConnectionChanged(Connection.ERROR))
            await self.tabs.chat.notice("error", error.message)
            return
        self._secrets = secrets_of(api_key)
        for tab in list(self.tabs.tabs):
            await self.link(tab)

    def _session(self, client: HostClient, workflow: str) -> Session:
        """A session on ``client`` running ``workflow``, as the configuration says."""
        config = self.common.config
        return Session(
            client,
            workflow_id=workflow,
            max_asset_bytes=config.max_asset_bytes,
            stream_modes=config.stream_modes,
            idle_timeout=config.idle_timeout or None,
            reconnect_budget=config.reconnect_minutes * 60,
        )

    async def link(self, tab: Tab, workflow: str | None = None) -> None:
        """Give ``tab`` its session on the host (over the app's client) and read discovery for
        it; nothing before the client is made (`connect` links every tab then), nor twice.
        ``workflow``: the one its messages run (a tab opened from another takes that one's);
        None: the configured one."""
        chat, client = tab.chat, self.common.client
        if client is None or chat.session is not None:
            return
        chat.session = self._session(client, workflow or self.common.config.workflow)
        chat.conversation.session = chat.session
        chat.add_secrets(self._secrets)
        # (A tab opened after `connect` began was not told these.)
        label, chosen = clean_own(self.common.host_label), clean_own(chat.session.workflow_id)
        self._status(lambda: HostShown(label), [tab])
        self._status(lambda: WorkflowChosen(chosen), [tab])
        await tab.runs.discover()

    async def trial(self, host: str | None, api_key: str | None) -> Trial:
        """Connect to ``host`` with ``api_key`` beside the connection in use, as `connect`
        does (discovery, then a read that needs the key); raises `HostError` saying why not,
        and nothing of the app changes either way.

        Args:
            host: The host's URL; ``None``: the embedded demo host (started if it is not).
            api_key: The key to send (the demo host's own is used for the demo host).
        """
        url, key = host, api_key
        if host is None:
            try:
                demo = await asyncio.to_thread(self._start_demo_host)
            except OSError as error:
                raise HostError(
                    f"could not start the embedded demo host: {error}", code="connection_error"
                ) from None
            url, key = demo.url, demo.api_key
        assert url is not None
        client = await asyncio.to_thread(HostClient, url, key)
        try:
            discovery = await client.discover()
        except BaseException:
            await client.aclose()
            raise
        return Trial(host, key, client, discovery)

    async def switch(
        self,
        trial: Trial,
        workflow: str,
        *,
        key_from: str = "",
        new_chat: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Make ``trial`` the app's connection: every tab's next message goes to its host with
        its key; the old client is closed. Then each tab reads discovery again through its runs
        controller, which updates its status line, settles its workflow and sends what waited.

        Args:
            trial: The host and key that answered (`trial`).
            workflow: What each message runs from now on.
            key_from: Where its key comes from (`openwop_tui.config.Config.key_from`).
            new_chat: Opens a new chat on the new connection (a host change: in a tab of its
                own, the others stay), before discovery is read; None opens none (a new key).
        """
        common = self.common
        old = common.client
        key = trial.api_key
        common.config = replace(
            common.config,
            host=trial.host,
            api_key=key if trial.host is not None else None,
            key_from=key_from if trial.host is not None else "",
            workflow=workflow,
        )
        common.redact = common.redact.with_secrets(key)
        mask_also = getattr(common.app, "mask_also", None)
        if mask_also is not None:  # (notifications and the log file: `GuardedApp`)
            mask_also(key)
        self._secrets = secrets_of(key)
        common.demo = trial.host is None
        common.host_label = "embedded demo host" if common.demo else display_url(trial.host or "")
        common.client = trial.client
        tabs = list(self.tabs.tabs)
        for tab in tabs:
            chat = tab.chat
            chat.add_secrets(self._secrets)
            chat.session = self._session(trial.client, workflow)
            chat.session.discovery = trial.discovery
            chat.conversation.session = chat.session
        label = clean_own(common.host_label)  # the user's host, or the demo
        self._status(lambda: HostShown(label))
        self._status(lambda: WorkflowChosen(clean_own(workflow)))  # the user's setting
        if old is not None and old is not trial.client:
            await old.aclose()
        if new_chat is not None:
            await new_chat()  # (its tab is linked as it opens)
        for tab in tabs:
            await tab.runs.discover()

    def _start_demo_host(self) -> DemoHost:
        """The embedded host, started (in a worker thread: `connect`)."""
        # Imported here: against a real host the demo host (and Pillow's drawing code behind
        # it) is never needed, so start-up does not pay for it.
        from openwop_tui.demo_host import DemoHost

        self.demo_host = self.demo_host or DemoHost(pace=self.common.config.demo_pace)
        if not self._demo_started:
            self.demo_host.start()
            self._demo_started = True
        return self.demo_host

    async def close(self) -> None:
        """The app is going: close the client and stop the demo host this app started."""
        if self.common.client is not None:
            await self.common.client.aclose()
        if self.demo_host is not None and self._demo_started:
            await asyncio.to_thread(self.demo_host.stop)
