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
        help="forget the paired browsers: their tokens stop working at once (also in a running "
        "Operator); pair again from the TUI",
    )


def run(args: argparse.Namespace, argv: list[str], started: float) -> int:
    if args.extension_dir:
        print(EXTENSION_DIR)
        return 0
    if args.forget:
        had = pairing.stored_pairings()
        if not pairing.forget_pairings():
            print(
                "operator-app: cannot write the settings file; the pairing is kept", file=sys.stderr
            )
            return 1
        print(
            (
                f"The paired browsers are forgotten ({', '.join(p.browser for p in had)}): their "
                "tokens stop working at once, also in an Operator running now; pair again from "
                "the TUI (b)."
            )
            if had
            else "No browser was paired."
        )
        return 0
    paired = pairing.stored_pairings()
    print(
        'Extension folder (load it with "Load unpacked" on the browser\'s extensions page):\n  '
        f"{EXTENSION_DIR}"
    )
    print(f"Port: 127.0.0.1:{pairing.stored_port()}")
    print(
        f"Paired: yes, {', '.join(p.browser for p in paired)} "
        f"(operator-app bridge --forget forgets {'it' if len(paired) == 1 else 'them'})"
        if paired
        else (
            "Paired: no; start the bridge in the TUI (b, or operator-app --bridge) and type its "
            "code in the popup"
        )
    )
    return 0
