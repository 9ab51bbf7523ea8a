"""The workspace picker: a folder tree and a path input. It answers the chosen folder, or None
when cancelled. Enter in the tree puts the folder in the input; Enter in the input (or ctrl+o
anywhere) opens it. The tree starts one level above the current workspace, so its neighbours are
in reach, and typing a folder's path in the input shows that folder in the tree."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Footer, Input, Static


class FoldersOnly(DirectoryTree):
    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if not path.name.startswith(".") and path.is_dir()]


class PickerScreen(ModalScreen["Path | None"]):
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+o", "open", "Open this folder")]

    def __init__(self, start: Path, first_use: bool = False) -> None:
        super().__init__()
        self.start = start
        self.first_use = first_use
        self._from_tree: str | None = str(start)  # the input starts with it: no need to move the tree

    def compose(self) -> ComposeResult:
        intro = ("Operator works in one folder, the workspace: the model can read and change files only inside "
                 "it. " if self.first_use else "A new workspace has its own session. ")
        with Vertical(id="picker-box") as box:
            box.border_title = "choose the workspace"
            yield Static(intro + "Type a path and press Enter, or pick a folder in the tree (Enter) and press "
                         "ctrl+o.", id="picker-note")
            yield Input(value=str(self.start), placeholder="/path/to/project", id="picker-input")
            # From the workspace's parent, not the workspace: a tree only goes down.
            yield FoldersOnly(self.start if self.first_use else self.start.parent, id="picker-tree")
            yield Static("", id="picker-error")
        yield Footer()

    def on_directory_tree_directory_selected(self, event: DirectoryTree.DirectorySelected) -> None:
        self._from_tree = str(event.path)  # not typed: the tree stays where the person is in it
        self.query_one("#picker-input", Input).value = str(event.path)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.value == self._from_tree:
            return
        typed = Path(event.value.strip()).expanduser()
        tree = self.query_one(FoldersOnly)
        if event.value.strip() and typed.is_absolute() and typed.is_dir() and typed != tree.path:
            tree.path = typed

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_open()

    def action_open(self) -> None:
        path = Path(self.query_one("#picker-input", Input).value.strip()).expanduser()
        if not path.is_dir():
            self.query_one("#picker-error", Static).update(f"[red]{path} is not a folder[/red]")
            return
        self.dismiss(path.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)
