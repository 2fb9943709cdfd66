"""What envelope buttons do outside the terminal: save bytes to a file, open them with the desktop.

Plain functions the app calls in a thread; each returns a sentence for the user or raises
`ActionError` with one.

`open_risk` decides, as a pure function of the saved name, the host's media type and the first
bytes, whether opening a file needs the user's yes first: the desktop opener runs what it is
handed by type (a ``.desktop`` launcher starts its command, a script may run, HTML and SVG run
their scripts in a browser), and the name, its extension and the media type all come from the
host. The app asks before it calls `open_path`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PurePath

import platformdirs

from openwop_tui.text.sanitize import safe_filename


class ActionError(RuntimeError):
    """An action failed; the message is for the user."""


def download_dir(configured: str | None) -> Path:
    """Where saved media, copies too large for the clipboard, exports and cut replies go: the
    configured folder, else ``openwop-tui`` in the platform's download folder when it exists,
    else ``downloads`` in the user data folder. Never the current folder: what lands there
    depends on where the program was started, and nobody looks for it there."""
    if configured:
        return Path(configured).expanduser()
    downloads = platformdirs.user_downloads_path()
    if downloads.is_dir():
        return downloads / "openwop-tui"
    return platformdirs.user_data_path("openwop-tui", appauthor=False) / "downloads"


def save_bytes(data: bytes, name: str | None, folder: Path, fallback: str = "download") -> Path:
    """Write ``data`` under a safe, non-clobbering name in ``folder``; return the path.

    Args:
        data: The bytes to write.
        name: The name asked for (made safe, and numbered if taken); None for ``fallback``.
        folder: The folder to write in, made if missing.
        fallback: The name used when ``name`` is None or nothing of it is safe.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        base = safe_filename(name, fallback)
        target = folder / base
        stem, suffix = target.stem, target.suffix
        counter = 1
        while target.exists():
            target = folder / f"{stem}-{counter}{suffix}"
            counter += 1
        # "x" mode: never overwrite, even if another process raced us to the name.
        with target.open("xb") as handle:
            handle.write(data)
    except OSError as error:
        raise ActionError(f"could not save to {folder}: {error.strerror or error}") from None
    return target


def open_path(path: Path) -> str:
    """Open a saved file with the desktop's default application, if there is one."""
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if shutil.which(opener) is None:
        raise ActionError(f"no {opener} on this machine; the file is at {path}")
    try:
        launch([opener, str(path)])
    except OSError as error:
        raise ActionError(f"could not start {opener}: {error}; the file is at {path}") from None
    return f"opened {path}"


