"""The checks ``openwop-tui doctor`` runs: will this terminal, this machine and this host work?

Each check is a function returning `Check`\\ s (name, status, what was found, what to do when it
is not ``ok``), given what it looks at as arguments (the environment, the streams, the paths, a
probe), so the app can show the same list on a screen and tests can hand in any machine.
`local_checks` runs the machine's; `host_checks` (async) the host's: reachability, the API key,
the protocol versions and the advertised capabilities.

A ``fail`` is something the user asked for that cannot work (a host that cannot be reached, a key
it refuses, a store that cannot be written, a forced image protocol that is blocked); ``warn`` is
a degradation the client copes with (half-blocks instead of pixels, no sound card). Nothing
raises: a check that cannot look says so as its result. No Textual; Rich only through
`openwop_tui.devices.terminal.colour_system`, which asks Rich how it would write colours.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openwop_tui.devices.terminal import ImageSupport, colour_system, in_tmux, tmux_passthrough
from openwop_tui.protocol.client import HostClient
from openwop_tui.protocol.discovery import Discovery
from openwop_tui.protocol.errors import HostError
from openwop_tui.text.units import human_size

if TYPE_CHECKING:
    # Imported where a request is made, not here: the app's first frame does not wait for
    # httpx (and the ssl, email and cookie modules behind it; tests/ui/test_first_frame.py).
    import httpx

Status = Literal["ok", "info", "warn", "fail"]

#: Kinds every host that lists envelope kinds must list (ai-envelope.md §Universal kinds).
UNIVERSAL_KINDS = ("clarification.request", "schema.request", "schema.response", "error")

#: The smallest window the app is laid out for.
MIN_COLUMNS, MIN_LINES = 80, 24


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's report."""

    name: str
    status: Status
    detail: str
    """What was found (safe to print)."""
    fix: str | None = None
    """What to do about it, when the status is not ``ok``."""

    def as_json(self) -> dict[str, Any]:
        """The check as a ``doctor --json`` object."""
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def failed(checks: list[Check]) -> bool:
    """Whether any check failed (``doctor`` then exits 1)."""
    return any(check.status == "fail" for check in checks)


def check_size(size: os.terminal_size | None) -> Check:
    """The window's size (``None``: the output is not a terminal)."""
    if size is None:
        return Check("terminal size", "info", "the output is not a terminal (printing only)")
    shown = f"{size.columns}x{size.lines}"
    if size.columns < MIN_COLUMNS or size.lines < MIN_LINES:
        return Check(
            "terminal size",
            "warn",
            f"{shown}, smaller than the {MIN_COLUMNS}x{MIN_LINES} the app is laid out for",
            f"enlarge the window to at least {MIN_COLUMNS}x{MIN_LINES}",
        )
    return Check("terminal size", "ok", shown)


def check_colours(environ: Mapping[str, str], *, interactive: bool = True) -> Check:
    """The colours the app will write in. Not ``interactive`` (the report goes to a pipe or a
    file), what the environment says is news, not a warning: no terminal is there to judge,
    and the printed report has no colours to lose."""
    if environ.get("NO_COLOR"):
        return Check("colours", "info", "NO_COLOR is set: no colours", "unset NO_COLOR for colour")
    try:
        system = colour_system(environ)
    except Exception as error:  # an odd environment: say so, do not stop the report
        return Check("colours", "warn", f"cannot tell ({type(error).__name__})")
    if system == "truecolor":
        return Check("colours", "ok", "truecolor (24-bit)")
    if system == "256":
        return Check("colours", "ok", "256 colours")
    if not interactive:
        return Check(
            "colours",
            "info",
            f"the output is not a terminal: by its environment (TERM, COLORTERM) the app "
            f"would write {system} colours",
            "run doctor in the terminal itself to check it",
        )
    return Check(
        "colours",
        "warn",
        f"{system} colours only: themes and half-block images lose detail",
        "use a terminal with 24-bit colour and set COLORTERM=truecolor",
    )


def check_images(support: ImageSupport, requested: str, *, interactive: bool = True) -> Check:
    """How images will be drawn (the probe's answer and its reason). Not ``interactive`` (the
    report goes to a pipe): the terminal could not be asked, which is no fault of it."""
    if support.blocked is not None:
        return Check(
            "images",
            "fail",
            f"{support.mode} was asked for, but {support.blocked}",
            "tmux set -g allow-passthrough on, or choose another --images mode",
        )
    detail = f"{support.mode}: {support.reason}"
    if support.pixels:
        return Check("images", "ok", detail)
    if support.mode == "none":
        return Check("images", "info", detail, "--images auto to draw images")
    if not interactive and requested == "auto":
        return Check("images", "info", detail, "run doctor in the terminal itself to probe it")
    return Check(
        "images",
        "warn" if requested == "auto" else "ok",
        detail,
        "a terminal with kitty graphics or sixel (kitty, WezTerm, foot, iTerm2) draws pixels",
    )


