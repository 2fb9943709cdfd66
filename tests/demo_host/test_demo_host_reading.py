"""``demo.chat`` reads what a person attached and says what it holds, truthfully and without a
model; ``demo.text`` says it reads text only (issue 25, part 7). Real loopback HTTP, each run
read to its end (`demo_drive`); the facts asserted are the ones the test's files were made
with (`media_parts`)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from demo_drive import Scenario, run
from media_parts import noise_png, part, pdf, said, tone, two_colour_png, upload
from patience import PATIENCE

from openwop_tui.demo_host import DemoHost
from openwop_tui.demo_host.catalog import WORKFLOW_INFO


@pytest.fixture(scope="module")
def host() -> Iterator[DemoHost]:
    with DemoHost(pace=0, keepalive=0) as demo:
        yield demo


def _turn(host: DemoHost, inputs: dict[str, Any], workflow: str = "demo.chat") -> list[Any]:
    _, events = run(host, Scenario("turn", workflow, inputs), 1)
    assert events[-1]["type"] == "run.completed", events[-1]
    return events


def _reply(host: DemoHost, inputs: dict[str, Any], workflow: str = "demo.chat") -> str:
    """The markdown reply of one turn (the ``reply`` node's completion)."""
    events = _turn(host, inputs, workflow)
    done = [e for e in events if e["type"] == "node.completed" and e["nodeId"] == "reply"]
    completion: str = done[0]["payload"]["outputs"]["completion"]
    # What was streamed is what completed: the chunks add up to the same text.
    chunks = [e["payload"]["chunk"] for e in events if e["type"] == "output.chunk"]
    assert "".join(chunks).startswith(completion[:200])
    return completion


def _line(reply: str, number: int) -> str:
    """The ``number``-th item of the reply's ``## What you sent`` section (1 for the first)."""
    section = reply.split("## What you sent\n\n", 1)[1].split("\n\n", 1)[0]
    return section.splitlines()[number - 1]


def _client(host: DemoHost, key: str) -> httpx.Client:
    return httpx.Client(
        base_url=host.url, headers={"Authorization": f"Bearer {key}"}, timeout=PATIENCE
    )


# ----------------------------------------------------------------------- what it reads


def test_an_inline_picture_is_sized_and_its_colours_named(host: DemoHost) -> None:
    png = two_colour_png((64, 32), split=0.75)
    reply = _reply(host, said(part("image", "image/png", png, alt="halves"), text="what is it?"))
    line = _line(reply, 1)
    assert line.startswith(f"- **image** `halves` (image/png, {len(png)} bytes, inline): ")
    assert "a PNG picture, 64\u00d732 pixels" in line
    assert line.endswith("its main colours: red `#ff0000` (75%), blue `#0000ff` (25%).")


def test_markdown_says_its_lines_words_and_headings(host: DemoHost) -> None:
    text = (
        "# Release notes\n\nSome words here.\n\n## Fixed\n\n- a bug\n\n"
        "```python\n# not a heading: code\n```\n\n### Known issues ###\n"
    )
    reply = _reply(host, said(part("file", "text/markdown", text.encode(), name="notes.md")))
    line = _line(reply, 1)
    assert "`notes.md` (text/markdown," in line
    assert f"{len(text.splitlines())} lines, {len(text.split())} words" in line
    assert line.endswith("headings: `# Release notes`, `## Fixed`, `### Known issues`.")


def test_a_pdf_says_its_page_count(host: DemoHost) -> None:
    reply = _reply(host, said(part("file", "application/pdf", pdf(3), name="three.pdf")))
    assert re.search(r"a PDF 1\.\d document of 3 pages\.$", _line(reply, 1))


@pytest.mark.parametrize(
    ("fmt", "mime", "seconds", "rate", "channels", "heard"),
    [
        ("WAV", "audio/wav", 1.5, 16000, 1, "WAV PCM_16 sound of 1.50 s, 16,000 Hz, mono"),
        ("OGG", "audio/ogg", 1.0, 22050, 2, "OGG VORBIS sound of 1.00 s, 22,050 Hz, stereo"),
    ],
)
def test_a_sound_says_its_duration_rate_channels_and_loudness(
    host: DemoHost, fmt: str, mime: str, seconds: float, rate: int, channels: int, heard: str
) -> None:
    clip = tone(seconds, rate, fmt, channels)
    reply = _reply(host, said(part("audio", mime, clip, durationSeconds=seconds, name="v")))
    line = _line(reply, 1)
    assert heard in line
    # A half-scale sine is 20·log10(0.5/√2) = -9.03 dBFS RMS (Vorbis is lossy: near it).
    loudness = re.search(r"loudness (-?\d+\.\d) dBFS \(RMS\)", line)
    assert loudness and abs(float(loudness.group(1)) + 9.03) < 0.5


def test_json_and_csv_say_their_shape(host: DemoHost) -> None:
    doc = json.dumps({"name": "demo", "size": 3, "tags": []}).encode()
    table = b"city,country,people\r\nParis,FR,2.1\r\nLyon,FR,0.5\r\n"
    reply = _reply(
        host,
        said(
            part("file", "application/json", doc, name="a.json"),
            part("file", "text/csv", table, name="b.csv"),
            part("file", "text/plain", b"one two\nthree\n", name="c.txt"),
        ),
    )
    assert _line(reply, 1).endswith("a JSON object with 3 keys: `name`, `size`, `tags`.")
    assert _line(reply, 2).endswith(
        "a table of 3 rows \u00d7 3 columns; its first row: city, country, people."
    )
    assert _line(reply, 3).endswith("2 lines, 3 words.")


def test_an_uploaded_file_named_by_its_url_is_read(host: DemoHost) -> None:
    with _client(host, host.api_key) as http:
        url = upload(http, two_colour_png((40, 40), split=0.5), "image/png", "up.png").json()["url"]
    reply = _reply(host, said(part("image", "image/png", url=url)))
    line = _line(reply, 1)
    assert line.startswith("- **image** `up.png` (image/png,") and "uploaded)" in line
    assert "40\u00d740 pixels" in line and "red `#ff0000` (50%)" in line


# Another tenant's upload and a URL elsewhere are refused before the run starts
# (test_demo_host_admission.py).


@pytest.mark.parametrize(
    ("sent", "said_"),
    [
        (part("image", "image/png", dataBase64="@@not base64@@"), "dataBase64 is not valid base64"),
        (part("file", "application/pdf", two_colour_png()), "PNG image, not application/pdf"),
        (part("file", "application/zip", b"PK\x03\x04"), "`application/zip` is not a media type"),
        (part("video", "video/mp4", b"\x00\x00"), "`video` is not a part type I know"),
        (part("image", "image/png"), "no dataBase64 or url"),
        (part("image", "image/png", b"\x89PNG\r\n\x1a\ntruncated"), "it does not decode"),
        (part("audio", "audio/wav", b"RIFF\x00\x00\x00\x00WAVEjunk"), "it does not decode"),
    ],
)
def test_a_part_that_cannot_be_read_gets_a_sentence_and_the_run_completes(
    host: DemoHost, sent: dict[str, Any], said_: str
) -> None:
    reply = _reply(host, said(sent, part("file", "text/plain", b"fine\n"), text="and code"))
    assert "I could not read it: " in _line(reply, 1) and said_ in _line(reply, 1)
    assert _line(reply, 2).endswith("(text/plain, 5 bytes, inline): 1 line, 1 word.")
    assert "## Coming right up" in reply  # the words are still read for keywords


def test_a_part_with_both_bytes_and_an_upload_url_is_read_as_neither(host: DemoHost) -> None:
    with _client(host, host.api_key) as http:
        url = upload(http, b"uploaded\n", "text/plain", "up.txt").json()["url"]
    reply = _reply(host, said(part("file", "text/plain", b"inline\n", url=url)))
    line = _line(reply, 1)
    assert line.endswith("I could not read it: it has both dataBase64 and url.")
    assert "1 line" not in line  # neither the inline bytes nor the upload was read


def test_the_words_are_answered_after_the_attachments(host: DemoHost) -> None:
    events = _turn(host, said(part("file", "text/plain", b"hello\n"), text="some code please"))
    reply = next(e for e in events if e["type"] == "node.completed" and e["nodeId"] == "reply")
    text = reply["payload"]["outputs"]["completion"]
    assert text.index("## What you sent") < text.index("## Coming right up")
    kinds = [
        e["payload"]["outputs"]["envelope"]["type"]
        for e in events
        if e["type"] == "node.completed" and "envelope" in e["payload"]["outputs"]
    ]
    assert kinds == ["vendor.openwop-tui-demo.snippet"]
    thought = next(e for e in events if e["type"] == "agent.reasoned")
    assert "attached 1 file." in thought["payload"]["reasoning"]


def test_attachments_alone_get_a_short_hint_not_the_help_list(host: DemoHost) -> None:
    reply = _reply(host, said(part("file", "text/plain", b"hi\n")))
    assert "Type `everything`" in reply and "You said" not in reply
    assert "`approve`" not in reply  # the whole help list is for a message without attachments


def test_run_started_echoes_the_parts_as_sent(host: DemoHost) -> None:
    inputs = said(part("image", "image/png", two_colour_png(), alt="a"), text="hi")
    started = _turn(host, inputs)[0]
    assert started["type"] == "run.started"
    assert started["payload"]["inputs"] == inputs


# ---------------------------------------------------------------------------- demo.text


def test_demo_text_names_what_it_could_not_read_without_reading_it(host: DemoHost) -> None:
    png, clip = two_colour_png(), tone(0.5, 8000, "OGG")
    with _client(host, host.api_key) as http:
        url = upload(http, clip, "audio/ogg", "voice.ogg").json()["url"]
    reply = _reply(
        host,
        said(
            part("image", "image/png", png, alt="halves"),
            part("file", "application/pdf", dataBase64="@@@@"),  # not even looked at
            part("audio", "audio/ogg", url=url),
            text="what do you make of these?",
        ),
        "demo.text",
    )
    assert reply.startswith("## Text only\n\nI read text only, so I could not read")
    assert f"- **image** `halves` (image/png, {len(png)} bytes, inline)\n" in reply
    assert "- **file** (application/pdf, 3 bytes, inline)\n" in reply
    assert f"- **audio** `voice.ogg` (audio/ogg, {len(clip):,} bytes, uploaded)\n" in reply
    assert "pixels" not in reply and "base64" not in reply and "fetched" not in reply
    assert "> what do you make of these?" in reply


def test_demo_text_without_attachments_echoes(host: DemoHost) -> None:
    reply = _reply(host, {"messages": [{"role": "user", "content": "plain words"}]}, "demo.text")
    assert "could not read" not in reply and "> plain words" in reply


def test_each_workflow_says_what_its_model_reads(host: DemoHost) -> None:
    with _client(host, host.api_key) as http:
        listed = {w["id"]: w for w in http.get("/v1/workflows").json()["workflows"]}
        one = http.get("/v1/workflows/demo.text").json()
    assert set(listed) == set(WORKFLOW_INFO)
    assert all(isinstance(w["modelCapabilities"]["advertised"], list) for w in listed.values())
    assert listed["demo.chat"]["modelCapabilities"] == {
        "advertised": ["vision-input", "audio-input"]
    }
    assert listed["demo.text"]["modelCapabilities"] == {"advertised": []}
    assert listed["demo.text"]["name"] == "Demo: text only"
    assert one["modelCapabilities"] == {"advertised": []} and one["nodes"][0]["id"] == "reply"


# -------------------------------------------------------------------------------- the log


def test_the_log_says_which_part_came_inline_and_which_by_upload(
    host: DemoHost, caplog: pytest.LogCaptureFixture
) -> None:
    """The issue's check: a 2 MB picture goes by upload, a 100 KB one inline."""
    caplog.set_level(logging.INFO, logger="openwop_tui.demo_host")
    big, small = noise_png((1000, 700)), noise_png((180, 180))
    assert len(big) > 2_000_000 and 90_000 < len(small) < 262_144
    with _client(host, host.api_key) as http:
        url = upload(http, big, "image/png", "big.png").json()["url"]
    run_id = _turn(
        host,
        said(part("image", "image/png", url=url), part("image", "image/png", small, name="s.png")),
    )[0]["runId"]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("openwop_tui.demo_host")]
    prefix = f"run {run_id} (demo.chat)"
    assert (
        f"{prefix} part 1: type=image mime=image/png name='big.png' bytes={len(big)} via=upload"
    ) in lines
    assert (
        f"{prefix} part 2: type=image mime=image/png name='s.png' bytes={len(small)} via=inline"
    ) in lines
