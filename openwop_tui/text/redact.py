"""Secrets never reach the user's eyes: the API key and URL credentials are masked at output.

The key can surface where nobody meant it to: a host that echoes the request in an event or an
error body, a log line, an exception message, a URL the user typed as
``https://user:password@host``. `Redactor` masks all of these in one call, and is applied where
text leaves the program (consoles, notifications, the log file), so a new output path is covered
by wiring, not by remembering. The protocol layer also masks the key in host data as it enters
(`openwop_tui.protocol.hostdata`); this is the second, independent line.

Pure: no I/O.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import TextIO
from urllib.parse import urlsplit, urlunsplit

from openwop_tui.text.mask import MASK, mask, secrets_of

__all__ = ["MASK", "RedactingWriter", "Redactor", "display_url"]

#: ``scheme://user:password@`` in any text (error messages quote URLs). No ``\b`` before the
#: scheme: printed text has SGR codes right before it (``\x1b[0mhttps://…``), and the ``m``
#: ending one is a word character, so a word boundary there would let the credentials through.
_URL_USERINFO = re.compile(r"(?i)([a-z][a-z0-9+.\-]{0,20}://)[^/\s@?#]+@")
#: ``Authorization: Bearer <token>`` echoed back by a host or a proxy.
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]{4,}")


class Redactor:
    """Masks the given secrets, URL credentials and Bearer tokens in any text.

    >>> Redactor(["sk-live-123456"])("key sk-live-123456 in https://bob:pw@h/x")
    'key [api key] in https://[api key]@h/x'
    """

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        unique = set(secrets_of(*secrets))
        self.secrets: tuple[str, ...] = tuple(sorted(unique, key=len, reverse=True))
        """The secrets masked, longest first (so a key containing another is masked whole)."""

    def with_secrets(self, *more: str | None) -> Redactor:
        """A redactor that also masks ``more`` (e.g. the demo host's key once it is known)."""
        return Redactor([*self.secrets, *more])

    def __call__(self, text: str) -> str:
        """``text`` with every secret, URL credential and Bearer token replaced by `MASK`."""
        if self.secrets:
            text = mask(text, self.secrets)
        return self.beyond_keys(text)

    def beyond_keys(self, text: str) -> str:
        """``text`` with URL credentials and Bearer tokens masked: all `__call__` does to a
        text known to hold nothing `mask` changes (`openwop_tui.protocol.hostdata.KeyProbes`
        said so: the store asks it of every row already)."""
        if "@" in text:
            text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", text)
        if "earer" in text or "EARER" in text:
            text = _BEARER.sub(lambda m: f"{m.group(1)}{MASK}", text)
        return text


def display_url(url: str) -> str:
    """``url`` as it may be shown: without ``user:password@``. Unparseable URLs are returned
    with any credentials masked by pattern."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return Redactor()(url)
    if parts.username is None and parts.password is None:
        return url
    netloc = host or ""
    if ":" in netloc:
        netloc = f"[{netloc}]"
    if port is not None:
        netloc = f"{netloc}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class RedactingWriter(io.TextIOBase):
    """A text stream that masks secrets in everything written to ``target``.

    Rich writes a whole rendered print in one `write`, so a secret is not split across calls.
    ``isatty`` and ``fileno`` are the target's, so colour and size detection still work.
    """

    def __init__(self, target: TextIO, redactor: Redactor) -> None:
        super().__init__()
        self._target = target
        self._redact = redactor

    def write(self, text: str) -> int:
        self._target.write(self._redact(text))
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target, "encoding", None) or "utf-8"
