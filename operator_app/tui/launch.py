"""Start the TUI from the command line's arguments (called by cli/main.py, which never imports
Textual itself)."""

from __future__ import annotations

import argparse
from pathlib import Path


def launch(args: argparse.Namespace) -> int:
    from .app import OperatorApp

    message = Path(args.message).read_text(encoding="utf-8", errors="replace") if args.message else None
    app = OperatorApp(
        workspace=Path(args.workspace).expanduser() if args.workspace else None,
        state_dir=Path(args.state_dir).expanduser().resolve() if args.state_dir else None,
        follow=Path(args.follow).expanduser() if args.follow else None,
        watch_clipboard=bool(args.watch_clipboard),
        initial_message=message,
    )
    app.run()
    return 0