def check_tmux(
    environ: Mapping[str, str], ask: Callable[[], bool | None] = tmux_passthrough
) -> Check:
    """Whether tmux lets terminal graphics through."""
    if not in_tmux(environ):
        return Check("tmux passthrough", "ok", "not inside tmux")
    allowed = ask()
    if allowed is None:
        return Check(
            "tmux passthrough",
            "warn",
            "inside tmux, which could not be asked",
            "tmux show-options -gv allow-passthrough",
        )
    if not allowed:
        return Check(
            "tmux passthrough",
            "warn",
            "inside tmux, allow-passthrough is off: no kitty graphics",
            "tmux set -g allow-passthrough on",
        )
    return Check("tmux passthrough", "ok", "inside tmux, allow-passthrough is on")


def check_audio(enabled: bool, probe: Callable[[], Any], device: Callable[[], str | None]) -> Check:
    """PortAudio and the default output device. ``probe`` is `openwop_tui.devices.audio.probe`."""
    if not enabled:
        return Check("audio", "info", "sound is off (--no-audio or audio = false)")
    support = probe()
    if support.available:
        name = device()
        return Check("audio", "ok", f"PortAudio, default output: {name or 'the default device'}")
    reason = str(support.reason or "audio is not available")
    if "PortAudio" in reason:
        fix = "install PortAudio (Debian/Ubuntu: apt install libportaudio2; macOS: brew "
        fix += "install portaudio)"
    elif "device" in reason:
        fix = "connect or enable an output device; clips are still described and saved"
    else:
        fix = "unset OPENWOP_TUI_AUDIO to allow sound"
    return Check("audio", "warn", reason, fix)


def default_output_device() -> str | None:
    """The name of PortAudio's default output device, or ``None`` when it cannot be read."""
    try:
        import sounddevice

        found = sounddevice.query_devices(kind="output")
    except Exception:  # no PortAudio, no device: the probe has already said which
        return None
    name = found.get("name") if isinstance(found, Mapping) else None
    return str(name) if name else None


def check_config(path: Path, given: bool) -> Check:
    """The config file (already read and accepted by the time doctor runs)."""
    if path.is_file():
        return Check("config file", "ok", f"{path} (read)")
    if given:
        return Check("config file", "fail", f"{path} does not exist", "give an existing file")
    return Check(
        "config file",
        "info",
        f"{path} does not exist: defaults in use",
        "create it to change the defaults (see the README)",
    )


def check_key_source(key_from: str, keychain: str | None, open_mode: int | None) -> Check:
    """Where the API key comes from (never the key), and where the settings screen keeps one.

    Args:
        key_from: `openwop_tui.config.Config.key_from` (``""``: no key).
        keychain: The system keychain's name; None when the machine has none.
        open_mode: The config file's mode when it holds a key others may read; None when not.
    """
    kept = (
        f"the settings screen keeps keys in the system keychain ({keychain})"
        if keychain
        else "no system keychain here: the settings screen keeps a key in the config file, "
        "readable only by you"
    )
    found = f"from {key_from}" if key_from else "none"
    if open_mode is not None:
        return Check(
            "API key source",
            "warn",
            f"{found}; the config file holds a key and others may read it ({open_mode:o})",
            "chmod 600 the config file (saving in the settings screen does it)",
        )
    return Check("API key source", "ok" if key_from else "info", f"{found}; {kept}")


def check_writable(name: str, path: Path | None) -> Check:
    """Whether ``path`` (a file, maybe not created yet) can be written."""
    if path is None:
        return Check(
            name,
            "fail",
            "no place for it could be set up",
            "check the folder's permissions, or see the log",
        )
    target = path if path.exists() else _existing_parent(path)
    if target is None or not os.access(target, os.W_OK):
        where = target if target is not None else path
        return Check(
            name,
            "fail",
            f"{path} cannot be written ({where} is not writable)",
            f"make {where} writable, or point XDG_DATA_HOME / XDG_STATE_HOME elsewhere",
        )
    state = "" if path.exists() else " (created when first needed)"
    return Check(name, "ok", f"{path}{state}")


def _existing_parent(path: Path) -> Path | None:
    for parent in path.parents:
        if parent.exists():
            return parent if parent.is_dir() else None
    return None


@dataclass(frozen=True, slots=True)
class Machine:
    """What the local checks look at (the real ones by default; tests give their own)."""

    environ: Mapping[str, str]
    size: os.terminal_size | None
    images: ImageSupport
    requested_images: str
    audio: bool
    config_path: Path
    config_given: bool
    store_path: Path | None
    log_path: Path | None


