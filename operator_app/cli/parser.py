"""The command line's grammar: the parser class every sub-command uses (its errors are UsageError,
never an exit from inside argparse), the headless sub-commands' arguments, and `command_line()`,
which assembles a parser from them. The entry point (operator_app/entry.py) adds the options of
the TUI and the sub-commands of other front ends; `cli.main` uses the headless part alone."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

EPILOG = """\
exit codes: 0 the message was processed (whatever its results), 1 internal error,
2 bad usage, 3 workspace missing or unusable, 4 message unreadable,
5 state folder unusable or busy, 6 nothing to undo / undo refused / no results yet,
7 the output could not be written (exec: the results are saved; `results --last` prints them)"""
UNDO_EPILOG = """\
exit codes: 0 the change(s) were undone (or listed), 1 internal error, 2 bad usage (or no
--workspace, and the current folder is in no workspace with a session: stderr names those
that have one), 3 workspace missing or unusable, 5 state folder unusable or busy, 6 nothing to
undo, or the undo was refused (stderr says why; nothing was touched), 7 the output could not
be written"""
RESULTS_EPILOG = """\
exit codes: 0 the result blocks were printed, 1 internal error, 2 bad usage (or no --workspace,
and the current folder is in no workspace with a session: stderr names those that have one),
3 workspace missing or unusable, 5 state folder unusable or busy, 6 no such message, or it has
no results (stderr says why), 7 the output could not be written"""
WORKSPACE_HELP = (
    "the workspace folder (default: the one you stand in: the nearest folder, from the current "
    "one up, that has a session; stderr says which)"
)
STATE_HELP = "the session's state folder (default: one per workspace in the user state folder)"
JSON_HELP = "print one JSON ResponseEnvelope instead of text"

# A sub-command's declaration: adds its parser to the sub-parsers action it is given.
Declare = Callable[[Any], None]


class UsageError(Exception):
    pass


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse builds a formatter for every add_argument (to check metavars), and the stock one
    imports shutil (and with it zlib, bz2, lzma) for the terminal width: on every start, for help
    text that is almost never printed. The width is found the same way without it."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            try:
                stdout = sys.__stdout__
                columns = int(os.environ.get("COLUMNS", "0")) or (
                    os.get_terminal_size(stdout.fileno()).columns if stdout else 80
                )
            except (ValueError, OSError):
                columns = 80
            width = max(columns, 40) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _exec_parser(sub: Any) -> None:
    run = sub.add_parser(
        "exec",
        help="run the commands of one message and print the OPERATOR_RESULT blocks",
        epilog=EPILOG,
    )
    run.add_argument("--workspace", required=True, help="the folder the model may work in")
    run.add_argument(
        "--approve",
        choices=("all", "none"),
        help="decide every write, and every command the model runs, without asking (none runs "
        "no command at all, always-allowed ones included). Default: ask on a terminal; without "
        "one, a write, or a command not always allowed, is not applied (ERR_NOT_APPROVED) and "
        "nothing after it runs",
    )
    run.add_argument("--state-dir", help=STATE_HELP)
    run.add_argument(
        "--network",
        action="store_true",
        help="let the commands the model runs (shell.run, bash topics) use the network (default: "
        "no network, unless the settings allow it for this workspace)",
    )
    run.add_argument(
        "--allow-unsandboxed",
        action="store_true",
        help="where no sandbox can be had, let commands run without one (each still needs a yes: "
        "on the terminal, or --approve all); they then change the tree directly",
    )
    run.add_argument(
        "--json", action="store_true", help="print one JSON ResponseEnvelope instead of the blocks"
    )
    run.add_argument(
        "message_file",
        nargs="?",
        default="-",
        metavar="MESSAGE_FILE",
        help="the message (default: stdin)",
    )


def dialects_help() -> str:
    """What --dialect offers, from the table of dialects: each one's blocks and prompts."""
    from ..protocol import all_dialects

    def one(index: int, dialect: Any) -> str:
        notes = ["the default"] if index == 0 else []
        longer = [length for length in dialect.prompt_lengths if length != "prompt"]
        notes += [f"also --{' and --'.join(longer)}"] if longer else []
        said = f" ({'; '.join(notes)})" if notes else ""
        return f"{dialect.name}: {dialect.title} blocks{said}"

    return "; ".join(one(index, dialect) for index, dialect in enumerate(all_dialects()))


def _spec_parser(sub: Any) -> None:
    from ..protocol import default_name, registered_names

    spec = sub.add_parser(
        "spec",
        help="print the system prompt to paste into the chat (the compact one: under 8,000 "
        "characters)",
    )
    length = spec.add_mutually_exclusive_group()
    length.add_argument(
        "--full",
        action="store_true",
        help="the whole interface specification (what operator.getInterfaceSpec returns), with "
        "the prompt's opening paragraph",
    )
    length.add_argument(
        "--raw",
        action="store_true",
        help="the whole interface specification alone, without the opening paragraph",
    )
    spec.add_argument(
        "--dialect",
        choices=registered_names(),
        default=default_name(),
        help=dialects_help(),
    )


def _undo_parser(sub: Any) -> None:
    undo = sub.add_parser(
        "undo", help="revert the last change(s) Operator made", epilog=UNDO_EPILOG
    )
    undo.add_argument("--workspace", help=WORKSPACE_HELP)
    undo.add_argument("--state-dir", help=STATE_HELP)
    undo.add_argument(
        "--steps",
        type=int,
        default=1,
        metavar="N",
        help="undo the last N changes, newest first, stopping at the first refused (default: 1)",
    )
    undo.add_argument(
        "--list",
        action="store_true",
        help="list the changes that can be undone, newest first, and those undone already",
    )
    undo.add_argument("--json", action="store_true", help=JSON_HELP)


def _results_parser(sub: Any) -> None:
    results = sub.add_parser(
        "results", help="print again the result blocks of the last message", epilog=RESULTS_EPILOG
    )
    results.add_argument("--workspace", help=WORKSPACE_HELP)
    results.add_argument("--state-dir", help=STATE_HELP)
    results.add_argument("--last", action="store_true", help="the last message (the default)")
    results.add_argument("--message", type=int, metavar="N", help="message number N of the session")
    results.add_argument("--json", action="store_true", help=JSON_HELP)


HEADLESS_COMMANDS: dict[str, Declare] = {
    "exec": _exec_parser,
    "spec": _spec_parser,
    "undo": _undo_parser,
    "results": _results_parser,
}


def command_line(
    argv: list[str] | None = None,
    *,
    options: Callable[[Parser], None] | None = None,
    sub_commands: Mapping[str, Declare] = HEADLESS_COMMANDS,
) -> Parser:
    """The parser of `operator-app`: `options` adds the options taken with no sub-command (the
    TUI's), `sub_commands` declares each sub-command. When `argv` starts with a sub-command only
    that one's parser is built, and the options taken without one are not (none can stand before
    it then): each costs gettext lookups on disk, and exec's start-up is measured."""
    parser = Parser(
        prog="operator-app",
        description=(
            "Work on a folder with a chat LLM through the blocks of commands it writes "
            "(operator-app spec --help: the dialects)."
        ),
        epilog=EPILOG,
    )
    chosen = argv[0] if argv and argv[0] in sub_commands else None
    if options is not None and chosen is None:
        options(parser)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # With prog given, argparse does not build a help formatter (which imports shutil, bz2, lzma).
    sub = parser.add_subparsers(dest="command", parser_class=Parser, prog="operator-app")
    for name, declare in sub_commands.items():
        if chosen in (None, name):
            declare(sub)
    return parser
