"""A function that takes more than three parameters says what each one is, in an ``Args:`` block.

Textual's form (Google style): a line that is exactly ``Args:``, then one indented
``name: what it is`` line per parameter. Parameters counted are positional-only, positional and
keyword-only ones, without ``self``/``cls`` and without ``*args``/``**kwargs`` (issue 24, item 5).
"""

from __future__ import annotations

import ast
import re

from paths import TESTS

ROOT = TESTS.parent

#: The folders whose functions are checked, relative to the repository root.
CHECKED = ("openwop_tui", "renderers")

#: More parameters than this and the docstring needs an ``Args:`` block.
MOST_WITHOUT_ARGS = 3

_ARG_LINE = re.compile(r"^\s*\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:")


def counted_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The names of the parameters that count: positional-only, positional and keyword-only.

    Args:
        function: The function's definition.
    """
    arguments = function.args
    names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def args_block(docstring: str) -> set[str] | None:
    """The parameter names an ``Args:`` block describes, or None when there is no block.

    The block starts at a line that is exactly ``Args:`` (stripped) and runs to the first
    non-blank line indented no deeper than that line; within it, each line one level deeper than
    the first entry that reads ``name: ...`` (or ``name (type): ...``) names a parameter.

    Args:
        docstring: The docstring as ``ast.get_docstring`` returns it (dedented).
    """
    lines = docstring.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Args:"]
    if not starts:
        return None
    start = starts[0]
    header = len(lines[start]) - len(lines[start].lstrip())
    names: set[str] = set()
    entry_indent: int | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent <= header:
            break
        if entry_indent is None:
            entry_indent = indent
        if indent == entry_indent and (match := _ARG_LINE.match(line)):
            names.add(match.group(1))
    return names


def undocumented(source: str, path: str = "<string>") -> list[str]:
    """``path:line name`` for each function in the source whose docstring falls short.

    Args:
        source: Python source text.
        path: The name to report the source under.
    """
    functions = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    found = []
    for node in sorted(functions, key=lambda node: node.lineno):
        names = counted_parameters(node)
        if len(names) <= MOST_WITHOUT_ARGS:
            continue
        described = args_block(ast.get_docstring(node) or "")
        if described is None or not set(names) <= described:
            found.append(f"{path}:{node.lineno} {node.name}")
    return found


def test_functions_with_many_parameters_have_an_args_block() -> None:
    found = []
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found += undocumented(path.read_text(encoding="utf-8"), relative)
    assert not found, "no Args: block naming every parameter:\n" + "\n".join(found)


def test_the_check_reports_a_missing_args_block() -> None:
    source = '''
def draw(item, width, palette, *, colours):
    """Draw one item's lines."""


class Painter:
    async def paint(self, item, width, palette, colours):
        """Paint one item.

        Args:
            item: The item to paint.
            width: Columns to paint in.
            palette: The theme's colours.
        """
'''
    assert undocumented(source) == ["<string>:2 draw", "<string>:7 paint"]


def test_the_check_passes_a_complete_args_block() -> None:
    source = '''
def draw(item, width, palette, *, colours, **extra):
    """Draw one item's lines.

    Args:
        item: The item to draw.
        width: Columns to draw in,
            never fewer than one.
        palette: The theme's colours.
        colours: The colour system of the terminal.
    """


class Painter:
    def paint(self, item, width, palette):
        """Three parameters besides self need no block."""
'''
    assert undocumented(source) == []
