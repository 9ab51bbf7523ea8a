"""The headless command line: `exec`, `spec`, `undo` and `results`. Only the cli writes to stdout
(data) and stderr (diagnostics) and decides exit codes; `run()` is where a parsed sub-command
becomes its output (the result blocks, or one JSON envelope with --json) and its exit code, and
where every failure becomes a diagnostic. It never imports Textual, nor anything of the TUI: the
`operator-app` command itself, which opens the TUI when no sub-command is given, is
operator_app/entry.py. `main()` parses the headless sub-commands alone (tests drive it)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from .envelope import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_USAGE,
    CommandFailed,
    ErrorDetail,
    respond,
)
from .exec_command import cmd_exec
from .parser import UsageError, command_line
from .session_commands import cmd_results, cmd_undo

if TYPE_CHECKING:
    from ..protocol import PromptLength


def cmd_spec(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    """The prompt of a dialect: its own, or, for a dialect whose specification is longer than
    its prompt, the whole of it (--full with the prompt's opening paragraph, --raw without)."""
    from ..protocol import all_dialects, dialect_named

    dialect = dialect_named(args.dialect)
    length: PromptLength = "prompt"
    if args.raw or args.full:
        length = "raw" if args.raw else "full"
    if length not in dialect.prompt_lengths:
        having = [f"--dialect {d.name}" for d in all_dialects() if length in d.prompt_lengths]
        raise UsageError(
            f"operator-app spec: --full and --raw are for {' or '.join(having)}; "
            f"{dialect.title}'s prompt (--dialect {args.dialect}) is one text"
        )
    text = dialect.prompt(length)
    return EXIT_OK, {"text": text}, text if text.endswith("\n") else text + "\n"


HANDLERS = {"exec": cmd_exec, "results": cmd_results, "undo": cmd_undo, "spec": cmd_spec}


def run(args: argparse.Namespace, argv: list[str], started: float) -> int:
    """Run the parsed headless sub-command (or --version) and print what it gives; the exit code."""
    want_json = "--json" in argv
    warnings: list[str] = []
    try:
        if args.version:
            from .. import __version__

            print(__version__)
            return EXIT_OK
        if args.command not in HANDLERS:
            raise UsageError(
                f"operator-app: choose one of {', '.join(HANDLERS)} (operator-app with no "
                "sub-command opens the TUI)"
            )
        exit_code, data, text = HANDLERS[args.command](args, warnings)
    except UsageError as exc:
        return usage_failed(argv, started, exc, warnings)
    except CommandFailed as exc:
        return _fail(want_json, started, warnings, exc.exit_code, exc.error)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        return _fail(
            want_json,
            started,
            warnings,
            EXIT_INTERNAL,
            ErrorDetail(
                "INTERNAL_ERROR",
                f"{type(exc).__name__}: {exc}",
                phase="execution",
                suggestion="report this as a bug",
            ),
        )
    for warning in warnings:
        print(f"operator-app: {warning}", file=sys.stderr)
    if want_json:
        truncated = bool(data) and any(r.get("truncated") for r in data.get("results", []))
        envelope = respond(
            exit_code=exit_code,
            started=started,
            data=data,
            warnings=warnings,
            not_modified=data is None,
            truncated=truncated,
        )
        output = json.dumps(envelope, ensure_ascii=False) + "\n"
    else:
        output = text
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except OSError as exc:
        # a full disk, a closed pipe: the work is done and recorded, say where it is
        _quiet_stdout()
        again = (
            " (they are saved: `operator-app results --workspace DIR --last` prints them again)"
            if args.command == "exec"
            else ""
        )
        print(
            "operator-app: OUTPUT_FAILED: could not write the output: "
            f"{exc.strerror or exc}{again}",
            file=sys.stderr,
        )
        return EXIT_OUTPUT
    return exit_code


def usage_failed(
    argv: list[str], started: float, error: UsageError, warnings: list[str] | None = None
) -> int:
    """Report a command line that could not be used (exit 2), as an envelope too with --json."""
    return _fail(
        "--json" in argv,
        started,
        warnings or [],
        EXIT_USAGE,
        ErrorDetail("USAGE_ERROR", str(error), suggestion="see operator-app --help"),
    )


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = command_line(argv).parse_args(argv)
    except UsageError as exc:
        return usage_failed(argv, started, exc)
    return run(args, argv, started)


def _quiet_stdout() -> None:
    # Python flushes stdout again at exit and would print a second, bare traceback: point it at
    # /dev/null instead.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _fail(
    want_json: bool, started: float, warnings: list[str], exit_code: int, error: ErrorDetail
) -> int:
    if want_json:
        sys.stdout.write(
            json.dumps(
                respond(exit_code=exit_code, started=started, error=error, warnings=warnings)
            )
            + "\n"
        )
    for warning in warnings:
        print(f"operator-app: {warning}", file=sys.stderr)
    print(
        f"operator-app: {error.code}: {error.message}"
        + (f" ({error.suggestion})" if error.suggestion else ""),
        file=sys.stderr,
    )
    return exit_code