def launch(argv: list[str]) -> None:
    """Start the desktop opener, detached: no terminal, no stdin, its output discarded (the one
    place this client starts another program; tests replace it)."""
    subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def chosen_folder(text: str) -> Path:
    """The folder a user typed for "save as…": it exists, or is created now.

    Raises `ActionError` with a sentence naming what is wrong (nothing typed, a file in the
    way, no permission), so the dialog can say it and stay open.
    """
    typed = text.strip()
    if not typed:
        raise ActionError("type a folder to save into")
    folder = Path(typed).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ActionError(f"{folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ActionError(f"could not create {folder}: {error.strerror or error}") from None
    return folder


#: Extensions whose file the desktop may run, or run code from, when it opens it: what it is.
RISKY_EXTENSIONS: dict[str, str] = {
    ".desktop": "a desktop launcher (it starts the command written in it)",
    ".sh": "a shell script",
    ".bash": "a shell script",
    ".zsh": "a shell script",
    ".csh": "a shell script",
    ".ksh": "a shell script",
    ".fish": "a shell script",
    ".command": "a macOS shell script",
    ".tool": "a macOS shell script",
    ".run": "a Linux installer",
    ".bin": "a program",
    ".elf": "a program",
    ".out": "a program",
    ".appimage": "a Linux application (AppImage)",
    ".flatpakref": "a Flatpak install reference",
    ".snap": "a Snap package",
    ".deb": "a Debian package (installing it runs its scripts)",
    ".rpm": "an RPM package (installing it runs its scripts)",
    ".apk": "an Android package",
    ".jar": "a Java program",
    ".jnlp": "a Java Web Start program",
    ".class": "a Java class",
    ".exe": "a Windows program",
    ".com": "a Windows program",
    ".scr": "a Windows screen saver (a program)",
    ".pif": "a Windows program shortcut",
    ".msi": "a Windows installer",
    ".msix": "a Windows installer",
    ".appx": "a Windows installer",
    ".bat": "a Windows batch script",
    ".cmd": "a Windows batch script",
    ".ps1": "a PowerShell script",
    ".psm1": "a PowerShell script",
    ".vbs": "a Visual Basic script",
    ".vbe": "a Visual Basic script",
    ".wsf": "a Windows script",
    ".wsh": "a Windows script",
    ".hta": "an HTML application (it runs with full rights)",
    ".cpl": "a Windows control panel program",
    ".dll": "a Windows library",
    ".lnk": "a Windows shortcut (it can start any program)",
    ".url": "an internet shortcut",
    ".reg": "a Windows registry file (it changes system settings)",
    ".inf": "a Windows setup file",
    ".app": "a macOS application",
    ".dmg": "a macOS disk image (it can hold an installer)",
    ".pkg": "a macOS installer",
    ".mpkg": "a macOS installer",
    ".scpt": "an AppleScript",
    ".applescript": "an AppleScript",
    ".workflow": "a macOS Automator workflow",
    ".terminal": "a macOS Terminal settings file (it can run a command)",
    ".py": "a Python program",
    ".pyw": "a Python program",
    ".pyz": "a Python program",
    ".pl": "a Perl program",
    ".rb": "a Ruby program",
    ".php": "a PHP program",
    ".lua": "a Lua program",
    ".tcl": "a Tcl program",
    ".js": "a JavaScript program",
    ".mjs": "a JavaScript program",
    ".jse": "a JavaScript program",
    ".html": "a web page (a browser runs its scripts)",
    ".htm": "a web page (a browser runs its scripts)",
    ".xhtml": "a web page (a browser runs its scripts)",
    ".shtml": "a web page (a browser runs its scripts)",
    ".mht": "a web archive (a browser runs its scripts)",
    ".mhtml": "a web archive (a browser runs its scripts)",
    ".svg": "an SVG image (a browser runs its scripts)",
    ".svgz": "an SVG image (a browser runs its scripts)",
    ".xml": "an XML document (a browser may run its stylesheet and scripts)",
    ".docm": "an Office document with macros",
    ".xlsm": "an Office workbook with macros",
    ".pptm": "an Office presentation with macros",
}

#: Media types whose content the desktop may run: what it is.
RISKY_MEDIA_TYPES: dict[str, str] = {
    "application/x-sh": "a shell script",
    "application/x-shellscript": "a shell script",
    "text/x-shellscript": "a shell script",
    "text/x-sh": "a shell script",
    "application/x-csh": "a shell script",
    "application/x-desktop": "a desktop launcher (it starts the command written in it)",
    "application/x-executable": "a program",
    "application/x-elf": "a program",
    "application/x-pie-executable": "a program",
    "application/x-sharedlib": "a program library",
    "application/x-mach-binary": "a macOS program",
    "application/x-msdownload": "a Windows program",
    "application/x-msdos-program": "a Windows program",
    "application/x-dosexec": "a Windows program",
    "application/vnd.microsoft.portable-executable": "a Windows program",
    "application/x-ms-installer": "a Windows installer",
    "application/x-msi": "a Windows installer",
    "application/x-bat": "a Windows batch script",
    "application/x-ms-shortcut": "a Windows shortcut (it can start any program)",
    "application/hta": "an HTML application (it runs with full rights)",
    "application/java-archive": "a Java program",
    "application/x-java-archive": "a Java program",
    "application/x-java-jnlp-file": "a Java Web Start program",
    "application/vnd.android.package-archive": "an Android package",
    "application/vnd.debian.binary-package": "a Debian package (installing it runs its scripts)",
    "application/x-debian-package": "a Debian package (installing it runs its scripts)",
    "application/x-rpm": "an RPM package (installing it runs its scripts)",
    "application/x-redhat-package-manager": "an RPM package (installing it runs its scripts)",
    "application/x-apple-diskimage": "a macOS disk image (it can hold an installer)",
    "application/vnd.apple.installer+xml": "a macOS installer",
    "application/x-appimage": "a Linux application (AppImage)",
    "application/x-python": "a Python program",
    "text/x-python": "a Python program",
    "text/x-script.python": "a Python program",
    "application/x-perl": "a Perl program",
    "text/x-perl": "a Perl program",
    "application/x-ruby": "a Ruby program",
    "text/x-ruby": "a Ruby program",
    "application/x-php": "a PHP program",
    "application/x-powershell": "a PowerShell script",
    "text/vbscript": "a Visual Basic script",
    "application/javascript": "a JavaScript program",
    "application/x-javascript": "a JavaScript program",
    "text/javascript": "a JavaScript program",
    "application/ecmascript": "a JavaScript program",
    "text/html": "a web page (a browser runs its scripts)",
    "application/xhtml+xml": "a web page (a browser runs its scripts)",
    "image/svg+xml": "an SVG image (a browser runs its scripts)",
    "message/rfc822": "an e-mail message (it may hold HTML and attachments)",
}

#: Extensions whose opening is harmless, and the media types a host may fairly send with them.
#: A name with one of these and a media type outside its set disagree: the opener goes by the
#: name, the host said something else, and the user should know before it runs.
_TEXT = frozenset({"text/plain"})
KNOWN_TYPES: dict[str, frozenset[str]] = {
    ".txt": _TEXT,
    ".log": _TEXT | {"text/x-log"},
    ".md": _TEXT | {"text/markdown", "text/x-markdown"},
    ".markdown": _TEXT | {"text/markdown", "text/x-markdown"},
    ".csv": _TEXT | {"text/csv", "application/csv", "text/comma-separated-values"},
    ".tsv": _TEXT | {"text/tab-separated-values", "text/tsv"},
    ".json": _TEXT | {"application/json", "text/json"},
    ".jsonl": _TEXT | {"application/jsonl", "application/x-ndjson", "application/json"},
    ".yaml": _TEXT | {"application/yaml", "text/yaml", "application/x-yaml", "text/x-yaml"},
    ".yml": _TEXT | {"application/yaml", "text/yaml", "application/x-yaml", "text/x-yaml"},
    ".toml": _TEXT | {"application/toml", "text/toml"},
    ".pdf": frozenset({"application/pdf"}),
    ".png": frozenset({"image/png"}),
    ".jpg": frozenset({"image/jpeg", "image/jpg"}),
    ".jpeg": frozenset({"image/jpeg", "image/jpg"}),
    ".gif": frozenset({"image/gif"}),
    ".webp": frozenset({"image/webp"}),
    ".wav": frozenset({"audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"}),
    ".ogg": frozenset({"audio/ogg", "application/ogg", "audio/vorbis", "audio/opus"}),
    ".oga": frozenset({"audio/ogg", "application/ogg"}),
    ".opus": frozenset({"audio/ogg", "audio/opus"}),
    ".mp3": frozenset({"audio/mpeg", "audio/mp3"}),
    ".flac": frozenset({"audio/flac", "audio/x-flac"}),
    ".mp4": frozenset({"video/mp4", "audio/mp4"}),
    ".docx": frozenset({"application/vnd.openxmlformats-officedocument.wordprocessingml.document"}),
    ".xlsx": frozenset({"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}),
    ".pptx": frozenset(
        {"application/vnd.openxmlformats-officedocument.presentationml.presentation"}
    ),
    ".odt": frozenset({"application/vnd.oasis.opendocument.text"}),
    ".ods": frozenset({"application/vnd.oasis.opendocument.spreadsheet"}),
    ".zip": frozenset({"application/zip", "application/x-zip-compressed"}),
    ".gz": frozenset({"application/gzip", "application/x-gzip"}),
}

#: Media types that say nothing about the content: never a disagreement with the name.
_GENERIC_TYPES = frozenset(
    {"application/octet-stream", "binary/octet-stream", "application/unknown"}
)

#: First bytes that make a file a program whatever its name: what it is.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"#!", "a script (it starts with #!)"),
    (b"\x7fELF", "a Linux program (ELF)"),
    (b"MZ", "a Windows program"),
    (b"\xcf\xfa\xed\xfe", "a macOS program"),
    (b"\xce\xfa\xed\xfe", "a macOS program"),
    (b"\xca\xfe\xba\xbe", "a macOS or Java program"),
    (b"[Desktop Entry]", "a desktop launcher (it starts the command written in it)"),
)
#: How a browser recognises HTML by its content (WHATWG MIME Sniffing, "identifying a
#: resource with an unknown MIME type"), with SVG, which runs scripts too. A tag counts when
#: it ends: white space, ``>`` or ``/`` after it (``<svg\n xmlns=…>`` included, so a little
#: more than the standard's space or ``>``).
_MARKUP_TAGS = (
    b"<!doctype html", b"<html", b"<head", b"<script", b"<iframe", b"<h1", b"<div", b"<font",
    b"<table", b"<a", b"<style", b"<title", b"<b", b"<body", b"<br", b"<p", b"<svg",
)  # fmt: skip
_MARKUP_STARTS = (b"<?xml", b"<!--")
_TAG_ENDS = frozenset(b" \t\n\r\x0c>/")
#: Byte-order marks a sniffing opener reads text through (UTF-32 first: its LE mark starts
#: like UTF-16's).
_TEXT_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


@dataclass(frozen=True, slots=True)
class OpenRisk:
    """Why opening a file needs the user's yes first."""

    reason: str
    """One sentence for the dialog: what the file is and what opening it may do."""


def _media_base(media_type: str | None) -> str | None:
    if not media_type:
        return None
    base = media_type.split(";", 1)[0].strip().lower()
    return base or None


def _suffix(name: str) -> str:
    """The extension the opener goes by, lowercased, trailing dots and spaces dropped (Windows
    drops them too: ``run.exe.`` is ``run.exe``)."""
    return PurePath(name.rstrip(". ")).suffix.lower()


def _markup(start: bytes) -> bool:
    lowered = start.lstrip(b"\t\n\x0c\r ")[:64].lower()
    if lowered.startswith(_MARKUP_STARTS):
        return True
    for tag in _MARKUP_TAGS:
        if lowered.startswith(tag) and len(lowered) > len(tag) and lowered[len(tag)] in _TAG_ENDS:
            return True
    return False


def _sniffed(head: bytes) -> str | None:
    start = head
    for bom, codec in _TEXT_BOMS:  # a BOM hides nothing from a sniffing opener
        if head.startswith(bom):
            text = head[len(bom) :].decode(codec, "ignore")
            start = text.encode("ascii", "replace")
            break
    for magic, what in _MAGIC:
        if start.startswith(magic):
            return what
    if _markup(start):
        return "markup a browser may run scripts from (it starts like HTML, SVG or XML)"
    return None


def open_risk(name: str, media_type: str | None, head: bytes = b"") -> OpenRisk | None:
    """Whether opening the file saved as ``name`` needs a yes first, and why; ``None`` if not.

    ``name`` is the saved file's name (its extension is the host's choice), ``media_type`` what
    the host said it is, ``head`` its first bytes. Asks when the extension or the media type is
    one the desktop may run, when the content starts like a program or a web page, when the
    name has no extension (the opener then sniffs the content) or one this table does not know
    (the desktop may know it as something runnable), and when the extension and the media type
    disagree. Only names and types known to be harmless and consistent open without asking.
    """
    suffix = _suffix(name)
    base = _media_base(media_type)
    if suffix in RISKY_EXTENSIONS:
        what = RISKY_EXTENSIONS[suffix]
        return OpenRisk(f"this is {what}: opening it may run it")
    if base in RISKY_MEDIA_TYPES:
        what = RISKY_MEDIA_TYPES[base]
        return OpenRisk(f"the host says this is {what} ({base}): opening it may run it")
    sniffed = _sniffed(head)
    if sniffed is not None:
        return OpenRisk(f"its content looks like {sniffed}: opening it may run it")
    if not suffix:
        return OpenRisk(
            "its name has no extension, so the desktop guesses its type from the content "
            "and may run it"
        )
    allowed = KNOWN_TYPES.get(suffix)
    if allowed is None:
        return OpenRisk(
            f"its extension {suffix} is not one this client knows to be safe to open; "
            "the desktop may run it"
        )
    if base is not None and base not in _GENERIC_TYPES and base not in allowed:
        return OpenRisk(
            f"the host says it is {base} but its name ends in {suffix}: the desktop opens it "
            f"by its name, so it may not be what the host says"
        )
    return None
