"""What the bridge remembers of a session's page messages across restarts of Operator: for each
page message (conversation, position), the Operator messages it became, which of them had their
results put back into the chat, and whether the person ended it by hand. Kept as one small JSON
file in the session's state folder (outside the workspace, like the session itself).

Without it, a restarted Operator would take an open chat tab's unchanged answer for a new one:
a message of repeats, "nothing new to send", and the results the chat never got lost for good.
A damaged or missing file only costs that memory, never the session.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from msgspec import Struct, field

from .pages import PageKey

FILE_NAME = "bridge-pages.json"
KEPT_PAGES = 500  # the most recently used; a chat tab older than that is a new answer again


class PageRecord(Struct):
    messages: list[int] = field(default_factory=list)  # Operator message numbers, oldest first
    delivered: set[int] = field(default_factory=set)  # those whose results went back to the chat
    closed: bool = False  # ended by hand (e): what the page adds to it is not run


class Ledger:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.path = state_dir / FILE_NAME
        self._records: dict[PageKey, PageRecord] = self._load()

    def _load(self) -> dict[PageKey, PageRecord]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        records: dict[PageKey, PageRecord] = {}
        for entry in data.get("pages", []) if isinstance(data, dict) else []:
            try:
                key = (str(entry["conversation"]), int(entry["position"]))
                records[key] = PageRecord(
                    [int(n) for n in entry["messages"]],
                    {int(n) for n in entry["delivered"]},
                    bool(entry.get("closed", False)),
                )
            except (KeyError, TypeError, ValueError):
                continue  # one bad entry costs only itself
        return records

    def get(self, key: PageKey) -> PageRecord | None:
        return self._records.get(key)

    def opened(self, key: PageKey, number: int) -> None:
        record = self._records.pop(key, None) or PageRecord()
        record.messages.append(number)
        record.closed = False
        self._records[key] = record  # most recent last
        self._save()

    def delivered(self, key: PageKey, numbers: list[int]) -> None:
        record = self._records.get(key)
        if record is not None and not set(numbers) <= record.delivered:
            record.delivered.update(numbers)
            self._save()

    def closed(self, key: PageKey) -> None:
        record = self._records.get(key)
        if record is not None and not record.closed:
            record.closed = True
            self._save()

    def _save(self) -> None:
        while len(self._records) > KEPT_PAGES:
            del self._records[next(iter(self._records))]
        pages = [
            {
                "conversation": key[0],
                "position": key[1],
                "messages": record.messages,
                "delivered": sorted(record.delivered),
                "closed": record.closed,
            }
            for key, record in self._records.items()
        ]
        try:
            handle, temp = tempfile.mkstemp(
                prefix=".bridge-pages-", suffix=".tmp", dir=self.state_dir
            )
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump({"version": 1, "pages": pages}, out)
                os.replace(temp, self.path)
            except BaseException:
                os.unlink(temp)
                raise
        except OSError:
            pass  # the memory is a convenience: the session itself is whole without it
