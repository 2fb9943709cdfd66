"""The hostile corpus (tests/data/hostile/) through every output path: ``render``, ``run``
against a hostile host over loopback, and the app headless with its events panel, inspector and
notifications (issue 5, parts 2, 3, 4 and 8).

Every stream ends in ``run.completed``: seeing it proves the client kept reading after whatever
came before. Nothing printed or drawn may hold a control character, a bidi override, a lone
surrogate or the API key; no saved file name may hold an invisible character.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from app_support import NO_AUDIO, SIZE, typed_to_completion
from hostile_data import API_KEY, INVISIBLE, leak, printed
from hostile_host import HostileHost
from paths import TESTS

from openwop_tui import __main__ as cli
from openwop_tui.config import Config
from openwop_tui.ui.app import ChatApp
from openwop_tui.ui.widgets.timeline_panel import TimelinePanel

CORPUS = sorted((TESTS / "data" / "hostile").glob("*.sse"))
IDS = [path.stem for path in CORPUS]


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) >= 9


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
@pytest.mark.parametrize("color", [False, True], ids=["plain", "colour"])
def test_render_prints_the_corpus_cleanly_to_the_end(path: Path, color: bool) -> None:
    out = printed(path.read_text(encoding="utf-8", errors="surrogatepass"), color=color)
    assert leak(out) is None, leak(out)
    assert "run completed" in out


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_saved_names_are_clean(path: Path, tmp_path: Path) -> None:
    printed(path.read_text(encoding="utf-8", errors="surrogatepass"), save_dir=tmp_path)
    for saved in tmp_path.iterdir():
        assert leak(saved.name) is None and not INVISIBLE.search(saved.name), repr(saved.name)


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
def test_run_against_a_hostile_host(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with HostileHost.serving(path) as host:
        code = cli.main(["run", "wf", "--host", host.url, "--api-key", API_KEY, "--no-audio"])
    out, err = capsys.readouterr()
    assert leak(out) is None and leak(err) is None, (leak(out), leak(err))
    assert code == 0, err
    assert "run completed" in out
    assert "Traceback" not in err


def test_a_hostile_error_body_is_clean_and_masked(capsys: pytest.CaptureFixture[str]) -> None:
    with HostileHost("") as host:
        code = cli.main(["run", "wf", "--host", host.url + "/nowhere", "--api-key", API_KEY])
    _, err = capsys.readouterr()
    assert code == 3  # the host answered with a 4xx: a refusal, not a connection error
    assert leak(err) is None, leak(err)


_SVG_TEXT = re.compile(r">([^<]*)<")


@pytest.mark.parametrize("path", CORPUS, ids=IDS)
async def test_the_app_draws_the_corpus_cleanly(path: Path) -> None:
    with HostileHost.serving(path) as host:
        config = Config(
            host=host.url, api_key=API_KEY, workflow="wf", audio=False, images="halfblock"
        )
        app = ChatApp(config, audio_support=NO_AUDIO)
        async with app.run_test(size=SIZE) as pilot:
            await typed_to_completion(pilot, app)
            screens = [app.export_screenshot()]
            await pilot.press("f2")  # the raw events panel
            await pilot.pause()
            screens.append(app.export_screenshot())
            panel = app.query_one(TimelinePanel)
            screens.append("\n".join(panel.view.plain_lines()))
            views = [b for b in app.view.blocks() if b.rendered is not None]
            if views:
                app.view.focus()
                app.view.select(app.view.blocks().index(views[-1]))
                await pilot.press("i")  # the inspector
                await pilot.pause()
                screens.append(app.export_screenshot())
            screens += [n.message for n in app._notifications]
    for screen in screens:
        text = "".join(_SVG_TEXT.findall(screen)) if screen.startswith("<svg") else screen
        problem = leak(text)
        assert problem is None, problem
