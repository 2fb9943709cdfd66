"""The row model of the lazy JSON view (`openwop_tui.ui.widgets.json_tree`): a decoded document as a
flat list of the rows that are visible, built only as far as it is unfolded.

A document of 10 MB can hold a million values; laying all of them out before the first frame is
what made the inspector take tens of seconds. Here the decoded value is walked once, lazily:

* a `Node` stands for one value and is made only when its parent is unfolded (`JsonRows.built`
  counts them, so tests can bound the work without timing it);
* unfolding a container makes at most `PAGE` of its children; a "more" row makes the next page;
* opening a document unfolds the top levels breadth first, within `OPEN_BUDGET` nodes in all;
* "unfold all" under a node stops after a budget of nodes (a cyclic hand-built value included).

`JsonRows.rows` is the visible rows in order, each a `Row` (a node and which part of it: its
head, the "more" line of a container cut short, or a container's closing bracket). Folding or
unfolding replaces only the rows of that node's span.

What a row reads is `openwop_tui.ui.widgets.json_pieces` (where host text is cleaned).
`JsonRows.path` names a node as a JSONPath (``$.payload.outputs[0]["odd key"]``) and
`JsonRows.copy_json` gives its whole value as JSON, nothing cut, with the characters a terminal or
an editor would act on (C1 controls, bidi controls, lone surrogates) written as ``\\u`` escapes:
the same JSON value, safe to paste.

Pure: no Textual, no Rich.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from itertools import islice
from typing import Any, NamedTuple

from openwop_tui.protocol.hostdata import host_value

__all__ = [
    "CLOSE",
    "HEAD",
    "MORE",
    "OPEN_BUDGET",
    "OPEN_DEPTH",
    "PAGE",
    "UNFOLD_ALL_BUDGET",
    "JsonRows",
    "Node",
    "Row",
    "is_object",
]

#: Children made per unfold (and per "more" row) of one container.
PAGE = 200
#: Nodes made, in all, when a document is opened (the top levels, breadth first).
OPEN_BUDGET = 500
#: Levels unfolded when a document is opened (the root is level 0), budget allowing.
OPEN_DEPTH = 5
#: Nodes "unfold all" makes at most in one go.
UNFOLD_ALL_BUDGET = 5_000
#: Values kept when a value cannot be dumped as it is (only a hand-built one: a cycle, say) and
#: its bounded copy is dumped instead.
COPY_FALLBACK_ITEMS = 20_000

HEAD, MORE, CLOSE = 0, 1, 2
"""The parts of a node a row can show."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""Keys written ``.name`` in a path; any other key is written ``["…"]``."""
_UNSAFE = re.compile(
    r"[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What `json.dumps` leaves raw and a terminal or an editor acts on, or UTF-8 cannot encode."""


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def safe_json(text: str) -> str:
    """JSON text with every `_UNSAFE` character written as a ``\\u`` escape. These characters
    only ever occur inside JSON strings, where the escape means the same character."""
    return _UNSAFE.sub(_escape, text)


def is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def is_array(value: Any) -> bool:
    return isinstance(value, list | tuple)


class Node:
    """One value of the document, made when its parent is unfolded."""

    __slots__ = ("children", "depth", "key", "open", "parent", "size", "value")

    def __init__(self, value: Any, parent: Node | None, key: Any, depth: int) -> None:
        """One value of the document, not yet unfolded.

        Args:
            value: The JSON value.
            parent: The node holding it; None for the root.
            key: The key in its parent object, or the index in its parent array; None for the root.
            depth: Its level: the root is 0.
        """
        self.value = value
        self.parent = parent
        self.key = key
        """The key in its parent object, or the index in its parent array (``None``: root)."""
        self.depth = depth
        self.size = len(value) if is_object(value) or is_array(value) else 0
        """How many children the value has (0 for a scalar or an empty container)."""
        self.children: list[Node] | None = None
        """The children made so far: the first ``len(children)`` of the value's."""
        self.open = False

    @property
    def container(self) -> bool:
        """Whether this is an object or an array (empty or not)."""
        return is_object(self.value) or is_array(self.value)

    @property
    def made(self) -> int:
        """How many children have been made."""
        return 0 if self.children is None else len(self.children)


class Row(NamedTuple):
    """One visible row: a node and the part of it shown (`HEAD`, `MORE` or `CLOSE`)."""

    node: Node
    part: int


class JsonRows:
    """The visible rows of one decoded document (see the module docstring)."""

    def __init__(
        self,
        value: Any,
        *,
        page: int = PAGE,
        open_budget: int = OPEN_BUDGET,
        open_depth: int = OPEN_DEPTH,
    ) -> None:
        """Make the rows of ``value``, its top levels unfolded.

        Args:
            value: The JSON document.
            page: Children made per unfold (and per "more" row) of one container.
            open_budget: Nodes made, in all, when the document is opened (the top levels, breadth
                first).
            open_depth: Levels unfolded when the document is opened (the root is level 0), budget
                allowing.
        """
        self.page = page
        self.built = 0
        """Nodes made so far: the work this document has cost."""
        self.root = self._node(value, None, None, 0)
        self._open_top(open_budget, open_depth)
        self.rows: list[Row] = self._rows_of(self.root)

    def __len__(self) -> int:
        return len(self.rows)

    # ------------------------------------------------------------------ building

    def _node(self, value: Any, parent: Node | None, key: Any, depth: int) -> Node:
        """A new node, counted in `built`.

        Args:
            value: The JSON value.
            parent: The node holding it; None for the root.
            key: The key or index in its parent; None for the root.
            depth: Its level: the root is 0.
        """
        self.built += 1
        return Node(value, parent, key, depth)

    def _make(self, node: Node, count: int) -> int:
        """Make up to ``count`` more children of ``node``; how many were made."""
        start, value = node.made, node.value
        pairs: Iterator[tuple[Any, Any]]
        if is_object(value):
            pairs = islice(value.items(), start, start + count)
        else:
            pairs = enumerate(value[start : start + count], start)
        made = [self._node(child, node, key, node.depth + 1) for key, child in pairs]
        if node.children is None:
            node.children = made
        else:
            node.children.extend(made)  # in place: paging through a huge array stays linear
        return len(made)

    def _unfold(self, node: Node, budget: int) -> int:
        """Open ``node`` (making its first page if it has none yet, ``budget`` allowing): the
        nodes made."""
        if node.size == 0:
            return 0
        made = 0
        if node.children is None:
            made = self._make(node, min(self.page, budget))
        node.open = True
        return made

    def _open_top(self, budget: int, depth: int) -> None:
        """Unfold the root, then the levels below it breadth first, while a whole page fits."""
        left = budget - self.built
        queue = [self.root]
        for node in queue:  # grows as it is read: breadth first
            page = min(node.size, self.page)
            if node is not self.root and (node.depth >= depth or page > left):
                continue
            left -= self._unfold(node, max(left, 1) if node is self.root else left)
            queue.extend(c for c in node.children or () if c.size)

    def _rows_of(self, top: Node) -> list[Row]:
        """The visible rows of ``top``'s subtree, in order (an explicit stack: any depth)."""
        rows = [Row(top, HEAD)]
        if not top.open:
            return rows
        stack = [(top, iter(top.children or ()))]
        while stack:
            parent, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if parent.made < parent.size:
                    rows.append(Row(parent, MORE))
                rows.append(Row(parent, CLOSE))
                continue
            rows.append(Row(child, HEAD))
            if child.open:
                stack.append((child, iter(child.children or ())))
        return rows

    # ------------------------------------------------------------------ finding rows

    def head_of(self, index: int) -> int:
        """The index of the head row of the node shown at ``index``."""
        node = self.rows[index].node
        while self.rows[index] != (node, HEAD):
            index -= 1
        return index

    def end_of(self, head: int) -> int:
        """One past the last row of the span of the node whose head is at ``head``."""
        node = self.rows[head].node
        if not node.open:
            return head + 1
        end = head + 1
        while self.rows[end] != (node, CLOSE):
            end += 1
        return end + 1

    def parent_of(self, index: int) -> int:
        """The index of the head row of the parent of the node at ``index`` (itself for the
        root); a "more" or closing row's parent is its own node."""
        row = self.rows[index]
        if row.part != HEAD:
            return self.head_of(index)
        if row.node.parent is None:
            return index
        target = row.node.parent
        while self.rows[index] != (target, HEAD):
            index -= 1
        return index

    # ------------------------------------------------------------------ folding

    def unfold(self, index: int) -> int:
        """Unfold the container at ``index`` (or show the next page at a "more" row): the index
        the cursor goes to. Nothing happens on a scalar or a closing row."""
        row = self.rows[index]
        node = row.node
        if row.part == MORE:
            before = node.made
            self._make(node, self.page)
            added = [Row(child, HEAD) for child in (node.children or ())[before:]]
            if node.made < node.size:
                added.append(Row(node, MORE))
            self.rows[index : index + 1] = added
            return index
        if row.part == HEAD and node.size and not node.open:
            self._unfold(node, self.page)
            self.rows[index : index + 1] = self._rows_of(node)
        return index

    def fold(self, index: int) -> int:
        """Fold the open container at ``index`` (from its head or its closing row); anywhere
        else go to the parent. The index the cursor goes to."""
        row = self.rows[index]
        if row.part == HEAD and not row.node.open:
            return self.parent_of(index)
        if row.part == MORE:
            return self.parent_of(index)
        head = self.head_of(index)
        end = self.end_of(head)
        row.node.open = False
        self.rows[head:end] = [Row(row.node, HEAD)]
        return head

    def unfold_all(self, index: int, budget: int = UNFOLD_ALL_BUDGET) -> tuple[int, bool]:
        """Unfold everything under the node at ``index``, making at most ``budget`` nodes:
        (the head index, whether everything under it is now unfolded)."""
        head = self.head_of(index)
        top = self.rows[head].node
        end = self.end_of(head)
        left, complete = budget, True
        stack = [top]
        while stack:
            node = stack.pop()
            if node.size == 0:
                continue
            if node.children is None and left <= 0:
                complete = False
                break
            left -= self._unfold(node, left)
            if node.made < node.size:
                complete = False
            stack.extend(reversed(node.children or ()))
        self.rows[head:end] = self._rows_of(top)
        return head, complete

    def fold_all(self, index: int) -> int:
        """Fold the node at ``index`` and everything made under it: the head index."""
        head = self.head_of(index)
        top = self.rows[head].node
        end = self.end_of(head)
        stack = [top]
        while stack:
            node = stack.pop()
            node.open = False
            stack.extend(c for c in node.children or () if c.open)
        self.rows[head:end] = [Row(top, HEAD)]
        return head

    # ------------------------------------------------------------------ copying

    def path(self, node: Node) -> str:
        """``node`` as a JSONPath: ``$``, ``.name`` for plain keys, ``["…"]`` for any other
        key (a JSON string, unsafe characters escaped), ``[3]`` for an index."""
        parts: list[str] = []
        while node.parent is not None:
            if is_object(node.parent.value):
                key = node.key if isinstance(node.key, str) else str(node.key)
                if _NAME.fullmatch(key):
                    parts.append(f".{key}")
                else:
                    parts.append(f"[{safe_json(json.dumps(key, ensure_ascii=False))}]")
            else:
                parts.append(f"[{node.key}]")
            node = node.parent
        return "$" + "".join(reversed(parts))

    def copy_json(self, node: Node) -> str:
        """The whole value of ``node`` as indented JSON, nothing cut, safe to paste."""
        try:
            text = json.dumps(node.value, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            # A hand-built value (a cycle, a key JSON cannot have, nesting past the
            # interpreter's stack): its bounded copy, which always dumps.
            bounded = host_value(node.value, max_items=COPY_FALLBACK_ITEMS)
            text = json.dumps(bounded, indent=2, ensure_ascii=False)
        return safe_json(text)
