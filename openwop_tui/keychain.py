"""The API key in the system keychain, through `keyring`, when the machine has one.

A key is kept under the service `SERVICE` (``openwop-tui``) with the host's URL as the user
name (`account`: without any ``user:password@``, without a trailing ``/``), so each host has its
own key and a keychain viewer shows which host a key is for. `keyring` picks the platform's
store: the Secret Service (GNOME Keyring, KWallet's bridge, KeePassXC) on Linux, the Keychain on
macOS, the Credential Manager on Windows. A machine without one (a server, a container, CI) gets
keyring's ``fail`` backend: `system_keychain` answers ``None`` then, and the settings screen keeps
the key in the config file, readable only by its owner (`openwop_tui.config_file`).

Every call may block (D-Bus, an unlock prompt): the app makes them in a thread. None of them
raises for a keychain that fails: reading gives ``None`` (the next source is used), storing
raises `KeychainError` with a sentence (the caller falls back to the file and says why). No key
is ever in a message here. No Textual here; `keyring` is imported only when a key is looked up.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openwop_tui.text.redact import display_url

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

__all__ = ["SERVICE", "Keychain", "KeychainError", "account", "system_keychain"]

log = logging.getLogger(__name__)

SERVICE = "openwop-tui"
"""The service name keys are kept under (the user name is the host's URL)."""

#: What a user calls each of keyring's backends (by the start of its module's name).
_NAMES = (
    ("keyring.backends.SecretService", "Secret Service"),
    ("keyring.backends.libsecret", "Secret Service"),
    ("keyring.backends.kwallet", "KWallet"),
    ("keyring.backends.macOS", "macOS Keychain"),
    ("keyring.backends.Windows", "Windows Credential Manager"),
)


class KeychainError(Exception):
    """The keychain could not keep (or forget) a key; the message says why, never the key."""


def account(host: str) -> str:
    """The user name a host's key is kept under: its URL without credentials or a trailing
    ``/`` (``http://127.0.0.1:3737``)."""
    return display_url(host.strip()).rstrip("/")


def _usable(backend: KeyringBackend) -> bool:
    """Whether ``backend`` keeps keys: not keyring's ``fail`` or ``null`` stand-ins, nor a
    chain of no backends."""
    from keyring.backends import chainer, fail, null

    if isinstance(backend, fail.Keyring | null.Keyring):
        return False
    if isinstance(backend, chainer.ChainerBackend):
        return any(_usable(each) for each in backend.backends)
    return True


@dataclass(frozen=True, slots=True)
class Keychain:
    """The system keychain `keyring` found, and how to use it for hosts' keys."""

    backend: KeyringBackend

    @property
    def name(self) -> str:
        """What a user calls it (``Secret Service``, ``macOS Keychain``…)."""
        module = type(self.backend).__module__
        for prefix, name in _NAMES:
            if module.startswith(prefix):
                return name
        return str(getattr(self.backend, "name", "") or type(self.backend).__name__)

    def read(self, host: str) -> str | None:
        """The key kept for ``host``, or ``None`` (none kept, or the keychain failed: logged,
        without the key)."""
        try:
            found = self.backend.get_password(SERVICE, account(host))
        except Exception as error:  # D-Bus gone, a locked keychain refused … never fatal
            log.warning("the %s could not be read: %s", self.name, type(error).__name__)
            return None
        return found or None

    def store(self, host: str, key: str) -> None:
        """Keep ``key`` for ``host``; `KeychainError` saying why it could not."""
        try:
            self.backend.set_password(SERVICE, account(host), key)
        except Exception as error:
            raise KeychainError(
                f"the {self.name} did not take the key ({type(error).__name__})"
            ) from None

    def forget(self, host: str) -> bool:
        """Remove the key kept for ``host``; whether there was one."""
        from keyring.errors import PasswordDeleteError

        try:
            self.backend.delete_password(SERVICE, account(host))
        except PasswordDeleteError:
            return False
        except Exception as error:
            raise KeychainError(
                f"the {self.name} did not forget the key ({type(error).__name__})"
            ) from None
        return True


def system_keychain() -> Keychain | None:
    """The keychain `keyring` would use here, or ``None`` when there is none that keeps keys
    (its ``fail`` or ``null`` backend, or it failed to load one)."""
    try:
        import keyring

        backend = keyring.get_keyring()
        return Keychain(backend) if _usable(backend) else None
    except Exception as error:  # a broken keyringrc.cfg, a backend that fails to import
        log.warning("no system keychain: %s", type(error).__name__)
        return None
