"""A keychain in memory for the tests (`MemoryKeyring`), and one that fails (`BrokenKeyring`).

`tests/conftest.py` gives keyring a fresh `MemoryKeyring` for every test, so no test touches the
machine's own keychain; a test that needs the machine without one sets keyring's ``fail``
backend (`no_keychain`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import KeyringError, PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Keys in a dict, keyed by (service, user name)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.keys.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.keys[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.keys.pop((service, username), None) is None:
            raise PasswordDeleteError("no such key")


class BrokenKeyring(MemoryKeyring):
    """A keychain that is there but refuses (a locked one whose unlock was cancelled)."""

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringError("locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringError("locked")


@contextmanager
def no_keychain() -> Iterator[None]:
    """The machine has no keychain: keyring's ``fail`` backend, as on a server."""
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(before)


def memory() -> MemoryKeyring:
    """The test's keychain (the one `tests/conftest.py` set)."""
    found = keyring.get_keyring()
    assert isinstance(found, MemoryKeyring)
    return found
