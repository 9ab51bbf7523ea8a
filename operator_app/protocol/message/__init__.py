"""The message scanner: every dialect's blocks in one message, whole or streamed, found by each
dialect's own reader (reader.py: what a reader is and finds; router.py: the scanner that routes
the text to the readers, and a whole message scanned in the spec's window, window.py; taken.py:
the text taken so far, counted and hashed). The rest of Operator imports these names from here.
May import: protocol."""

from __future__ import annotations

from .reader import MessageEvent
from .router import MessageScanner, scan_whole, windowed_scanner
from .window import MessageScan

__all__ = ["MessageEvent", "MessageScan", "MessageScanner", "scan_whole", "windowed_scanner"]
