"""What one row of the lazy JSON view shows: (text, role) pairs for a `Row` at a width.

The row model (`openwop_tui.ui.widgets.json_rows`) says which rows are visible; this says what each
one reads, and is where host text is made safe to draw: every key and string goes through
`openwop_tui.text.sanitize.clean` (escape sequences, C1 and bidi controls, lone surrogates made
visible), after `json.dumps` has written C0 controls as ``\\u`` escapes. Only a slice of a string
is ever dumped, so a 10 MB string costs a row's worth of work; a string longer than its row is
cut with "…" (and its length, when it is long). Keys are cut at `KEY_CELLS`; nesting deeper than
`MAX_INDENT` levels says its depth instead of indenting off the screen. The widget
(`openwop_tui.ui.widgets.json_tree`) maps each role to a palette style.

Pure: no Textual; Rich only for cell widths.
"""

from __future__ import annotations

import json
from typing import Literal

from rich.cells import cell_len, set_cell_size

from openwop_tui.text.sanitize import clean
from openwop_tui.ui.widgets.json_rows import CLOSE, MORE, PAGE, JsonRows, Node, Row, is_object

__all__ = ["KEY_CELLS", "MAX_INDENT", "Role", "pieces", "plain"]

#: Deepest indentation drawn; deeper rows say their depth instead of indenting further.
MAX_INDENT = 24
#: Cells of a key shown at most (the whole key is in the path and the copied JSON).
KEY_CELLS = 60
#: Cells a cut string needs to also say its length.
MIN_STRING_CELLS = 12

Role = Literal["punct", "key", "index", "string", "number", "literal", "muted", "marker"]
"""What a piece of a row is, for its colour."""


def pieces(row: Row, width: int, page: int = PAGE) -> list[tuple[str, Role]]:
    """What ``row`` shows in ``width`` cells, as (text, role) pairs; host text cleaned."""
    node, part = row
    depth = node.depth + (part == MORE)
    out: list[tuple[str, Role]] = [("  " * min(depth, MAX_INDENT), "punct")]
    if depth > MAX_INDENT:
        out.append((f"⋯{depth} ", "muted"))
    if part == CLOSE:
        out.append(("  " + ("}" if is_object(node.value) else "]"), "punct"))
        return out
    if part == MORE:
        left = node.size - node.made
        noun = "keys" if is_object(node.value) else "items"
        step = min(page, left)
        out.append((f"  … {left:,} more {noun} (Enter shows {step:,} more)", "muted"))
        return out
    marker = ("▾ " if node.open else "▸ ") if node.size else "  "
    out.append((marker, "marker"))
    _label(node, out)
    _value(node, out, width)
    return out


def _label(node: Node, out: list[tuple[str, Role]]) -> None:
    parent = node.parent
    if parent is None:
        return
    if not is_object(parent.value):
        out.append((f"{node.key}: ", "index"))
        return
    key = node.key if isinstance(node.key, str) else str(node.key)
    # The trees show documents `host_value` cleaned (an event's raw, an envelope): keys too.
    shown: str = json.dumps(key[: KEY_CELLS + 1], ensure_ascii=False)
    if len(key) > KEY_CELLS or cell_len(shown) > KEY_CELLS:
        shown = set_cell_size(shown, KEY_CELLS - 1) + "…"
    out.append((shown, "key"))
    out.append((": ", "punct"))


def _value(node: Node, out: list[tuple[str, Role]], width: int) -> None:
    value = node.value
    if node.container:
        brackets = "{}" if is_object(value) else "[]"
        if not node.size:
            out.append((brackets, "punct"))
        elif node.open:
            out.append((brackets[0], "punct"))
        else:
            out.append((f"{brackets[0]}…{brackets[1]}", "punct"))
            noun = ("key" if node.size == 1 else "keys") if brackets == "{}" else "items"
            if node.size == 1 and brackets == "[]":
                noun = "item"
            out.append((f" {node.size:,} {noun}", "muted"))
        return
    if isinstance(value, str):
        used = sum(cell_len(text) for text, _ in out)
        room = max(width - used, 2)
        shown = json.dumps(value[: room + 1], ensure_ascii=False)  # cleaned, like the keys
        if len(value) > room + 1 or cell_len(shown) > room:
            note = f" ({len(value):,} chars)"
            keep = room - cell_len(note) - 1
            # The length is worth its cells for a long string (inline base64, a reply), not
            # for one that just misses the row, nor where it would leave the string no room.
            if keep < MIN_STRING_CELLS // 2 or len(value) <= 2 * room:
                keep, note = room - 1, ""
            out.append((set_cell_size(shown, keep) + "…", "string"))
            if note:
                out.append((note, "muted"))
        else:
            out.append((shown, "string"))
    elif value is None or isinstance(value, bool):
        out.append((json.dumps(value), "literal"))
    elif isinstance(value, int | float):
        out.append((json.dumps(value), "number"))
    else:  # not JSON at all (a hand-built envelope): say what it is, cleaned and cut
        # A boundary: a value that is not JSON never went through `host_value`.
        out.append((clean(repr(value)[:200]), "muted"))


def plain(rows: JsonRows, index: int, width: int = 200) -> str:
    """The text of the row at ``index`` (for tests and searching)."""
    return "".join(text for text, _ in pieces(rows.rows[index], width, rows.page))
