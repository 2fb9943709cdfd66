"""Audio playback in the app: the player keys of a transcript item and the line that follows a clip.

`Playback` is the app's playback controller (the item actions controller hands it the actions
in `CONTROLS`). It owns the one
`openwop_tui.devices.audio.Player` (one clip at a time: playing another stops the first) and carries
out:

* ``play`` (p, space): play the item's clip, or pause / resume it when it is the clip playing;
* ``stop`` (x);
* ``seek-back`` / ``seek-forward`` (←/→ or [/]): 5 s back or on, clamped to the clip;
* ``seek:N`` (0-9): to N tenths of the clip.

Decoding runs in a worker (an app worker around `asyncio.to_thread`) and the sound plays from
PortAudio's own thread, so neither the UI nor the app's message handling waits on either. While
a clip is current a line under it shows ▶ or ⏸, the position and duration, the clip's waveform
with the part heard in the accent colour (the renderer's peaks,
`openwop_tui.renderers.waveform`, computed once per clip) and the keys; a timer redraws it four
times a second and hides it when the clip ends or its item goes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from openwop_tui.core.fold import EnvelopeItem
from openwop_tui.devices import desktop as actions
from openwop_tui.devices.audio import PlaybackError, Player
from openwop_tui.draw.palette import Palette
from openwop_tui.renderers.base import Rendered
from openwop_tui.renderers.waveform import clip_peaks, draw, is_voice, waveform_columns
from openwop_tui.text.units import duration as format_duration
from openwop_tui.ui.controllers.chat import Chat

if TYPE_CHECKING:
    from textual.timer import Timer


#: Seconds a seek key moves.
SEEK_STEP = 5.0
#: How often the playback line is redrawn, in seconds.
TICK_SECONDS = 0.25
SEEK_TO = tuple(f"seek:{tenth}" for tenth in range(10))
CONTROLS = frozenset({"play", "stop", "seek-back", "seek-forward", *SEEK_TO})
"""The actions `Playback.act` carries out."""
#: What the line says the keys do (`openwop_tui.ui.transcript.view` binds them).
KEYS_PLAYING = "space pause · ←/→ 5 s · 0-9 jump · x stop"
KEYS_PAUSED = "space resume · ←/→ 5 s · 0-9 jump · x stop"


class Playback:
    """The app's player and the playback line of the clip it plays."""

    def __init__(self, chat: Chat, player: Callable[[], Player] = Player) -> None:
        self.chat = chat
        self._make_player = player
        self.player: Player | None = None
        """Made on the first play (tests put a player with a stand-in stream here)."""
        self.timer: Timer | None = None
        self.item_id: str | None = None
        """The item whose clip is current (its line is shown)."""
        self._peaks: tuple[float, ...] = ()
        self._columns = 0
        self._loading: str | None = None
        """The item whose clip is being decoded (a second press then does nothing)."""

    async def act(self, item: EnvelopeItem, name: str, rendered: Rendered) -> None:
        """Carry out the player action ``name`` on ``item``'s clip.

        Raises `openwop_tui.devices.desktop.ActionError` or
        `openwop_tui.devices.audio.PlaybackError` with a
        message for the user.
        """
        player = self.player
        current = player is not None and player.is_playing and player.key == item.id
        if name == "stop":
            if player is not None:
                player.stop()
            self.show()
        elif name == "play" and current and player is not None:
            player.toggle_pause()
            self.show()
        elif name == "play":
            if rendered.data is None:
                raise actions.ActionError("the audio bytes are not here")
            if self._loading != item.id:
                self._loading = item.id
                # A worker: decoding a long clip takes a while, and the app's own messages
                # must not wait for it.
                self.chat.work(self._play(item, rendered.data), group="playback")
        elif not current or player is None:
            raise actions.ActionError("this clip is not playing: press p to play it")
        elif name in SEEK_TO:
            player.seek(player.duration * SEEK_TO.index(name) / 10)
            self.show()
        else:
            player.seek_by(-SEEK_STEP if name == "seek-back" else SEEK_STEP)
            self.show()

    async def _play(self, item: EnvelopeItem, data: bytes) -> None:
        try:
            self.player = player = self.player or self._make_player()
            seconds = await asyncio.to_thread(player.play, data, item.id)
            # The renderer computed these peaks already: this is a cache hit (the digest is
            # still work on a large clip, hence the thread).
            peaks = await asyncio.to_thread(clip_peaks, data)
        except PlaybackError as error:
            # `ChatApp.notify` cleans every notification.
            self.chat.app.notify(str(error), severity="error", timeout=8, markup=False)
            return
        finally:
            self._loading = None
        block = self.chat.parts.view.block_for(item.id)
        width = block.drawn_width if block is not None and block.drawn_width else 60
        self.chat.app.notify(f"playing {seconds:.1f} s")
        self._follow(item.id, peaks, waveform_columns(width, is_voice(item.envelope)))

    def _follow(self, item_id: str, peaks: tuple[float, ...], columns: int) -> None:
        """Show the line under ``item_id`` (and take it from the clip before) until it ends."""
        if self.timer is not None:
            self.timer.stop()
        view = self.chat.parts.view
        if self.item_id is not None and self.item_id != item_id:
            view.set_playback(self.item_id, None)
        self.item_id, self._peaks, self._columns = item_id, peaks, columns
        self.show()
        if self.item_id is not None:
            self.timer = self.chat.app.set_interval(TICK_SECONDS, self.show)

    def show(self) -> None:
        """Draw the playback line now; hide it (and stop the timer) once the clip is over."""
        item_id = self.item_id
        if item_id is None:
            return
        view = self.chat.parts.view
        player = self.player
        if (
            player is None
            or not player.is_playing
            or player.key != item_id  # (another tab's clip plays now: one player for all)
            or view.block_for(item_id) is None
        ):
            view.set_playback(item_id, None)
            if self.timer is not None:
                self.timer.stop()
            self.timer = self.item_id = None
            return
        view.set_playback(item_id, line(player, self._peaks, self._columns, view.palette))

    def close(self) -> None:
        """Stop the sound (the app is closing)."""
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if self.player is not None:
            self.player.stop()


def line(player: Player, peaks: tuple[float, ...], columns: int, palette: Palette) -> Text:
    """``▶ playing 0:01.5 / 0:05.0  ▁▃█▆▂`` then the keys: the playback line of ``player``.

    Args:
        player: The playing (or paused) sound; its position and duration are shown.
        peaks: The sound's waveform, one peak per bar (0 to 1); empty draws no waveform.
        columns: Cells the waveform is drawn in.
        palette: The theme's colours: the accent for what was heard, muted for the rest.
    """
    paused = player.paused
    position, total = player.position, player.duration
    head = "⏸ paused" if paused else "▶ playing"
    text = Text.assemble(
        (f"{head} {format_duration(position)} / {format_duration(total)}", palette.accent)
    )
    if peaks:
        heard = position / total if total > 0 else 0.0
        text.append("  ")
        text.append_text(
            draw(peaks, columns, played=heard, style=palette.muted, played_style=palette.accent)
        )
    text.append("\n")
    text.append(KEYS_PAUSED if paused else KEYS_PLAYING, style=palette.muted)
    return text
