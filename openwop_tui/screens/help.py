"""The help panel: every key binding and what to type to the demo host."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

HELP = """\
# openwop-tui

Type a message and press **Enter**: each message starts a run on the host, and its events
stream into the transcript as they arrive.

| key | does |
| --- | --- |
| `Enter` | send the message |
| `Esc` | cancel the running run (asks the host; the stream ends with *run cancelled*) |
| `F1` | this help (`Esc` or `F1` closes it) |
| `F2` | events panel: every run event as it arrives, raw |
| `F3` | show or hide lifecycle lines (node started, usage…) |
| `Ctrl+L` | clear the screen (the chat history is kept) |
| `↑` / `↓` | in the input: earlier messages you sent |
| `Shift+Tab` / `Tab` | from the input: to the newest / oldest envelope shown |
| `↑` / `↓` | on an envelope: the previous / next one (`Tab` from the newest returns to the input) |
| `s` `o` `p` `x` `c` | on an envelope: save, open, play, stop, copy |
| `i` | on an envelope: inspect it beside the run event it came in |
| `PgUp` / `PgDn` | scroll; new output keeps the view at the bottom until you scroll up |
| `Ctrl+Q` | quit |

## The demo host

With no `--host`, openwop-tui starts its own OpenWOP host on loopback. Ask it for
**image**, **audio**, **code**, **card**, **file** or **json**, or say **show me everything**
for the whole tour, including media that cannot be shown and how the client says so.
**fail** shows a failed run; **slow** streams a long reply you can cancel with `Esc`.

## When something cannot be shown

An image, sound or file that cannot be drawn or played here is described instead: what it
is (media type, size, alt text, name), why it is not shown, and where to get it (the URL, or
*save* to write the bytes to a file).
"""


class HelpScreen(ModalScreen[None]):
    """Key bindings and hints."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90; max-width: 95%; height: 80%;
        background: $panel; border: round $primary; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("f1", "dismiss", "Close", show=False),
        Binding("q", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown(HELP)
