"""`operator-app`, the console script: the one entry point, above the front ends. It builds the
command line from what each front end declares and hands the parsed arguments to the one chosen:
a sub-command to the front end that declared it, no sub-command to the TUI. cli/ and tui/ know
nothing of each other or of this module; each front end's work is imported only once it is
chosen, so `exec` never loads Textual.

A new way in is one entry in SUB_COMMANDS (how its arguments are declared, and what runs it); an
option of the TUI is declared in tui/launch.py's add_options.
May import: any package of operator_app."""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import time
from collections.abc import Callable
from typing import NoReturn

from .cli.parser import HEADLESS_COMMANDS, Declare, UsageError, command_line
from .tui.launch import add_options as tui_options

Run = Callable[[argparse.Namespace, list[str], float], int]  # (args, argv, start time) -> exit code


class SubCommand:
    """How a sub-command's arguments are declared, and what runs it once parsed. (A plain class:
    a NamedTuple or a dataclass costs every start a millisecond or so to create.)"""

    __slots__ = ("declare", "run")

    def __init__(self, declare: Declare, run: Run) -> None:
        self.declare = declare
        self.run = run


def _headless(args: argparse.Namespace, argv: list[str], started: float) -> int:
    from .cli.main import run

    return run(args, argv, started)


def _bridge(args: argparse.Namespace, argv: list[str], started: float) -> int:
    from .bridge.command import run

    return run(args, argv, started)


def _declare_bridge(sub: object) -> None:
    from .bridge.command import declare

    declare(sub)


SUB_COMMANDS: dict[str, SubCommand] = {
    name: SubCommand(declare, _headless) for name, declare in HEADLESS_COMMANDS.items()
}
SUB_COMMANDS["bridge"] = SubCommand(_declare_bridge, _bridge)


def _open_tui(args: argparse.Namespace) -> int:
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError(
            "the TUI needs a terminal; for scripts use: operator-app exec --workspace DIR "
            "[MESSAGE_FILE]"
        )
    from .tui.launch import launch

    return launch(args)


def _without_plugin_loader() -> None:
    """With plugins switched off, pydantic's get_plugins() answers () before it looks at anything,
    but importing the module that holds it imports importlib.metadata (email, zipfile, csv,
    socket...): 25-40 ms of every start measured with -X importtime (docs/design.md,
    "Start-up"). A module holding just that answer stands in for it. Its only importer is
    pydantic.plugin._schema_validator, which asks it for get_plugins alone (pydantic 2.x); the
    whole suite runs through this stand-in, so a pydantic that asks more of it fails there."""
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true"):
        return
    name = "pydantic.plugin._loader"
    if name in sys.modules:
        return
    import types

    stand_in = types.ModuleType(name, "pydantic's plugin loader with plugins switched off")
    stand_in.get_plugins = tuple  # type: ignore[attr-defined]  # () : no plugin watches
    sys.modules[name] = stand_in


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = command_line(
            argv,
            options=tui_options,
            sub_commands={name: command.declare for name, command in SUB_COMMANDS.items()},
        )
        args = parser.parse_args(argv)
        if args.command != "exec":
            gc.enable()  # paused by entry() for the start-up; exec resumes it once it has it all
        if args.command is None and not args.version:
            return _open_tui(args)
    except UsageError as exc:
        from .cli.main import usage_failed

        return usage_failed(argv, started, exc)
    # --version is answered by the headless front end, like the sub-commands it has.
    return (
        SUB_COMMANDS[args.command].run(args, argv, started)
        if args.command
        else _headless(args, argv, started)
    )


def entry() -> None:
    # Pydantic looks for plugins of its own (the "pydantic" entry points of every installed
    # distribution) the first time a command model is built: a scan that grows with the
    # environment, for plugins that would watch Operator's own command validation, which it never
    # wants watched. PYDANTIC_DISABLE_PLUGINS is pydantic's documented switch for that ("Disabling
    # Plugins" in its plugin docs); a value the person set is kept. Children inherit it (the
    # clipboard tools the TUI runs use no pydantic); a program of the person's that Operator runs
    # one day must get an environment without it.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _without_plugin_loader()
    # Starting is importing: objects made to last until the process ends, which the collector
    # would walk over and over while they are made, to free nothing. It is paused until the front
    # end chosen has what it needs (main(), and exec once the engine is imported), and everything
    # is frozen at the end, which spares the last collection (docs/design.md, "Start-up").
    gc.disable()
    code = main()
    gc.freeze()
    _leave(code)


def _leave(code: int) -> NoReturn:
    """End the process with `code`. Python's own ending takes every module apart object by
    object, some 9 M instructions of an `exec`'s 580 M (docs/design.md, "Start-up"), for a
    process about to vanish: when nothing is left for it to do (the standard streams flushed, no
    other thread running, nothing registered with atexit), the process ends at once instead.
    Otherwise it ends as usual, and whatever is left is done."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # (a closed pipe: Python's ending says so, as it always did)
        raise SystemExit(code) from None
    threading = sys.modules.get("threading")
    alone = threading is None or threading.active_count() == 1
    registered = getattr(atexit, "_ncallbacks", None)  # (CPython's count; elsewhere: unknown)
    if alone and registered is not None and registered() == 0:
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    entry()
