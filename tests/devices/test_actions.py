"""What the buttons do outside the terminal: save, choose a folder, and whether opening a file
needs the user's yes first (`actions.open_risk`, a pure function: the full decision table)."""

from __future__ import annotations

from pathlib import Path

import pytest

from openwop_tui.devices import desktop as actions
from openwop_tui.devices.desktop import RISKY_EXTENSIONS, RISKY_MEDIA_TYPES, ActionError, open_risk

#: Every extension the issue names, and more: each one must ask.
MUST_ASK = [
    ".desktop",
    ".sh",
    ".bash",
    ".command",
    ".jar",
    ".exe",
    ".msi",
    ".bat",
    ".cmd",
    ".ps1",
    ".app",
    ".py",
    ".pl",
    ".rb",
    ".js",
    ".html",
    ".htm",
    ".svg",
    ".xhtml",
    ".apk",
    ".deb",
    ".rpm",
    ".appimage",
    ".lnk",
    ".scr",
    ".vbs",
    ".reg",
    ".dmg",
    ".pkg",
    ".hta",
    ".com",
    ".jnlp",
    ".php",
]


@pytest.mark.parametrize("suffix", MUST_ASK)
def test_every_runnable_extension_asks(suffix: str) -> None:
    for name in (f"report{suffix}", f"REPORT{suffix.upper()}", f"invoice.pdf{suffix}"):
        risk = open_risk(name, "application/pdf")
        assert risk is not None, name
        assert risk.reason.startswith("this is ") and risk.reason.endswith("opening it may run it")


@pytest.mark.parametrize("suffix", sorted(RISKY_EXTENSIONS))
def test_the_whole_extension_table_asks(suffix: str) -> None:
    assert open_risk(f"x{suffix}", None) is not None


def test_the_reason_says_what_the_file_is() -> None:
    risk = open_risk("setup.sh", "text/plain")
    assert risk is not None and risk.reason == "this is a shell script: opening it may run it"
    risk = open_risk("launch.desktop", None)
    assert risk is not None and "desktop launcher" in risk.reason


@pytest.mark.parametrize("media_type", sorted(RISKY_MEDIA_TYPES))
def test_every_runnable_media_type_asks_whatever_the_name(media_type: str) -> None:
    risk = open_risk("notes.txt", f"{media_type.upper()}; charset=utf-8")
    assert risk is not None
    assert risk.reason.startswith("the host says this is ") and media_type in risk.reason


@pytest.mark.parametrize(
    ("name", "media_type"),
    [
        ("notes.txt", "text/plain"),
        ("notes.txt", None),
        ("report.csv", "text/csv"),
        ("report.csv", "text/plain; charset=utf-8"),
        ("data.json", "application/json"),
        ("readme.md", "text/markdown"),
        ("chart.png", "image/png"),
        ("photo.jpg", "image/jpeg"),
        ("q3.pdf", "application/pdf"),
        ("q3.pdf", "application/octet-stream"),
        ("song.ogg", "audio/ogg"),
        ("config.yaml", "application/yaml"),
        ("archive.zip", "application/zip"),
    ],
)
def test_harmless_consistent_files_open_without_asking(name: str, media_type: str | None) -> None:
    assert open_risk(name, media_type, b"plain text, nothing to run\n") is None


@pytest.mark.parametrize(
    ("name", "media_type", "says"),
    [
        ("report.pdf", "text/csv", "the host says it is text/csv but its name ends in .pdf"),
        ("chart.png", "application/pdf", "the host says it is application/pdf"),
        ("notes.txt", "image/png", "its name ends in .txt"),
    ],
)
def test_a_media_type_and_extension_that_disagree_ask(
    name: str, media_type: str, says: str
) -> None:
    risk = open_risk(name, media_type)
    assert risk is not None and says in risk.reason


@pytest.mark.parametrize(
    ("head", "says"),
    [
        (b"#!/bin/sh\nrm -rf ~\n", "a script"),
        (b"\xef\xbb\xbf#!/usr/bin/env python\n", "a script"),
        (b"\x7fELF\x02\x01\x01", "ELF"),
        (b"MZ\x90\x00", "Windows program"),
        (b"[Desktop Entry]\nExec=sh -c evil\n", "desktop launcher"),
        (b"  <!DOCTYPE html><script>", "HTML"),
        (b"<svg onload=alert(1)>", "HTML, SVG"),
    ],
)
def test_content_that_starts_like_a_program_asks_whatever_the_name(head: bytes, says: str) -> None:
    risk = open_risk("notes.txt", "text/plain", head)
    assert risk is not None and says in risk.reason
    assert risk.reason.startswith("its content looks like")


@pytest.mark.parametrize("name", ["README", "download", "evil.", "run.exe.", "run.exe .", ""])
def test_no_extension_asks_because_the_opener_sniffs(name: str) -> None:
    risk = open_risk(name, "text/plain")
    assert risk is not None
    if "exe" in name:  # Windows drops trailing dots and spaces: it is an .exe
        assert "Windows program" in risk.reason
    else:
        assert "no extension" in risk.reason


def test_an_extension_nobody_vouched_for_asks() -> None:
    risk = open_risk("thing.xyz123", "application/octet-stream")
    assert risk is not None and ".xyz123 is not one this client knows" in risk.reason


# ------------------------------------------------------------------ the opener


def test_open_path_hands_the_file_to_the_opener(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(actions.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(actions, "launch", started.append)
    assert actions.open_path(Path("/tmp/x.txt")) == "opened /tmp/x.txt"
    assert len(started) == 1 and started[0][1] == "/tmp/x.txt"


def test_open_path_without_an_opener_says_where_the_file_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(actions.shutil, "which", lambda name: None)
    with pytest.raises(ActionError, match=r"the file is at /tmp/x\.txt"):
        actions.open_path(Path("/tmp/x.txt"))


# ------------------------------------------------------------------ save as


def test_chosen_folder_creates_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    assert actions.chosen_folder(f"  {target}  ") == target
    assert target.is_dir()


def test_chosen_folder_expands_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert actions.chosen_folder("~/saved") == tmp_path / "saved"


@pytest.mark.parametrize("typed", ["", "   "])
def test_chosen_folder_needs_a_folder(typed: str) -> None:
    with pytest.raises(ActionError, match="type a folder"):
        actions.chosen_folder(typed)


def test_chosen_folder_refuses_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ActionError, match="is a file, not a folder"):
        actions.chosen_folder(str(blocker))
    with pytest.raises(ActionError, match="could not create"):
        actions.chosen_folder(str(blocker / "below"))


def test_save_bytes_never_overwrites(tmp_path: Path) -> None:
    first = actions.save_bytes(b"1", "a.txt", tmp_path)
    second = actions.save_bytes(b"2", "a.txt", tmp_path)
    assert (first.name, second.name) == ("a.txt", "a-1.txt")
    assert first.read_bytes() == b"1"
