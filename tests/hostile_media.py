"""Hostile media and OpenClaw directives for the issue-8 paths: streams whose reply text carries
directives a hostile agent writes, and media envelopes (images, audio, files, cards) a broken or
hostile host sends. Built in code (not committed bytes) so each case says what it is.

A plain module (tests/ is on ``sys.path``), imported by ``test_hostile_directives`` and
``test_hostile_media``.
"""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import wave
import zlib
from typing import Any

from PIL import Image

ESC = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b31m\u202e\u200b"
"""Escape sequences, C1, a bidi override and an invisible character, in one string."""

#: MEDIA: references no client may fetch, each with the reason the user must be told.
REFUSED_URLS: tuple[str, ...] = (
    "https://user:pw@example.com/a.png",
    "https://[fe80::1%25eth0]/a.png",
    "https://2130706433/a.png",
    "https://0177.0.0.1/a.png",
    "https://0x7f.0.0.1/a.png",
    "https://0x7f000001/a.png",
    "https://127.1/a.png",
    "https://[::ffff:10.0.0.1]/a.png",
    "https://[::ffff:7f00:1]/a.png",
    "https://localhost./a.png",
    "https://127.0.0.1./a.png",
    "HTTP://example.com/a.png",
    "hTTpS://[::1]/x.png",
    "https://169.254.169.254/latest/meta-data/a.png",
    "https://metadata.google.internal/a.png",
    "https://intranet/a.png",
    "https://example.com@127.0.0.1/a.png",
    "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/a.png",  # full-width digits
    "file:///etc/passwd",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    "javascript:alert(1)",
)


def _seq() -> Any:
    n = 0
    while True:
        n += 1
        yield n


class Raw(str):
    """JSON text put into a frame as it is (nesting deeper than `json.dumps` goes)."""


