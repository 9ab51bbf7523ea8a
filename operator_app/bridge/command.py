"""`operator-app bridge`: where the browser extension is (to load it with "Load unpacked"), what
the bridge remembers (its port, whether a browser is paired), and forgetting a pairing. The
bridge itself runs inside the TUI (`b`, or `operator-app --bridge`); nothing here starts a server
or imports one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import pairing

EXTENSION_DIR = Path(__file__).resolve().parent / "extension"


def declare(sub: Any) -> None:
    bridge = sub.add_parser(
        "bridge",
        help="the browser bridge: where its extension is, its port and pairing",
        description="The browser bridge streams a web chat's answers into the TUI and puts the "
        "results into the chat's input box. Start it in the TUI (b, or operator-app --bridge).",
        epilog="exit codes: 0 done, 2 bad usage",
    )
    what = bridge.add_mutually_exclusive_group()
    what.add_argument(
        "--extension-dir",
        action="store_true",
        help='print only the folder to load in the browser with "Load unpacked"',
    )
    what.add_argument(
        "--forget",
        action="store_true",
        help="forget the paired browser: its token stops working, pair again from the TUI",
    )


def run(args: argparse.Namespace, argv: list[str], started: float) -> int:
    if args.extension_dir:
        print(EXTENSION_DIR)
        return 0
    if args.forget:
        had = pairing.stored_pairing() is not None
        if not pairing.forget_pairing():
            print(
                "operator-app: cannot write the settings file; the pairing is kept", file=sys.stderr
            )
            return 1
        print(
            "The paired browser is forgotten: pair again from the TUI (b)."
            if had
            else "No browser was paired."
        )
        return 0
    paired = pairing.stored_pairing()
    print(
        'Extension folder (load it with "Load unpacked" on the browser\'s extensions page):\n  '
        f"{EXTENSION_DIR}"
    )
    print(f"Port: 127.0.0.1:{pairing.stored_port()}")
    print(
        "Paired: yes (operator-app bridge --forget forgets it)"
        if paired
        else (
            "Paired: no; start the bridge in the TUI (b, or operator-app --bridge) and type its "
            "code in the popup"
        )
    )
    return 0
