"""What a checked path is: `Target`, the model's path once the workspace boundary accepted it
(boundary/workspace.py makes them), and `DirEntry`, one entry of a listed folder."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from msgspec import Struct


class Target(Struct, frozen=True):
    rel: str  # normalised path as the model wrote it: "." for the root, no "./", no trailing "/"
    abs: Path  # realpath of the existing part + the missing rest
    parts: tuple[str, ...]  # components of rel (empty for the root)


class DirEntry(Struct, frozen=True):
    name: str
    kind: Literal["dir", "file", "symlink", "other"]
    size: int  # bytes for a file, 0 otherwise
