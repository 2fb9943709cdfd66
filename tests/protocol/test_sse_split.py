"""`protocol/sse.py` is the WHATWG decoder only; event decoding lives in `protocol/frames.py`.

The decoder must not pull in the trust boundary (events, hostdata, frames): a frame is raw host
text, and cleaning happens once, where frames become events. Nothing of the event layer is
reachable through `sse` (its old names moved to `frames`, and every caller imports them there).
"""

from __future__ import annotations

import subprocess
import sys

from openwop_tui.protocol import frames, sse


def test_the_decoder_imports_nothing_of_the_boundary() -> None:
    code = (
        "import sys, openwop_tui.protocol.sse as s\n"
        "s.parse_sse_text('data: x\\n\\n')\n"
        "loaded = [m for m in ('openwop_tui.protocol.events', 'openwop_tui.protocol.hostdata',"
        " 'openwop_tui.protocol.frames', 'openwop_tui.text.sanitize') if m in sys.modules]\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_event_layer_is_not_reachable_through_the_decoder() -> None:
    for name in ("FrameResult", "decode_frame", "events_from_frame", "safe_raw", "snapshot_event"):
        assert hasattr(frames, name) and not hasattr(sse, name), name


def test_a_cut_frame_problem_is_cleaned_where_it_is_decoded() -> None:
    decoder = sse.SSEDecoder(max_line_chars=20)
    [frame] = decoder.feed("id: 1\x1b[2J\nevent: e\u202ex\ndata: " + "y" * 40 + "\n\n")
    assert frame.problem is not None and "\x1b" in frame.problem  # the decoder keeps raw text
    [problem] = frames.decode_frame(frame).problems
    assert problem.startswith('frame id 1␛[2J (event "e<U+202E>x")')
