"""The app's options work after ``replay FILE`` as before it (``replay FILE --no-audio``)."""

from __future__ import annotations

from openwop_tui.cli.parser import build_parser


def test_app_options_after_replay_are_read_as_before_it() -> None:
    after = build_parser().parse_args(["replay", "x.sse", "--no-audio", "--images", "none"])
    before = build_parser().parse_args(["--no-audio", "--images", "none", "replay", "x.sse"])
    for args in (after, before):
        assert args.command == "replay" and args.file == "x.sse"
        assert args.audio is False and args.images == "none"


def test_an_option_given_before_replay_is_not_undone_by_it() -> None:
    args = build_parser().parse_args(["--no-audio", "replay", "x.sse", "--speed", "0"])
    assert args.audio is False and args.speed == 0
