"""The TUI as the command line sees it: the options it takes (declared without importing Textual,
so a headless start stays light) and `launch()`, which opens the app with them. The entry point
(operator_app/entry.py) calls both; nothing here parses argv or decides exit codes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_options(parser: Any) -> None:
    """The options of `operator-app` with no sub-command, which opens the TUI."""
    parser.add_argument(
        "--workspace", help="the folder the model may work in (the TUI remembers the last one)"
    )
    parser.add_argument(
        "--state-dir",
        help="session state folder (default: one per workspace in the user state folder)",
    )
    parser.add_argument("--follow", metavar="FILE", help="TUI: tail FILE as a streamed message")
    parser.add_argument(
        "--watch-clipboard",
        action="store_true",
        help="TUI: take new clipboard text holding a block for Operator",
    )
    parser.add_argument(
        "--message", metavar="FILE", help="TUI: open with this message already pasted"
    )
    parser.add_argument(
        "--bridge",
        action="store_true",
        help="TUI: start the browser bridge at once (b does it later; see operator-app bridge)",
    )
    parser.add_argument(
        "--bridge-port",
        type=_port,
        metavar="PORT",
        help="TUI: the bridge's port on 127.0.0.1 (remembered; default 47821)",
    )


def _port(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port number (1 to 65535)")
    return int(value)


def launch(args: argparse.Namespace) -> int:
    from .app import OperatorApp

    message = (
        Path(args.message).read_text(encoding="utf-8", errors="replace") if args.message else None
    )
    app = OperatorApp(
        workspace=Path(args.workspace).expanduser() if args.workspace else None,
        state_dir=Path(args.state_dir).expanduser().resolve() if args.state_dir else None,
        follow=Path(args.follow).expanduser() if args.follow else None,
        watch_clipboard=bool(args.watch_clipboard),
        initial_message=message,
        bridge=bool(args.bridge) or args.bridge_port is not None,
        bridge_port=args.bridge_port,
    )
    app.run()
    return 0
