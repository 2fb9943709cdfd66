"""Reaching the host: the embedded demo host started when no host is given, the sound card
probed, the HTTP client and the session made, then discovery read (by the runs controller, which
decides what happens next: attach, pick a workflow, send what was typed meanwhile).

`ConnectionController` owns the demo host and the client (it closes both when the app goes)
and tells the status line where things stand with `ConnectionChanged` and `HostShown`. It is
also the one place the connection changes while the app runs (the settings screen's host and
key): `trial` connects to a host with a key beside the connection in use (discovery and a read
that needs the key), and `switch` makes what was tried the chat's connection, so everything that
reads ``chat.client`` and ``chat.session`` (every chat, every controller) uses it from then on.
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
from openwop_tui.ui.controllers.chat import Chat
from openwop_tui.ui.controllers.profile import LabController
from openwop_tui.ui.controllers.runs import RunsController
from openwop_tui.ui.messages import Connection, ConnectionChanged, HostShown, WorkflowChosen

if TYPE_CHECKING:
    from openwop_tui.demo_host import DemoHost


@dataclass(frozen=True, slots=True)
class Trial:
    """A host that answered with a key: connected beside the chat's connection, not yet it."""

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
    """Makes (and closes) the chat's connection to its host."""

    def __init__(
        self,
        chat: Chat,
        runs: RunsController,
        lab: LabController,
        demo_host: DemoHost | None = None,
    ) -> None:
        """Keep what connecting needs.

        Args:
            chat: What every controller works on.
            runs: Discovers the host's workflows once connected.
            lab: Told the sound card's answer once it is probed.
            demo_host: An embedded host to use when the config names none (a test's); None starts
                the default one when needed.
        """
        self.chat = chat
        self.runs = runs
        self.lab = lab
        self.demo_host = demo_host
        """The embedded host (``None`` until started, unless a test gave one)."""
        self._demo_started = False
        """This controller started `demo_host` (and stops it when the app goes)."""

    def _status(self, message: ConnectionChanged | HostShown | WorkflowChosen) -> None:
        self.chat.parts.status.post_message(message)

    async def connect(self) -> None:
        """Start the demo host if needed, then read the host's discovery document."""
        chat = self.chat
        config = chat.config
        self._status(ConnectionChanged(Connection.CONNECTING))
        self._status(WorkflowChosen(clean_own(config.workflow)))  # the user's configuration
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
                await chat.notice("error", f"could not start the embedded demo host: {error}")
                self._status(ConnectionChanged(Connection.ERROR))
                return
            host, api_key = demo.url, demo.api_key
            chat.redact = chat.redact.with_secrets(api_key)
            chat.host_label, chat.demo = "embedded demo host", True
        else:
            chat.host_label = display_url(host)
        self._status(HostShown(clean_own(chat.host_label)))  # the user's host, or the demo
        try:
            # In a thread: making the client loads httpx and builds its TLS context (tens of
            # milliseconds the loop would otherwise not draw or read keys in).
            chat.client = await asyncio.to_thread(HostClient, host, api_key)
        except HostError as error:  # a URL the client cannot use, e.g. a port that is not one
            self._status(ConnectionChanged(Connection.ERROR))
            await chat.notice("error", error.message)
            return
        chat.session = self._session(chat.client, config.workflow)
        chat.conversation.session = chat.session
        chat.add_secrets(secrets_of(api_key))
        await self.runs.discover()

    def _session(self, client: HostClient, workflow: str) -> Session:
        """A session on ``client`` running ``workflow``, as the configuration says."""
        config = self.chat.config
        return Session(
            client,
            workflow_id=workflow,
            max_asset_bytes=config.max_asset_bytes,
            stream_modes=config.stream_modes,
            idle_timeout=config.idle_timeout or None,
            reconnect_budget=config.reconnect_minutes * 60,
        )

    async def trial(self, host: str | None, api_key: str | None) -> Trial:
        """Connect to ``host`` with ``api_key`` beside the connection in use, as `connect`
        does (discovery, then a read that needs the key); raises `HostError` saying why not,
        and nothing of the chat changes either way.

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
        """Make ``trial`` the chat's connection: the next message goes to its host with its
        key; the old client is closed. Then discovery is read again through the runs
        controller, which updates the status line, settles the workflow and sends what waited.

        Args:
            trial: The host and key that answered (`trial`).
            workflow: What each message runs from now on.
            key_from: Where its key comes from (`openwop_tui.config.Config.key_from`).
            new_chat: Starts a new chat on the new connection (a host change), before its
                discovery is read; None keeps the conversation on screen (a new key).
        """
        chat = self.chat
        old = chat.client
        key = trial.api_key
        chat.config = replace(
            chat.config,
            host=trial.host,
            api_key=key if trial.host is not None else None,
            key_from=key_from if trial.host is not None else "",
            workflow=workflow,
        )
        chat.redact = chat.redact.with_secrets(key)
        mask_also = getattr(chat.app, "mask_also", None)
        if mask_also is not None:  # (notifications and the log file: `GuardedApp`)
            mask_also(key)
        chat.add_secrets(secrets_of(key))
        chat.demo = trial.host is None
        chat.host_label = "embedded demo host" if chat.demo else display_url(trial.host or "")
        chat.client = trial.client
        chat.session = self._session(trial.client, workflow)
        chat.session.discovery = trial.discovery
        chat.conversation.session = chat.session
        self._status(HostShown(clean_own(chat.host_label)))  # the user's host, or the demo
        self._status(WorkflowChosen(clean_own(workflow)))  # the user's setting
        if old is not None and old is not trial.client:
            await old.aclose()
        if new_chat is not None:
            await new_chat()
        await self.runs.discover()

    def _start_demo_host(self) -> DemoHost:
        """The embedded host, started (in a worker thread: `connect`)."""
        # Imported here: against a real host the demo host (and Pillow's drawing code behind
        # it) is never needed, so start-up does not pay for it.
        from openwop_tui.demo_host import DemoHost

        self.demo_host = self.demo_host or DemoHost(pace=self.chat.config.demo_pace)
        if not self._demo_started:
            self.demo_host.start()
            self._demo_started = True
        return self.demo_host

    async def close(self) -> None:
        """The app is going: close the client and stop the demo host this app started."""
        if self.chat.client is not None:
            await self.chat.client.aclose()
        if self.demo_host is not None and self._demo_started:
            await asyncio.to_thread(self.demo_host.stop)
