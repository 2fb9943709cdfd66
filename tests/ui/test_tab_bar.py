"""The tab bar's labels fitted to its width (`openwop_tui.ui.widgets.tab_bar.lay_out`): every
title gets the same room, cut with "…" only as much as the width needs; when even the shortest
do not fit, the tabs nearest the current one are shown and the others counted at each end.
Fails with the titles cut to a fixed length, or the current tab pushed off the bar."""

from __future__ import annotations

import pytest

from openwop_tui.ui.widgets.tab_bar import CLOSE, MAX_TITLE, MIN_TITLE, Label, lay_out, pieces

LABELS = [
    Label("code please", "live"),
    Label("a card please about a launch that took a long time"),
    Label("new chat", "done"),
]


def shown(labels: list[Label], current: int, width: int) -> list[str]:
    layout = lay_out(labels, current, width)
    return [
        "".join(text for text, _ in pieces(spot.index + 1, labels[spot.index], layout.room))
        for spot in layout.spots
    ]


def test_wide_enough_every_title_is_whole_up_to_its_most() -> None:
    labels = shown(LABELS, 0, 120)
    assert labels[0] == f" 1 ● code please {CLOSE} "
    assert labels[1] == f" 2 {LABELS[1].title[: MAX_TITLE - 1]}… {CLOSE} "
    assert labels[2] == f" 3 ✓ new chat {CLOSE} "


def test_narrower_the_titles_share_the_room_and_fill_it() -> None:
    layout = lay_out(LABELS, 1, 50)
    assert layout.before == layout.after == 0
    assert MIN_TITLE < layout.room < MAX_TITLE
    assert layout.spots[-1].end <= 50
    assert lay_out(LABELS, 1, 51).room >= layout.room  # (no room given away)
    assert sum(len(text) for text in shown(LABELS, 1, 50)) == layout.spots[-1].end


def test_too_narrow_the_current_tab_stays_and_the_others_are_counted() -> None:
    many = [Label(f"chat number {n}") for n in range(1, 13)]
    layout = lay_out(many, 7, 60)
    indices = [spot.index for spot in layout.spots]
    assert 7 in indices and indices == sorted(indices)
    assert layout.before == indices[0] and layout.after == 11 - indices[-1]
    assert layout.before > 0 and layout.after > 0
    assert layout.spots[-1].end + 3 <= 60
    assert layout.room == MIN_TITLE


def test_the_close_mark_is_where_the_label_says() -> None:
    layout = lay_out(LABELS, 0, 120)
    text = "".join(shown(LABELS, 0, 120))
    for spot in layout.spots:
        assert text[spot.close] == CLOSE
        assert spot.start <= spot.close < spot.end


def test_what_has_the_keys_is_none_while_the_app_has_no_screen() -> None:
    """A form closed as the app quits (a run's question in a hidden tab) asked the app what had
    the keys after its screens were gone: a ScreenStackError, the app "stopped after an
    unexpected error" (seen once in CI, in tests/ui/test_tabs.py's teardown)."""
    from textual.app import App, ScreenStackError

    from openwop_tui.ui.controllers.tabs import focused_now

    closing = App[None]()
    with pytest.raises(ScreenStackError):
        closing.focused  # noqa: B018  (what Textual does: the race this guards)
    assert focused_now(closing) is None
