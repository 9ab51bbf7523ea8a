"""How much text the message scanner is given, counted at its one door: every `MessageScanner`
(the engine's, a whole message's scan, a growing text's scan) is fed through `feed`, so the
characters it was handed in all say whether a text was scanned once or again. A test that the
same work is not done twice reads it before and after."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from operator_app.protocol.message import MessageScanner


class ScanMeter:
    def __init__(self) -> None:
        self.chars = 0  # characters fed to a message scanner since the meter was put in


@contextmanager
def scan_meter(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScanMeter]:
    meter = ScanMeter()
    feed = MessageScanner.feed

    def counted(self: MessageScanner, chunk: str, *args: Any, **kwargs: Any) -> Any:
        meter.chars += len(chunk)
        return feed(self, chunk, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(MessageScanner, "feed", counted)
        yield meter
