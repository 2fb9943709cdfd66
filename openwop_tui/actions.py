"""What envelope buttons do outside the terminal: save bytes to a file, open them with the desktop.

Plain functions the app calls in a thread; each returns a sentence for the user or raises
`ActionError` with one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from openwop_tui.sanitize import safe_filename


class ActionError(RuntimeError):
    """An action failed; the message is for the user."""


def download_dir(configured: str | None) -> Path:
    """Where saved media go: the configured folder, ``~/Downloads/openwop-tui``, or the cwd."""
    if configured:
        return Path(configured).expanduser()
    downloads = Path.home() / "Downloads"
    return downloads / "openwop-tui" if downloads.is_dir() else Path.cwd() / "openwop-tui-downloads"


def save_bytes(data: bytes, name: str | None, folder: Path, fallback: str = "download") -> Path:
    """Write ``data`` under a safe, non-clobbering name in ``folder``; return the path."""
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
        subprocess.Popen(
            [opener, str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        raise ActionError(f"could not start {opener}: {error}; the file is at {path}") from None
    return f"opened {path}"
