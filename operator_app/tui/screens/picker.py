"""The workspace picker: a folder tree and a path input. It answers the chosen folder, or None."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Footer, Input, Static


class FoldersOnly(DirectoryTree):
    def filter_paths(self, paths):  # type: ignore[no-untyped-def]
        return [path for path in paths if path.is_dir() and not path.name.startswith(".")]


class PickerScreen(ModalScreen["Path | None"]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, start: Path) -> None:
        super().__init__()
        self.start = start

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static("Choose the workspace folder: the model can work only inside it. Type a path and press "
                         "Enter, or pick a folder in the tree and press Enter.", id="picker-note")
            yield Input(value=str(self.start), placeholder="/path/to/project", id="picker-input")
            yield FoldersOnly(self.start, id="picker-tree")
            yield Static("", id="picker-error")
        yield Footer()

    def on_directory_tree_directory_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        self.query_one("#picker-input", Input).value = str(event.path)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = Path(event.value).expanduser()
        if not path.is_dir():
            self.query_one("#picker-error", Static).update(f"[red]{path} is not a folder[/red]")
            return
        self.dismiss(path.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)
