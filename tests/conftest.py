"""Suite-wide fixtures: keep every test's files out of the user's real folders."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    import httpx

    from openwop_tui.demo_host import DemoHost


# Property tests draw the same examples on every run (a seed from each test, no example
# database): a failure is the code's, seen again by whoever runs the suite next, never a draw
# that only one run made.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.load_profile("repeatable")


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


#: What makes a test module slow: it starts the app, a host (the demo host or a test's own
#: HTTP server), a process (the installed program, on a pseudo terminal or not) or a command.
_SLOW_SIGNS = (
    "run_test(",
    "DemoHost",
    "HTTPServer",
    "Loopback(",
    "subprocess",
    "snap_compare",
    "main([",
    "pty.",
    "os.fork",
    "Pilot",
)
_IMPORTED = re.compile(r"^\s*(?:from|import)\s+(\w+)", re.MULTILINE)


def _slow_support(folder: Path) -> frozenset[str]:
    """The modules under tests/ that start something, directly or through another they import
    (``installed`` runs the program; ``catch_up_host`` serves through ``loopback``; a test
    module may import another's helpers)."""
    sources = {
        path.stem: path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*.py"))
        if path.stem != "conftest"
    }
    slow = {name for name, source in sources.items() if any(s in source for s in _SLOW_SIGNS)}
    while True:
        more = {
            name
            for name, source in sources.items()
            if name not in slow and slow & set(_IMPORTED.findall(source))
        }
        if not more:
            return frozenset(slow)
        slow |= more


def _is_slow(source: str, slow_support: frozenset[str]) -> bool:
    """Whether a test module starts something: a sign in its own text, or a helper that does."""
    return any(sign in source for sign in _SLOW_SIGNS) or bool(
        slow_support & set(_IMPORTED.findall(source))
    )


@functools.cache
def _support_here() -> frozenset[str]:
    return _slow_support(Path(__file__).parent)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m quick`` alone, a slow module is not even imported: collecting (importing and
    rewriting the asserts of) every module the subset leaves out took each worker longer than
    a third of its tests."""
    if config.getoption("markexpr", "") != "quick":
        return None
    if not (collection_path.name.startswith("test_") and collection_path.suffix == ".py"):
        return None
    return _is_slow(collection_path.read_text(encoding="utf-8"), _support_here()) or None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the quick subset (``-m quick``, the README's quick test command): every test of a
    module that starts no app, no host, no process and no command."""
    slow_support = _support_here()
    verdicts: dict[Path, bool] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path not in verdicts:
            verdicts[path] = not _is_slow(path.read_text(encoding="utf-8"), slow_support)
        if verdicts[path]:
            item.add_marker(pytest.mark.quick)


@pytest.fixture(autouse=True)
def _quick_tests_start_nothing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test of the quick subset that starts a process or a server fails, saying so.

    The subset is chosen by reading each module's source for the signs above; a module that
    starts a process or a host some other way (a helper's function, a fixture) would slip in
    and make the README's "under a minute" untrue without anyone noticing. This holds in every
    run, so the whole suite (CI) catches it as soon as it is written."""
    if request.node.get_closest_marker("quick") is None:
        return
    import os
    import socketserver
    import subprocess
    import sys

    def refuse(what: str) -> Callable[..., NoReturn]:
        def refused(*_args: object, **_kwargs: object) -> NoReturn:
            raise AssertionError(
                f"a quick test (no app, no host, no process) {what}: add its module's sign to "
                "_SLOW_SIGNS in tests/conftest.py, or start nothing"
            )

        return refused

    started = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def start(popen: subprocess.Popen[bytes], *args: object, **kwargs: object) -> None:
        # Finding a shared library (`ctypes.util.find_library`, as sounddevice does on import)
        # asks ldconfig: a lookup, not something the test started.
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename.endswith(os.path.join("ctypes", "util.py")):
                return started(popen, *args, **kwargs)  # type: ignore[no-any-return]
            frame = frame.f_back  # type: ignore[assignment]
        refuse("started a process")()

    monkeypatch.setattr(subprocess.Popen, "_execute_child", start)
    # (At the server's making, in the test's own thread: refused in the thread that serves, the
    # test would wait for an answer that never comes.)
    monkeypatch.setattr(socketserver.BaseServer, "__init__", refuse("started a server"))
    for fork in ("fork", "forkpty"):
        monkeypatch.setattr(os, fork, refuse("forked a process"))


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
