"""The workspace picker: a path input, the workspaces opened last (most recent first, each with
its session's message count) and a folder tree. It answers the chosen folder, or None when
cancelled. Enter in the input (or ctrl+o anywhere) opens the folder typed; Enter on a recent
workspace opens it; Enter in the tree puts the folder in the input. The input keeps its cursor
where the person puts it (typing edits the path, never replaces it unasked). The tree starts one
level above the current workspace, so its neighbours are in reach, and typing a folder's path in
the input shows that folder in the tree."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ...engine import message_count
from ..display import plural, pretty_path


class FoldersOnly(DirectoryTree):
    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if not path.name.startswith(".") and path.is_dir()]


def recent_prompt(path: Path, count: int | None, *, current: bool, missing: bool) -> Text:
    if missing:
        return Text.assemble((pretty_path(path), "dim strike"), ("   no longer there", "dim"))
    counted = "..." if count is None else plural(count, "message")
    return Text.assemble(
        (pretty_path(path), "bold" if current else ""),
        (f"   {counted}", "dim"),
        ("   open now" if current else "", "green"),
    )


class PickerScreen(ModalScreen["Path | None"]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+o", "open", "Open this folder"),
    ]

    def __init__(
        self,
        start: Path,
        first_use: bool = False,
        *,
        recent: Iterable[Path] = (),
        state_dir_of: Callable[[Path], Path] | None = None,
        current: Path | None = None,
    ) -> None:
        """`recent`: the workspaces opened last, most recent first; `state_dir_of` names the state
        folder whose session each one would open (its message count is shown)."""
        super().__init__()
        self.start = start
        self.first_use = first_use
        self.recent = list(recent)
        self.state_dir_of = state_dir_of
        self.current = current
        self._from_tree: str | None = str(
            start
        )  # the input starts with it: no need to move the tree

    def compose(self) -> ComposeResult:
        intro = (
            "Operator works in one folder, the workspace: the model can read and change files only "
            "inside it. "
            if self.first_use
            else "A new workspace has its own session. "
        )
        with Vertical(id="picker-box") as box:
            box.border_title = "choose the workspace"
            yield Static(
                intro
                + "Type a path and press Enter, pick a recent workspace, or pick a folder in the "
                "tree (Enter) and press ctrl+o.",
                id="picker-note",
            )
            yield Input(
                value=str(self.start),
                placeholder="/path/to/project",
                id="picker-input",
                select_on_focus=False,
            )
            if self.recent:
                recent = OptionList(
                    *(
                        Option(
                            recent_prompt(
                                path, None, current=path == self.current, missing=not path.is_dir()
                            ),
                            id=str(index),
                            disabled=not path.is_dir(),
                        )
                        for index, path in enumerate(self.recent)
                    ),
                    id="picker-recent",
                )
                recent.border_title = "recent workspaces"
                yield recent
            # From the workspace's parent, not the workspace: a tree only goes down.
            yield FoldersOnly(self.start if self.first_use else self.start.parent, id="picker-tree")
            yield Static("", id="picker-error")
        yield Footer()

    def on_mount(self) -> None:
        if self.recent and self.state_dir_of is not None:
            self.count_messages(self.recent, self.state_dir_of)

    @work(thread=True, exit_on_error=False, group="picker-counts")
    def count_messages(self, paths: list[Path], state_dir_of: Callable[[Path], Path]) -> None:
        for index, path in enumerate(paths):
            if path.is_dir():
                try:
                    count = message_count(state_dir_of(path))
                except OSError:
                    continue  # an unreadable session: the entry keeps its "..."
                self.app.call_from_thread(self._show_count, index, path, count)

    def _show_count(self, index: int, path: Path, count: int) -> None:
        recent = self.query_one("#picker-recent", OptionList)
        recent.replace_option_prompt(
            str(index), recent_prompt(path, count, current=path == self.current, missing=False)
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        path = self.recent[int(event.option.id or 0)]
        self.query_one("#picker-input", Input).value = str(path)
        self.action_open()

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
            self.query_one("#picker-error", Static).update(
                Text(f"{path} is not a folder", style="red")
            )
            return
        self.dismiss(path.resolve())

    def action_cancel(self) -> None:
        self.dismiss(None)