def local_checks(
    machine: Machine,
    *,
    probe: Callable[[], Any],
    device: Callable[[], str | None] = default_output_device,
    ask_tmux: Callable[[], bool | None] = tmux_passthrough,
) -> list[Check]:
    """Every check of this machine, in report order.

    Args:
        machine: What was found of the machine (size, environment, settings, paths).
        probe: Asks PortAudio what it can play (`openwop_tui.devices.audio.probe`).
        device: Names the default output device (None: none).
        ask_tmux: Says whether tmux passes graphics through (None: unknown).
    """
    return [
        check_size(machine.size),
        check_colours(machine.environ, interactive=machine.size is not None),
        check_images(
            machine.images, machine.requested_images, interactive=machine.size is not None
        ),
        check_tmux(machine.environ, ask_tmux),
        check_audio(machine.audio, probe, device),
        check_config(machine.config_path, machine.config_given),
        check_writable("session store", machine.store_path),
        check_writable("log file", machine.log_path),
    ]


def terminal_size(fd: int) -> os.terminal_size | None:
    """The size of the terminal on ``fd``, or ``None`` when it is not one."""
    try:
        return os.get_terminal_size(fd) if os.isatty(fd) else None
    except OSError:
        return None


async def host_checks(
    url: str, api_key: str | None, *, transport: httpx.AsyncBaseTransport | None = None
) -> list[Check]:
    """Reachability, the key, the protocol versions and the capabilities of the host at ``url``."""
    try:
        client = HostClient(url, api_key, transport=transport)
    except HostError as error:
        return [Check("host", "fail", error.message, "give an http:// or https:// URL")]
    async with client:
        try:
            discovery = await client.discover(verify_key=False)
        except HostError as error:
            return [
                Check(
                    "host",
                    "fail",
                    error.message,
                    "check the URL and that the host is running (curl URL/.well-known/openwop)",
                )
            ]
        name = discovery.implementation_name or "an OpenWOP host"
        version = f" {discovery.implementation_version}" if discovery.implementation_version else ""
        checks = [Check("host", "ok", f"{client.origin} answers: {name}{version}")]
        refused = await client.verify_key()
        if refused is not None:
            status = f" ({refused.status})" if refused.status else ""
            # (The host error's sentence says what to do already, mostly: not twice.)
            says_what_to_do = "--api-key" in refused.message
            checks.append(
                Check(
                    "API key",
                    "fail",
                    f"the key was refused{status}: {refused.message}",
                    None if says_what_to_do else "check --api-key or OPENWOP_API_KEY",
                )
            )
        elif api_key:
            checks.append(Check("API key", "ok", "accepted"))
        else:
            checks.append(Check("API key", "info", "none given; the host answered without one"))
        listed = ", ".join(discovery.protocol_versions) or (discovery.protocol_version or "?")
        checks.append(
            Check(
                "protocol",
                "ok",
                f"speaking v{discovery.major} ({discovery.protocol_version or '?'}); "
                f"the host lists {listed}",
            )
        )
        checks.append(_capabilities(discovery))
        checks.append(attachments_check(discovery))
        missing = [k for k in UNIVERSAL_KINDS if k not in discovery.supported_envelopes]
        if discovery.supported_envelopes and missing:
            checks.append(
                Check(
                    "universal envelopes",
                    "warn",
                    "supportedEnvelopes lacks " + ", ".join(missing),
                    "a host that lists envelope kinds MUST list the four universal ones "
                    "(ai-envelope.md §Universal kinds): tell the host's authors",
                )
            )
        return checks


def _capabilities(discovery: Any) -> Check:
    envelopes = discovery.supported_envelopes
    media = [kind for kind in envelopes if kind.startswith("media.")]
    parts = [
        f"{len(envelopes)} envelope kinds" + (f" (media: {', '.join(media)})" if media else ""),
        f"inline media up to {discovery.max_inline_media_bytes} bytes",
    ]
    if discovery.model_capabilities:
        parts.append("models: " + ", ".join(discovery.model_capabilities[:8]))
    families = [
        name
        for name in (
            "conversationPrimitive",
            "interrupts",
            "runList",
            "providerUsage",
            "agents",
            "a2uiSurface",
        )
        if discovery.family(name)
    ]
    if families:
        parts.append("also " + ", ".join(families))
    return Check("capabilities", "ok", "; ".join(parts))


def attachments_check(discovery: Discovery) -> Check:
    """What the host takes from a person beside words (issue 25): whether its model says it
    reads pictures and sound (RFC 0055 §A), how big an attachment goes inline, and where a
    bigger one is uploaded (``aiProviders.mediaUpload``) or that none can go."""
    reads = discovery.model_capabilities
    pictures = "read" if "vision-input" in reads else "not said to be read (no vision-input)"
    sound = "read" if "audio-input" in reads else "not said to be read (no audio-input)"
    inline = human_size(discovery.max_inline_media_bytes)
    upload = discovery.media_upload
    if upload is None:
        carried = f"inline up to {inline}; larger ones cannot be sent (no upload route)"
    else:
        most = f" up to {human_size(upload.max_bytes)}" if upload.max_bytes else ""
        carried = f"inline up to {inline}, larger ones uploaded to {upload.route}{most}"
    status: Literal["ok", "warn"] = "ok" if upload is not None else "warn"
    return Check(
        "attachments",
        status,
        f"pictures {pictures}; sound {sound}; files {carried}",
        None if upload is not None else "attach files under the inline limit to this host",
    )
