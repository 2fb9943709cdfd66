"""Where the API key comes from when it is not on the command line.

A key given as ``--api-key KEY`` is seen by every user of ``ps`` and kept in shell history.
Two other ways keep it off the command line (the environment, ``OPENWOP_API_KEY``, is the
third):

* ``--api-key-file PATH``: the first line of a file (a secrets manager's mount, a file only its
  owner reads);
* ``--api-key -``: read from stdin: a prompt that does not echo when stdin is a terminal, else
  the first line of what is piped in (``pass show host | openwop-tui --api-key - run …``).

Either way the key is one line, surrounding blanks dropped, and every failure is a
`ConfigError` with one sentence that never quotes the file's content.
"""

from __future__ import annotations

import getpass
import os
import stat
from pathlib import Path
from typing import TextIO

from openwop_tui.config import ConfigError

__all__ = ["MAX_KEY_CHARS", "key_from_file", "key_from_stdin"]

#: Longest key read: a real key is tens of characters; a file this long is not a key file.
MAX_KEY_CHARS = 4096


def _one_line(text: str, where: str) -> str:
    lines = text.splitlines()
    key = lines[0].strip() if lines else ""
    if not key:
        raise ConfigError(f"{where} holds no API key (its first line is empty)")
    if len(key) > MAX_KEY_CHARS or not key.isprintable():
        raise ConfigError(
            f"{where} does not hold an API key on its first line (one line of printable "
            f"characters, at most {MAX_KEY_CHARS:,})"
        )
    return key


def key_from_file(path: Path) -> str:
    """The key on the first line of ``path``; `ConfigError` saying why not."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_KEY_CHARS * 4 + 2)
    except FileNotFoundError:
        raise ConfigError(f"the API key file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"the API key file {path} is a folder, not a file") from None
    except OSError as error:
        raise ConfigError(f"cannot read the API key file {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"the API key file {path} is not text (UTF-8)") from None
    return _one_line(text, f"the API key file {path}")


def loosely_readable(path: Path) -> bool:
    """Whether people other than the owner may read ``path`` (POSIX only; else ``False``)."""
    if os.name != "posix":
        return False
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IRGRP | stat.S_IROTH))


def key_from_stdin(stdin: TextIO) -> str:
    """The key typed at a prompt (no echo) on a terminal, else the first line piped in."""
    try:
        if stdin.isatty():
            text = getpass.getpass("API key: ", stream=None)
        else:
            text = stdin.readline(MAX_KEY_CHARS * 4 + 2)
    except (EOFError, OSError, UnicodeDecodeError):
        raise ConfigError("no API key could be read from stdin (--api-key -)") from None
    return _one_line(text, "stdin (--api-key -)")