def _dumps(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    return json.dumps(value)


def frame(doc: dict[str, Any]) -> str:
    return f"event: {doc['type']}\ndata: {_dumps(doc)}\n\n"


def stream(chunks: list[str], envelopes: list[dict[str, Any]] = ()) -> str:  # type: ignore[assignment]
    """A run whose node streams ``chunks`` as assistant text, then completes with each of
    ``envelopes`` as its own node, then ``run.completed``."""
    seq = _seq()
    out = [frame({"type": "run.started", "runId": "r", "sequence": next(seq), "payload": {}})]
    for chunk in chunks:
        out.append(
            frame(
                {
                    "type": "output.chunk",
                    "runId": "r",
                    "sequence": next(seq),
                    "nodeId": "n0",
                    "payload": {"nodeId": "n0", "chunk": chunk},
                }
            )
        )
    if chunks:
        out.append(
            frame(
                {
                    "type": "node.completed",
                    "runId": "r",
                    "sequence": next(seq),
                    "nodeId": "n0",
                    "payload": {"nodeId": "n0", "outputs": {"completion": "".join(chunks)}},
                }
            )
        )
    for i, env in enumerate(envelopes, 1):
        node = f"n{i}"
        out.append(
            frame(
                {
                    "type": "node.completed",
                    "runId": "r",
                    "sequence": next(seq),
                    "nodeId": node,
                    "payload": {"nodeId": node, "outputs": {"envelope": env}},
                }
            )
        )
    out.append(frame({"type": "run.completed", "runId": "r", "sequence": next(seq), "payload": {}}))
    return "".join(out)


def media_envelope(family: str, data: bytes, mime: str, name: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "mimeType": mime,
        "base64": base64.b64encode(data).decode(),
        "bytes": len(data),
    }
    if name is not None:
        payload["name"] = name
    return {
        "type": f"media.{family}",
        "payload": payload,
        "meta": {"rendering": {"display": family, "mimeType": mime, "title": f"{family} {ESC}"}},
    }


def card_envelope(payload: Any) -> dict[str, Any]:
    return {"type": "vendor.x.card", "payload": payload, "meta": {"rendering": {"display": "card"}}}


# ------------------------------------------------------------------------ directive texts


def directive_texts() -> dict[str, list[str]]:
    """Reply texts (as chunks) with hostile directives, by name."""
    refused = "".join(f"MEDIA: {url}\n" for url in REFUSED_URLS)
    return {
        "escapes-in-media-paths": [
            f"look\nMEDIA: https://example.com/{ESC}.png\nMEDIA: /tmp/{ESC}x.png\n"
            f'MEDIA: "https://example.com/a b{ESC}.png"\nMEDIA: https://example.com/ok\u202e.png\n'
        ],
        "escapes-in-embeds": [
            f'[embed url="https://example.com/{ESC}" title="{ESC}T\u2066itle" height="9999999" /]'
            "\n"
            f'[embed ref="cv_{ESC}" title="{ESC}" /]\n[embed url="javascript:alert(1)" /]\n'
            f'[embed url="https://127.0.0.1/x" title="loop" /]\n'
        ],
        "escapes-in-reply-ids": [
            f"[[reply_to:{ESC}id\u202e]] hi [[reply_to_current]]\n",
            "[[reply_to:\x1b[2J\x9b31m\u202eid\x07\u200b]] there\n",
        ],
        "credentials-in-urls": [
            "MEDIA: https://user:hunter2@example.com/a.png\n"
            '[embed url="https://bob:hunter2@example.com/canvas" title="c" /]\n'
        ],
        "enormous-directive-line": ["MEDIA: https://example.com/" + "a" * 200_000 + ".png\n"],
        "enormous-tag": ["[[reply_to:" + "x" * 100_000 + "]]\n", "[embed " + "a" * 100_000],
        "thousands-of-media-lines": [
            "".join(f"MEDIA: https://example.com/{i}.png\n" for i in range(5000))
        ],
        "nested-unterminated-embeds": [
            '[embed url="https://example.com/a" [embed url="https://example.com/b" /] /]\n',
            '[embed url="https://example.com/c" title="never',
            " closed\n[embed ",
            '[[embed url="x"]]\n[embed url=\'https://example.com/d\' title="\x1b[31m" ]h[/embed]',
            '\n[view src="https://example.com/v" /]\n[[audio_as_voice]][[',
        ],
        "refused-urls": [refused],
        "homographs": [
            "MEDIA: https://ex\u0430mple.com/logo.png\nMEDIA: https://xn--exmple-4nf.com/a.png\n"
        ],
        "split-everywhere": list(
            'MEDIA: https://example.com/a.png\n[[audio_as_voice]] [embed url="https://e.com/x" /]'
        ),
    }


# ------------------------------------------------------------------------------- images


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` and whose data is one tiny row."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def gif_frames(count: int) -> bytes:
    """A 1x1 GIF of ``count`` frames, alternately black and white, written by hand (16 bytes a
    frame, no extension blocks: Pillow's writer spends 37, which puts 10,000 frames over the
    inline cap)."""
    head = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    # LZW, minimum code size 2, 3-bit codes: clear (4), the pixel, end (5), LSB first.
    data = {pixel: struct.pack("<H", 4 | pixel << 3 | 5 << 6) for pixel in (0, 1)}
    frame = [
        b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02" + data[i % 2] + b"\0"
        for i in range(2)
    ]
    return head + b"".join(frame[i % 2] for i in range(count)) + b"\x3b"


def hostile_images() -> dict[str, tuple[bytes, str]]:
    whole = _png(Image.new("RGB", (40, 30), (200, 10, 10)))
    webp = io.BytesIO()
    webp_frames = [Image.new("RGBA", (8, 8), (i * 60, 0, 0, 128)) for i in range(3)]
    webp_frames[0].save(webp, "WEBP", save_all=True, append_images=webp_frames[1:], duration=50)
    cmyk = io.BytesIO()
    Image.new("CMYK", (16, 16), (0, 255, 255, 0)).save(cmyk, "JPEG")
    palette = Image.new("P", (8, 8), 1)
    palette.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    palette.info["transparency"] = 1
    sixteen = Image.new("I;16", (8, 8), 40000)
    return {
        "truncated-png": (whole[: len(whole) // 2], "image/png"),
        "gif-10000-frames": (gif_frames(10_000), "image/gif"),
        "png-huge-declared": (png_declaring(100_000, 100_000), "image/png"),
        "png-wide-declared": (png_declaring(2**31 - 1, 1), "image/png"),
        "animated-webp": (webp.getvalue(), "image/webp"),
        "cmyk-jpeg": (cmyk.getvalue(), "image/jpeg"),
        "png-16-bit": (_png(sixteen), "image/png"),
        "palette-transparency": (_png(palette), "image/png"),
        "not-an-image": (b"\x1b]52;c;AAAA\x07 hello", "image/png"),
        "empty": (b"", "image/png"),
    }


# -------------------------------------------------------------------------------- audio


def _wav(frames: int, rate: int, channels: int, width: int = 2) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(b"\x10\x20" * (frames * channels * width // 2))
    return out.getvalue()


def hostile_audio() -> dict[str, tuple[bytes, str]]:
    good = _wav(8000, 8000, 1)
    return {
        "truncated-wav": (good[: len(good) // 3], "audio/wav"),
        "header-only-wav": (good[:30], "audio/wav"),
        "zero-frames": (_wav(0, 8000, 1), "audio/wav"),
        "one-frame": (_wav(1, 8000, 1), "audio/wav"),
        "64-channels": (_wav(400, 8000, 64), "audio/wav"),
        "rate-1hz": (_wav(5, 1, 1), "audio/wav"),
        "rate-10mhz": (_wav(20_000, 10_000_000, 1), "audio/wav"),
        "8-bit": (_wav(100, 8000, 1, width=1), "audio/wav"),
        "not-audio": (b"RIFF\xff\xff\xff\xffWAVEjunk\x1b[2J", "audio/wav"),
    }


# -------------------------------------------------------------------------------- files


def hostile_files() -> dict[str, tuple[bytes, str, str]]:
    """(bytes, media type, name) by case."""
    utf16 = codecs_utf16("héllo\nwörld\n" * 50)
    return {
        "huge-single-line": (b"x" * 200_000, "text/plain", "one.txt"),
        "cr-only": (b"line\r" * 5000, "text/plain", "cr.txt"),
        "utf16-bom": (utf16, "text/plain", "u16.txt"),
        "escapes": (
            f"a{ESC}b\n\x1bP1$r\x1b\\\n\x1b_Gf=100;AAAA\x1b\\\n".encode(),
            "text/plain",
            "e.txt",
        ),
        "csv-10000-columns": (
            (",".join(f"c{i}" for i in range(10_000)) + "\n").encode() * 3,
            "text/csv",
            "wide.csv",
        ),
        "csv-unclosed-quote": (
            b'a,b\n"never closed,' + b"x" * 100_000 + b"\n1,2\n",
            "text/csv",
            "q.csv",
        ),
        "json-deep": (b"[" * 100_000 + b"]" * 100_000, "application/json", "deep.json"),
        "json-escapes": (json.dumps({"k": ESC}).encode(), "application/json", "e.json"),
        "markdown-escapes": (f"# {ESC}\n\n[x]({ESC})\n".encode(), "text/markdown", "e.md"),
        "name-escapes": (b"hi", "text/plain", f"{ESC}.sh"),
    }


def codecs_utf16(text: str) -> bytes:
    return text.encode("utf-16")  # with its BOM


# -------------------------------------------------------------------------------- cards


def hostile_cards() -> dict[str, Any]:
    return {
        "deep-nesting": {"root": Raw('{"k":' * 900 + '"bottom"' + "}" * 900)},
        "too-deep-to-decode": {"root": Raw('{"k":' * 5000 + '"bottom"' + "}" * 5000)},
        "deep-lists": {"root": Raw("[" * 100_000 + "]" * 100_000)},
        "100k-keys": {f"k{i}{ESC if i % 1000 == 0 else ''}": i for i in range(100_000)},
        "heterogeneous-array": {
            "rows": [
                {"a": 1},
                {"b": [1, 2, {"c": ESC}]},
                "scalar",
                None,
                [1, 2],
                {f"col{i}": i for i in range(500)},
                {ESC: float("inf")},
            ]
            * 50
        },
        "table-of-wide-objects": {"rows": [{f"c{j}": "v" * 1000 for j in range(100)}] * 50},
    }


# ----------------------------------------------------------------------------- printing

#: The escape sequences ``render`` itself writes: SGR styles, kitty graphics commands (APC
#: ``G``, base64 and key=value only) and sixel images (DCS ``q`` with sixel data only). A host
#: string cannot make these: host text reaches the output cleaned, its ESC shown as ``␛``.
_OWN = re.compile(
    r"\x1b\[[0-9;:]*m"
    r"|\x1b_G[A-Za-z0-9=,]*(?:;[A-Za-z0-9+/=]*)?\x1b\\"
    r'|\x1bP[0-9;]*q[0-9;#!"$\-?-~]*\x1b\\'
)
_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
PROFILES = [(i, c) for i in ("kitty", "sixel", "halfblock", "none") for c in ("16", "none")]
"""Every ``--images`` x ``--colors`` pair the sweeps print under."""


def terminal_leak(out: str) -> str | None:
    """What in ``out`` a terminal would execute or reorder beyond the printer's own sequences."""
    plain = _OWN.sub("", out)
    found = _FORBIDDEN.search(plain)
    if found is None:
        return None
    return f"{found.group()!r} in {plain[max(found.start() - 40, 0) : found.end() + 40]!r}"


def visible(out: str) -> str:
    """``out`` as a person reads it: the printer's own sequences gone, lines unwrapped of
    their box borders (a message a box wraps reads as one)."""
    text = _OWN.sub("", out)
    lines = [line.strip().strip("│").strip() for line in text.splitlines()]
    return " ".join(line for line in lines if line)


def forget_rendered_colours() -> None:
    """Forget the SGR codes Rich keeps on every `Style` it has written: Rich works them out once
    per style, for the colour system of the first console that printed it (one console per
    process, as a command runs). These sweeps print the same styles in 16 colours and in true
    colour in one process; without this a later test would read 16-colour codes from a
    true-colour console. Run once, when a sweep module is done."""
    import gc

    from rich.style import Style

    for thing in gc.get_objects():
        if isinstance(thing, Style):
            thing._ansi = None
