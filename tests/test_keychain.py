"""Where the API key comes from, and where the settings screen keeps it (issue 27).

At start: ``--api-key`` > ``OPENWOP_API_KEY`` > the system keychain's entry for the host in use >
the config file, and `Config.key_from` says which. Kept: in the keychain (under ``openwop-tui``,
the host's URL without credentials as the user name) when the machine has one, else in the config
file with mode 0600. Every keychain here is keyring's in memory (`keychain_support`), or none.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import keyring
import pytest
from keychain_support import BrokenKeyring, memory, no_keychain

from openwop_tui.config import (
    KEY_FROM_ENV,
    KEY_FROM_FILE,
    KEY_FROM_FLAG,
    KEY_FROM_KEYCHAIN,
    Config,
    ConfigError,
    load_config,
)
from openwop_tui.config_file import PRIVATE, save_settings
from openwop_tui.keychain import SERVICE, KeychainError, account, system_keychain

HOST = "http://127.0.0.1:3737"


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_key_comes_from_flag_then_environment_then_keychain_then_file(tmp_path: Path) -> None:
    path = _file(tmp_path, f'host = "{HOST}"\napi_key = "from-file"\n')
    memory().set_password(SERVICE, HOST, "from-keychain")
    env = {"OPENWOP_API_KEY": "from-env"}

    def key(flags: dict[str, object], environ: dict[str, str]) -> tuple[str | None, str]:
        config = load_config(flags, environ=environ, path=path)
        return config.api_key, config.key_from

    assert key({"api_key": "from-flag"}, env) == ("from-flag", KEY_FROM_FLAG)
    assert key({}, env) == ("from-env", KEY_FROM_ENV)
    assert key({}, {}) == ("from-keychain", KEY_FROM_KEYCHAIN)
    # The keychain's entry is the host's: another host gets the file's key.
    assert key({"host": "http://127.0.0.1:4000"}, {}) == ("from-file", KEY_FROM_FILE)
    memory().delete_password(SERVICE, HOST)
    assert key({}, {}) == ("from-file", KEY_FROM_FILE)
    assert load_config({}, environ={}, path=_file(tmp_path, "")).key_from == ""


def test_key_from_is_not_a_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown setting 'key_from'"):
        load_config({}, environ={}, path=_file(tmp_path, 'key_from = "the command line"\n'))
    assert "from-file" not in repr(Config(api_key="from-file"))


def test_a_machine_without_a_keychain_or_a_broken_one_falls_back_to_the_file(
    tmp_path: Path,
) -> None:
    path = _file(tmp_path, f'host = "{HOST}"\napi_key = "from-file"\n')
    with no_keychain():
        assert system_keychain() is None
        assert load_config({}, environ={}, path=path).key_from == KEY_FROM_FILE
    keyring.set_keyring(BrokenKeyring())
    found = system_keychain()
    assert found is not None and found.read(HOST) is None  # refused: the next source
    assert load_config({}, environ={}, path=path).api_key == "from-file"
    with pytest.raises(KeychainError, match="did not take the key") as caught:
        found.store(HOST, "sk-secret-1234")
    assert "sk-secret" not in str(caught.value)


def test_a_key_is_kept_under_the_host_without_its_credentials() -> None:
    found = system_keychain()
    assert found is not None
    found.store("http://bob:pw@127.0.0.1:3737/", "sk-1")
    assert account("http://bob:pw@127.0.0.1:3737/") == HOST
    assert memory().keys == {(SERVICE, HOST): "sk-1"}
    assert found.read(HOST) == "sk-1"
    assert found.forget(HOST) and not found.forget(HOST)


def test_a_config_file_with_a_key_is_readable_only_by_its_owner(tmp_path: Path) -> None:
    path = _file(tmp_path, "# mine\n")
    os.chmod(path, 0o644)
    saved = save_settings(path, {"theme": "openwop-light"})
    assert not saved.private and stat.S_IMODE(path.stat().st_mode) == 0o644  # no key: as it was
    saved = save_settings(path, {"api_key": "sk-file-1"})
    assert saved.private and saved.tightened == 0o644
    assert stat.S_IMODE(os.stat(path).st_mode) == PRIVATE
    assert save_settings(path, {"images": "none"}).tightened is None  # private already
    assert stat.S_IMODE(os.stat(path).st_mode) == PRIVATE
    fresh = tmp_path / "new" / "config.toml"
    save_settings(fresh, {"api_key": "sk-file-2"})
    assert stat.S_IMODE(os.stat(fresh).st_mode) == PRIVATE
    with pytest.raises(ConfigError, match="one line of printable") as caught:
        save_settings(path, {"api_key": "sk two\nlines"})
    assert "sk two" not in str(caught.value)


def test_a_code_theme_must_be_a_pygments_style(tmp_path: Path) -> None:
    assert load_config({}, environ={}, path=_file(tmp_path, 'code_theme = "dracula"\n')).code_theme
    with pytest.raises(ConfigError, match="code_theme must be a Pygments style"):
        load_config({}, environ={}, path=_file(tmp_path, 'code_theme = "nope"\n'))
