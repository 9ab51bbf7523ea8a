"""The writes of one message that did not apply, by the entries they were to change. A model writes
a message's commands in one go: a second edit of a file is written for the file as the first one
would have left it. So when a write fails (refused, invalid, declined by the person, or in
conflict), a later write of the same message to one of its entries is not run either: it is
refused with ERR_EARLIER_WRITE_FAILED naming the earlier command, and nothing is half-changed
from the model's view. Reads are never held back: they show the file as it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct, field

from ...protocol.errors import ErrorCode, OperatorError
from ...protocol.results import CommandResult

if TYPE_CHECKING:
    from ...protocol.blocks import RawBlock
    from ...protocol.commands.base import Command
    from ..boundary.workspace import Workspace


class _Failure(Struct, frozen=True):
    command_id: str
    action: str
    path: str  # as the model wrote it
    line: int | None
    why: str  # "failed (ERR_...)", or "was declined by the person"


class FailedWrites(Struct):
    workspace: Workspace
    _by_entry: dict[str, _Failure] = field(default_factory=dict)

    def refusal(self, command: Command) -> OperatorError | None:
        """ERR_EARLIER_WRITE_FAILED when the write `command` changes or copies an entry an earlier
        write of this message failed to change; None when it may run."""
        if not self._by_entry:
            return None
        for raw in _paths(command):
            earlier = self._by_entry.get(self._key(raw))
            if earlier is not None:
                at = f" (line {earlier.line})" if earlier.line is not None else ""
                return OperatorError(
                    ErrorCode.ERR_EARLIER_WRITE_FAILED,
                    f"{command.action} on {raw} was not run: the earlier {earlier.action} of "
                    f"{earlier.path} in this message, id {earlier.command_id}{at}, {earlier.why}, "
                    "and this write was made for the file as that one would have left it; nothing "
                    f"was changed; read {raw} again and send the changes anew, with new ids",
                )
        return None

    def note(self, command: Command, result: CommandResult) -> None:
        """Remember the entries a write that did not apply was to change (the first failure on an
        entry stays)."""
        if result.ok:
            return
        for raw in _written(command.action, _paths(command)):
            self._remember(raw, result, command.action)

    def note_block(self, block: RawBlock, result: CommandResult) -> None:
        """An invalid block that reads as a write (its action is one): its paths as written."""
        fields = dict(_key_values(block))
        action = fields.get("action", "")
        from ...protocol.commands.catalog import model_for

        model = model_for(action)
        if model is None or not model.WRITES:
            return
        paths = [fields[name] for name in ("path", "path_to") if fields.get(name)]
        for raw in _written(action, paths):
            self._remember(raw, result, action)

    def _remember(self, raw: str, result: CommandResult, action: str) -> None:
        if result.status == "rejected":
            why = "was declined by the person"
        else:
            why = f"failed ({result.error_code or 'not applied'})"
        failure = _Failure(result.id, action, raw, result.line, why)
        self._by_entry.setdefault(self._key(raw), failure)

    def _key(self, raw: str) -> str:
        """Where the entry `raw` names lies: two spellings of one entry have one key."""
        try:
            return "/".join(self.workspace.entry_parts(self.workspace.target(raw)))
        except (OperatorError, OSError):
            return raw.strip().strip("/")


def _written(action: str, paths: list[str]) -> list[str]:
    """The paths of a write that it changes: a copy only makes path_to (its path is only read,
    and a later write that reads it is held back all the same, by `refusal`)."""
    return paths[1:] if action == "fs.copy" else paths


def _paths(command: Command) -> list[str]:
    found = [command.path_or_none, command.__dict__.get("path_to")]
    return [path for path in found if isinstance(path, str) and path]


def _key_values(block: RawBlock) -> list[tuple[str, str]]:
    pairs = []
    for _, text in block.lines:
        key, colon, value = text.strip().partition(":")
        if colon:
            pairs.append((key.strip(), value.strip()))
    return pairs
