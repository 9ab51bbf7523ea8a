"""A change-set's manifest in the journal (journal/sets/<seq>/manifest.json): its items in
manifest order and the sha256 of each pre-image kept, by item index. Written and fsynced before
the set's "begin" record, read by recovery and undo, which trust it no further than its shape."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from msgspec import Struct

from ...ondisk.atomic import write_all
from ...ondisk.jsonl import fsync_dir
from .items import Item

NAME = "manifest.json"


class Manifest(Struct, frozen=True):
    items: tuple[Item, ...]
    pre: dict[int, str]  # item index -> sha256 of its pre-image

    def write(self, folder: Path) -> None:
        data = json.dumps(
            {
                "items": [item.to_json() for item in self.items],
                "pre": {str(k): v for k, v in self.pre.items()},
            }
        ).encode()
        fd = os.open(
            folder / NAME,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
        )
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(folder)


def read_manifest(folder: Path) -> Manifest | None:
    try:
        data: Any = json.loads((folder / NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        return None
    items = [Item.from_json(raw) for raw in data["items"]]
    if any(item is None for item in items):
        return None
    pre_raw = data["pre"] if isinstance(data.get("pre"), dict) else {}
    pre = {
        int(k): v
        for k, v in pre_raw.items()
        if isinstance(k, str) and k.isdigit() and isinstance(v, str)
    }
    return Manifest(tuple(item for item in items if item is not None), pre)
