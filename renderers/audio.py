"""The ``audio`` renderer: a player line and a waveform, or what is known about the sound and why
it cannot play.

The renderer never plays anything: it reads the header with soundfile (duration, sample rate,
channels), draws the clip's waveform from its samples (`openwop_tui.renderers.waveform`, computed
once per clip and bounded in cost by the width) and returns ``play`` / ``stop`` / ``save``
actions that the app carries out with `openwop_tui.devices.audio.Player`. soundfile (and numpy
behind
it) is imported on first use, so start-up does not pay for it.

An envelope whose payload says ``"audioAsVoice": true`` (OpenClaw's ``[[audio_as_voice]]``) is a
voice note: labelled so, with a compact waveform. When the machine has no sound output (or audio
is switched off) the player line is still drawn, dimmed, with the reason verbatim, the duration
and format, and a ``save`` action; the result carries a `Degradation` (`Code.NO_AUDIO`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from io import BytesIO
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from openwop_tui.protocol.envelopes import Envelope
from openwop_tui.renderers import register
from openwop_tui.renderers._common import SAVE, degradation, degraded, join, load_media
from openwop_tui.renderers.base import Action, Code, RenderContext, Rendered
from openwop_tui.renderers.markdown import text_instead
from openwop_tui.renderers.waveform import (
    VOICE_LABEL,
    clip_peaks,
    draw,
    is_voice,
    waveform_columns,
)
from openwop_tui.text.sanitize import clean
from openwop_tui.text.units import duration, human_size

PLAY = Action("play", "Play")
STOP = Action("stop", "Stop")

_OFF = re.compile(r"\b(off|disabled)\b", re.IGNORECASE)


def no_audio_cause(reason: str) -> str:
    """The badge's few words for why nothing plays: ``audio off``, ``no PortAudio`` or
    ``no audio device``."""
    if _OFF.search(reason):
        return "audio off"
    if "portaudio" in reason.lower():
        return "no PortAudio"
    return "no audio device"


def _info(data: bytes) -> tuple[Any, str | None]:
    """soundfile's header summary of ``data``, or why it cannot be read."""
    try:
        import soundfile
    except (ImportError, OSError) as error:  # libsndfile missing is an OSError from cffi
        return None, f"soundfile is not usable here ({error})"
    try:
        return soundfile.info(BytesIO(data)), None
    except (RuntimeError, TypeError, ValueError) as error:
        # LibsndfileError's str() names the BytesIO object by address; its error_string does not.
        return None, getattr(error, "error_string", None) or str(error)


def _rate(rate: int) -> str:
    """A sample rate as a person reads it: ``44.1 kHz``, ``8 Hz`` (a header can say anything:
    1 Hz reads as such, not as ``0.001 kHz``), ``10 MHz``."""
    if rate < 1000:
        return f"{rate:,} Hz"
    if rate < 1_000_000:
        return f"{rate / 1000:g} kHz"
    return f"{rate / 1_000_000:g} MHz"


def _channels(count: int) -> str:
    return {1: "mono", 2: "stereo"}.get(count, f"{count} channels")


def _voice_kept(envelope: Envelope, rendered: Rendered) -> Rendered:
    """A voice note that cannot be played or fetched still says it is one (the host marked it
    so: ``[[audio_as_voice]]``), in its title."""
    if not is_voice(envelope):
        return rendered
    return replace(rendered, title=join(rendered.title, "voice note"))


@register("audio", name="Audio", needs_bytes=True)
def render_audio(envelope: Envelope, context: RenderContext) -> Rendered:
    """Draw a player line for a sound, or the what/why/where block."""
    shown_as_text = text_instead(envelope, context)
    if shown_as_text is not None:
        return shown_as_text
    media = load_media(envelope, context, "audio")
    advertised = envelope.media.duration_seconds if envelope.media else None
    said = ("duration", f"{duration(advertised)} (advertised)" if advertised is not None else None)
    if media.data is None:
        return _voice_kept(
            envelope,
            degraded(media, media.error or "no audio data", said, duration_seconds=advertised),
        )
    info, error = _info(media.data)
    if info is None:
        reason = f"cannot decode {media.media_type or 'audio'}: {clean(error or 'unknown')}"
        return _voice_kept(
            envelope,
            degraded(media, reason, said, code=Code.BAD_DATA, duration_seconds=advertised),
        )

    seconds = float(info.duration)
    voice = is_voice(envelope)
    palette = context.palette
    sound = f"{_rate(info.samplerate)} {_channels(info.channels)}"
    encoding = clean(f"{info.format_info}, {info.subtype_info}")
    line = Text.assemble(
        (f"{VOICE_LABEL} · " if voice else "▶ ", "bold"),
        join(duration(seconds), media.media_type, human_size(len(media.data)), sound),
    )
    wave = draw(
        clip_peaks(media.data), waveform_columns(context.width, voice), style=palette.accent
    )
    shape = [wave] if wave.plain else []
    caption = [Text(media.alt, style="italic")] if media.alt else []
    title = join(media.headline, "voice note" if voice else None, duration(seconds))
    if not context.audio.available:
        # Still a player line, so the user sees the sound is here; it says why it cannot play
        # and the bytes can be saved and played elsewhere.
        reason = clean(context.audio.reason or "audio output is not available")
        line.stylize(palette.muted)
        for drawn in shape:
            drawn.stylize(palette.muted)
        why = Text.assemble(("cannot play here: ", palette.warning), (reason, palette.warning))
        where = Text(f"{media.where} · {encoding}", style=palette.muted)
        return Rendered(
            title=title,
            body=Group(line, *shape, why, *caption, where),
            actions=(SAVE,),
            data=media.data,
            degradation=degradation(
                Code.NO_AUDIO,
                reason,
                cause=no_audio_cause(reason),
                instead="save offered",
                reference=media.reference,
            ),
            media_type=media.media_type,
            filename=media.filename,
            duration_seconds=seconds,
        )

    body: RenderableType = Group(line, *shape, *caption)
    return Rendered(
        title=title,
        body=body,
        actions=(PLAY, STOP, SAVE),
        data=media.data,
        media_type=media.media_type,
        filename=media.filename,
        duration_seconds=seconds,
    )
