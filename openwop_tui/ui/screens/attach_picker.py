"""Pick a file to attach: the working folder's tree, showing only what can be sent.

Textual's `DirectoryTree`, starting in the folder the app was started in, lists folders and
the files whose names say a type a host takes (`openwop_tui.core.attachments.ACCEPTED`);
typing in the line above it narrows the files to those whose names hold what is typed, and a
path typed there whole (``~/Pictures/chart.png``) is taken as it is. Enter on a file, or on the
line, attaches it; Esc closes without attaching. What is picked is checked by the attaching
controller like any other attachment: this only chooses.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Static

from openwop_tui.core.attachments import type_of_name

__all__ = ["AttachPicker", "AttachableTree"]


class AttachableTree(DirectoryTree):
    """A directory tree of folders and the files a host takes, narrowed by `query`."""

    def __init__(self, path: Path, *, id: str | None = None) -> None:
        super().__init__(path, id=id)
        self.query_text = ""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        query = self.query_text.casefold()
        shown = []
        for path in paths:
            if path.name.startswith("."):
                continue  # (hidden files and folders: typed whole on the line instead)
            try:
                folder = path.is_dir()
            except OSError:
                continue
            if folder or (type_of_name(path.name) is not None and query in path.name.casefold()):
                shown.append(path)
        return shown


class AttachPicker(ModalScreen[Path | None]):
    """Choose a file to attach (``None``: nothing chosen)."""

    DEFAULT_CSS = """
    AttachPicker { align: center middle; }
    AttachPicker > Vertical {
        width: 90%; max-width: 110; height: 80%;
        background: $panel; border: round $accent; padding: 0 1;
    }
    AttachPicker #where { height: 1; color: $text-muted; }
    AttachPicker Input { margin-bottom: 1; }
    AttachPicker AttachableTree { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("down", "to_tree", "Files", show=False),
    ]

    def __init__(self, start: Path | None = None) -> None:
        super().__init__()
        self.start = (start or Path.cwd()).resolve()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Attach a file from {self.start} · pictures, PDF, text, Markdown, JSON, CSV, "
                "Ogg, WAV · Enter attaches, Esc closes",
                id="where",
                markup=False,
            )
            yield Input(placeholder="type to narrow the files, or a path", id="query")
            yield AttachableTree(self.start, id="tree")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        tree = self.query_one(AttachableTree)
        tree.query_text = event.value.strip()
        tree.reload()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if not typed:
            return
        path = Path(typed).expanduser()
        if not path.is_absolute():
            path = self.start / path
        if path.is_file():
            self.dismiss(path)
            return
        # Not a file's path: the files it narrowed to are below; go there.
        self.action_to_tree()

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(event.path)

    def action_to_tree(self) -> None:
        self.query_one(AttachableTree).focus()
