"""Suite-wide fixtures: keep every test's files out of the user's real folders."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import httpx

    from openwop_tui.demo_host import DemoHost


@pytest.fixture(autouse=True)
def _private_state_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log file, the sessions database (and any later state) of code under test go to
    temporary folders."""
    state: Path = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    """The embedded demo host, unpaced, on a loopback port, shared by a module's tests (a
    module that needs another pace or protocol defines its own ``host``)."""
    from openwop_tui.demo_host import DemoHost  # imported here: the quick tests start no host

    with DemoHost(pace=0) as running:
        yield running


@pytest.fixture
def client(host: DemoHost) -> Iterator[httpx.Client]:
    """An HTTP client of ``host`` with its key."""
    import httpx

    auth = {"Authorization": f"Bearer {host.api_key}"}
    with httpx.Client(base_url=host.url, headers=auth, timeout=10) as c:
        yield c


#: What makes a test module slow: it starts the app, a host, a process or a command.
_SLOW_SIGNS = ("run_test(", "DemoHost", "subprocess", "snap_compare", "main([", "pty.", "Pilot")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the quick subset (``-m quick``, the README's quick test command): every test of a
    module that starts no app, no host, no process and no command."""
    verdicts: dict[Path, bool] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path not in verdicts:
            source = path.read_text(encoding="utf-8")
            verdicts[path] = not any(sign in source for sign in _SLOW_SIGNS)
        if verdicts[path]:
            item.add_marker(pytest.mark.quick)


@pytest.fixture(autouse=True)
def _fresh_rich_styles() -> Iterator[None]:
    """Each test draws with styles no earlier test has rendered.

    Rich caches a `Style`'s ANSI codes on the instance the first time it is rendered, whatever
    the console's colour system, and shares instances through its own caches (`Style.parse`,
    combined styles) and the palette's (`Palette.rich_theme`, `syntax_theme`). One process
    draws with one colour system, so users never meet this; a test printing in truecolor
    would otherwise leave its codes in the styles a later test prints in 16 or 256 colours.
    """
    yield
    from rich.style import Style

    from openwop_tui.draw import palette

    for cached in (Style.parse, Style.normalize):
        cached.__func__.cache_clear()  # type: ignore[attr-defined]
    for cached in (Style._add, Style.clear_meta_and_links, Style.get_html_style):
        cached.cache_clear()  # type: ignore[attr-defined]
    palette._syntax_theme.cache_clear()
    palette._rich_theme.cache_clear()


@pytest.fixture(autouse=True)
def _nothing_left_frozen() -> Iterator[None]:
    """What a test's app froze out of the collector (`gc.freeze` after its first screen) is
    given back to it: one app a process never needs this, a worker running hundreds would
    keep each one's cyclic garbage for good."""
    yield
    import gc

    gc.unfreeze()


@pytest.fixture(autouse=True)
def _no_real_keychain() -> Iterator[None]:
    """No test reads or writes the machine's keychain: keyring is given an empty keychain in
    memory (`keychain_support.MemoryKeyring`) for each test, put back afterwards."""
    import keyring
    from keychain_support import MemoryKeyring

    before = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield
    keyring.set_keyring(before)
