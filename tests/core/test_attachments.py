"""What a person attaches is checked before anything is sent (issue 25, parts 3 and 8): every
refusal is one sentence naming the file and why, nothing is read half, and what is accepted
carries its type, its bytes and, for a clip, its length. Each fails without its check: a
missing file or a folder read as empty, a type guessed from anything but the list, a file over
the ceiling read whole, bytes that are not what the name says sent as if they were."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile
from PIL import Image

from openwop_tui.core.attachments import (
    CEILING_BYTES,
    AttachmentError,
    attachment_of,
    read_attachment,
    sniffed_type,
)
from openwop_tui.core.own_media import read_logged
from openwop_tui.protocol.content_parts import media_part


def png(width: int = 8, height: int = 4) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


def wav(seconds: float = 0.5, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    samples = np.sin(np.linspace(0, 440 * 2 * np.pi * seconds, int(rate * seconds)))
    soundfile.write(buffer, (samples * 0.3).astype("float32"), rate, format="WAV")
    return buffer.getvalue()


def test_a_picture_a_document_and_a_clip_are_read_with_their_types(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(png())
    (tmp_path / "notes.md").write_text("# Title\n\nsome words\n", encoding="utf-8")
    (tmp_path / "voice.wav").write_bytes(wav(0.5))
    picture = read_attachment(tmp_path / "chart.png")
    notes = read_attachment(tmp_path / "notes.md")
    clip = read_attachment(tmp_path / "voice.wav")
    assert (picture.kind, picture.mime, picture.name) == ("image", "image/png", "chart.png")
    assert (notes.kind, notes.mime) == ("file", "text/markdown")
    assert (clip.kind, clip.mime) == ("audio", "audio/wav")
    assert clip.duration is not None and abs(clip.duration - 0.5) < 0.01
    assert picture.data == (tmp_path / "chart.png").read_bytes()
    assert "chart.png (image/png" in picture.describe()


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("missing.png", None, "there is no such file"),
        ("folder.png", "dir", "it is a folder"),
        ("program.exe", b"MZ\x90\x00", "its type is not one a host takes"),
        (
            "photo.png",
            b"%PDF-1.4\n...",
            "its name says image/png, but its bytes are application/pdf",
        ),
        ("data.json", b"{not json", "its name says application/json, but its bytes are not"),
        ("notes.txt", b"\xff\xfe\x00t\x00e", "its bytes are not a file of that type"),
        ("empty.md", b"", "it is empty"),
    ],
)
def test_each_refusal_says_which_file_and_why(
    tmp_path: Path, name: str, content: bytes | str | None, said: str
) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with pytest.raises(AttachmentError) as raised:
        read_attachment(path)
    sentence = str(raised.value)
    assert name in sentence and said in sentence, sentence
    assert "\n" not in sentence


def test_a_file_over_the_ceiling_is_refused_with_its_size_unread(tmp_path: Path) -> None:
    big = tmp_path / "scan.pdf"
    with big.open("wb") as file:
        file.write(b"%PDF-1.4\n")
        file.truncate(20_000_000)  # 20 MB, sparse: nothing to read
    with pytest.raises(AttachmentError) as raised:
        read_attachment(big)
    sentence = str(raised.value)
    assert "it is 20.0 MB, over the 6.3 MB an attachment may be" in sentence, sentence
    assert "scan.pdf" in sentence


def test_standard_input_and_a_recorded_clip_are_checked_the_same_way() -> None:
    assert attachment_of(png(), "stdin.png", "image/png").size == len(png())
    with pytest.raises(AttachmentError):
        attachment_of(b"plain text", "stdin.png", "image/png")
    with pytest.raises(AttachmentError):
        attachment_of(b"x" * (CEILING_BYTES + 1), "big.txt", "text/plain")
    with pytest.raises(AttachmentError):
        attachment_of(b"x", "run.sh", "application/x-sh")


def test_bytes_are_told_by_their_signature_not_their_name() -> None:
    assert sniffed_type(png()) == "image/png"
    assert sniffed_type(wav()) == "audio/wav"
    assert sniffed_type(b"GIF89a....") == "image/gif"
    assert sniffed_type(json.dumps({"a": 1}).encode(), "application/json") == "application/json"
    assert sniffed_type(b"a,b\n1,2\n", "text/csv") == "text/csv"
    assert sniffed_type(b"\x00\x01binary") is None


def test_what_the_transcript_says_of_parts_read_back_is_cleaned_and_checked() -> None:
    good = media_part("image", "image/png", "chart\x1b[31m.png", data=png())
    by_url = media_part("file", "application/pdf", "scan.pdf", url="https://host/a/1")
    forged = {"type": "image", "mimeType": "image/png", "dataBase64": "@@not base64@@"}
    unknown = {"type": "video", "mimeType": "video/mp4", "dataBase64": ""}
    names = read_logged({"parts": [good, by_url, forged, unknown]}).attached
    assert [a.kind for a in names] == ["image", "file"]
    assert "\x1b" not in names[0].name and names[0].size == len(png())
    assert names[1].size is None and names[1].url == "https://host/a/1"
