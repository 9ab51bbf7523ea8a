"""The `operator-app` command line. Only this module writes to stdout (data) and stderr
(diagnostics) and decides exit codes. With no sub-command it opens the TUI; the headless
sub-commands never import Textual."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from .envelope import (
    EXIT_INTERNAL, EXIT_MESSAGE, EXIT_NOTHING, EXIT_OK, EXIT_OUTPUT, EXIT_STATE, EXIT_USAGE, EXIT_WORKSPACE,
    CommandFailed, ErrorDetail, respond,
)

EPILOG = """\
exit codes: 0 the message was processed (whatever its results), 1 internal error,
2 bad usage, 3 workspace missing or unusable, 4 message unreadable,
5 state folder unusable or busy, 6 nothing to undo / undo refused / no results yet,
7 the output could not be written (exec: the results are saved; `results --last` prints them)"""


class UsageError(Exception):
    pass


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse builds a formatter for every add_argument (to check metavars), and the stock one
    imports shutil (and with it zlib, bz2, lzma) for the terminal width: on every start, for help
    text that is almost never printed. The width is found the same way without it."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            try:
                stdout = sys.__stdout__
                columns = int(os.environ.get("COLUMNS", "0")) or (os.get_terminal_size(stdout.fileno()).columns if stdout else 80)
            except (ValueError, OSError):
                columns = 80
            width = max(columns, 40) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _exec_parser(sub: Any) -> None:
    run = sub.add_parser("exec", help="run the commands of one message and print the OPERATOR_RESULT blocks", epilog=EPILOG,
                         formatter_class=_Formatter)
    run.add_argument("--workspace", required=True)
    run.add_argument("--approve", choices=("all", "none"),
                     help="decide every write without asking (default: ask on a terminal, none otherwise)")
    run.add_argument("--state-dir")
    run.add_argument("--json", action="store_true", help="print one JSON ResponseEnvelope instead of the blocks")
    run.add_argument("message_file", nargs="?", default="-", metavar="MESSAGE_FILE", help="the message (default: stdin)")


def _spec_parser(sub: Any) -> None:
    spec = sub.add_parser("spec", help="print the system prompt to paste into the chat")
    spec.add_argument("--raw", action="store_true", help="only the interface specification, without the preamble")


def _undo_parser(sub: Any) -> None:
    undo = sub.add_parser("undo", help="revert the last change(s) Operator made", epilog=EPILOG,
                          formatter_class=_Formatter)
    undo.add_argument("--workspace", required=True)
    undo.add_argument("--state-dir")
    undo.add_argument("--steps", type=int, default=1)
    undo.add_argument("--list", action="store_true",
                      help="list the changes that can be undone, newest first, and those undone already")
    undo.add_argument("--json", action="store_true")


def _results_parser(sub: Any) -> None:
    results = sub.add_parser("results", help="print again the result blocks of the last message", epilog=EPILOG,
                             formatter_class=_Formatter)
    results.add_argument("--workspace", required=True)
    results.add_argument("--state-dir")
    results.add_argument("--last", action="store_true", help="the last message (the default)")
    results.add_argument("--message", type=int, metavar="N", help="message number N of the session")
    results.add_argument("--json", action="store_true")


SUB_COMMANDS = {"exec": _exec_parser, "spec": _spec_parser, "undo": _undo_parser, "results": _results_parser}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. When `argv` starts with a sub-command, only that one's parser
    is built: each costs gettext lookups on disk, and exec's start-up is measured."""
    parser = _Parser(prog="operator-app", description="Work on a folder with a chat LLM through OPERATOR_CMD blocks.",
                     epilog=EPILOG, formatter_class=_Formatter)
    parser.add_argument("--workspace", help="the folder the model may work in (the TUI remembers the last one)")
    parser.add_argument("--state-dir", help="session state folder (default: one per workspace in the user state folder)")
    parser.add_argument("--follow", metavar="FILE", help="TUI: tail FILE as a streamed message")
    parser.add_argument("--watch-clipboard", action="store_true", help="TUI: take new clipboard text holding OPERATOR_CMD")
    parser.add_argument("--message", metavar="FILE", help="TUI: open with this message already pasted")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    # With prog given, argparse does not build a help formatter (which imports shutil, bz2, lzma).
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, prog="operator-app")
    chosen = argv[0] if argv and argv[0] in SUB_COMMANDS else None
    for name, add in SUB_COMMANDS.items():
        if chosen in (None, name):
            add(sub)
    return parser


# --- shared set-up -----------------------------------------------------------------------------


def open_workspace(raw: str) -> Any:
    from ..engine.workspace import Workspace, WorkspaceUnusable

    try:
        return Workspace(raw)
    except WorkspaceUnusable as exc:
        raise CommandFailed(EXIT_WORKSPACE, ErrorDetail(
            "WORKSPACE_UNUSABLE", str(exc), suggestion="pass --workspace with an existing folder you can read")) from None


def open_session(workspace: Any, state_dir: str | None, *, nothing: str | None = None) -> Any:
    """The session of the workspace. With `nothing` (what results and undo report when there is
    no session at all), a state folder that is not there is not made: they only look."""
    from ..engine.session import Session, StateUnusable, check_state_location, default_state_dir

    folder = Path(state_dir).expanduser().resolve() if state_dir else default_state_dir(workspace.root)
    try:
        if nothing is None or (folder / "session").is_dir():
            return Session(folder, workspace_root=workspace.root)
        # A state folder the model could reach is refused first, whether or not it holds a session.
        check_state_location(workspace.root, folder)
    except StateUnusable as exc:
        raise CommandFailed(EXIT_STATE, ErrorDetail(
            "STATE_UNUSABLE", str(exc), suggestion="pass --state-dir with a writable folder outside the workspace")) from None
    code = "NO_RESULTS" if nothing == "results" else "NOTHING_TO_UNDO"
    where = "check that --workspace and --state-dir name the folders exec or the TUI used"
    raise CommandFailed(EXIT_NOTHING, ErrorDetail(code, f"there is no Operator session in {folder}", suggestion=(
        where if nothing == "results" else where + " (undo --list shows the changes a session can undo)")))


def read_message(source: str) -> tuple[str, list[str]]:
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise CommandFailed(EXIT_MESSAGE, ErrorDetail(
            "MESSAGE_UNREADABLE", f"cannot read {source}: {exc.strerror or exc}",
            suggestion="pass an existing message file, or - to read standard input")) from None
    for bom, encoding in ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                          (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if data.startswith(bom):
            # A UTF-16 (or UTF-32) byte order mark: what Windows PowerShell's > writes. Every
            # block would otherwise vanish into replaced bytes.
            try:
                return data.decode(encoding), [f"the message is {encoding.upper()} (it starts with its byte order mark); "
                                               "read as such"]
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        # Text outside the blocks does not matter and a bad byte inside one makes that block
        # ERR_NON_ASCII_IN_CMD, so replace rather than refuse the whole message.
        return data.decode("utf-8", errors="replace"), [f"the message is not valid UTF-8 (byte {exc.start}); bad bytes were replaced"]


_PROMPT_DIFF_LINES = 60


def _terminal_decider() -> Any:
    """Ask on the controlling terminal for each write (used when no --approve was given).

    /dev/tty is opened twice, for reading and for writing: a text stream cannot be opened "r+"
    on it (not seekable), which once made every answer a silent no. What is shown is escaped:
    a diff holding ESC sequences or a carriage return could otherwise redraw the screen and hide
    the very line the person is asked to approve.
    """
    try:
        answers = open("/dev/tty", encoding="utf-8", errors="replace")  # noqa: SIM115 - kept open for the run
    except OSError:
        return None
    try:
        prompt = open("/dev/tty", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError:
        answers.close()
        return None
    approve_rest = False

    def show(plan: Any, limit: int | None) -> None:
        lines = [terminal_safe(line) for line in (plan.diff or "").rstrip("\n").split("\n")]
        prompt.write(f"\n{terminal_safe(plan.action)} {terminal_safe(plan.target.rel)}  +{plan.added} -{plan.removed}\n")
        prompt.write("\n".join(lines[:limit]) + "\n")
        if limit is not None and len(lines) > limit:
            prompt.write(f"... {len(lines) - limit} more diff lines not shown; answer d to see the whole diff\n")

    def decide(plan: Any) -> bool:
        nonlocal approve_rest
        if approve_rest:
            return True
        # A diff of thousands of lines would scroll the question (and the header) out of sight.
        show(plan, _PROMPT_DIFF_LINES)
        while True:
            prompt.write("Apply this change? [y]es / [n]o / [a]ll the rest / [d]iff in full: ")
            prompt.flush()
            line = answers.readline()
            if not line:  # the terminal went away: nothing is applied without a yes
                return False
            answer = line.strip().lower()
            if answer in ("d", "diff"):
                show(plan, None)
                continue
            if answer in ("y", "yes", "a", "all", "n", "no"):
                approve_rest = answer in ("a", "all")
                return answer in ("y", "yes") or approve_rest
            # A typo must not decide a write either way: ask again.
            prompt.write(f"Please answer y, n, a or d (got {terminal_safe(answer)!r}).\n")

    return decide


# Bidirectional overrides and isolates: invisible, they reorder how a line is drawn ("Trojan
# Source"), so a change could read as harmless at the prompt.
_BIDI_RE = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """One line of text as the terminal should draw it: control characters (tab aside) and
    bidirectional overrides written as escapes, so nothing in it can move the cursor or recolour,
    clear or reorder what the person reads."""
    from ..protocol.results import escape_controls

    text = escape_controls(text)
    return _BIDI_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if _BIDI_RE.search(text) else text


# --- sub-commands ------------------------------------------------------------------------------


def cmd_exec(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..engine.executor import Engine, approve_all, reject_all
    from ..protocol.results import render_results

    workspace = open_workspace(args.workspace)
    text, notes = read_message(args.message_file)
    warnings += notes
    session = open_session(workspace, args.state_dir)
    if args.approve == "all":
        decide = approve_all
    elif args.approve == "none":
        decide = reject_all
    else:
        decide = (_terminal_decider() if sys.stdin.isatty() else None) or reject_all
    rejected_by_default = decide is reject_all and args.approve is None
    from ..engine.session import StateUnusable

    try:
        run = Engine(workspace, session, decide=decide).run_text(text, source="exec")
    except StateUnusable as exc:
        raise CommandFailed(EXIT_STATE, ErrorDetail("STATE_UNUSABLE", str(exc), suggestion="retry when the other process is done")) from None
    warnings += run.warnings
    if rejected_by_default and any(r.status == "rejected" for r in run.results):
        warnings.append("writes were rejected: stdin is not a terminal and no --approve was given (use --approve all to apply them)")
    if run.blocks_seen == 0:
        warnings.append("no OPERATOR_CMD blocks found in the message")
    for dup in run.duplicates:
        warnings.append(f"id {dup.command_id} repeats a command of message {dup.earlier_message}; it was not run again")
    copy_text = render_results(run.results)
    data = {
        "message": run.number,
        "workspace": str(workspace.root),
        "state_dir": str(session.state_dir),
        "blocks": run.blocks_seen,
        "results": [_result_json(r) for r in run.results],
        "duplicates": [{"id": d.command_id, "message": d.earlier_message, "summary": d.earlier.summary} for d in run.duplicates],
        "copy_text": copy_text,
    }
    return EXIT_OK, (None if run.not_modified else data), copy_text


def _result_json(result: Any) -> dict[str, Any]:
    """A result for the envelope: id and summary exactly as its OPERATOR_RESULT block gives them."""
    from ..protocol.results import one_line

    return {
        "id": result.shown_id, "action": result.action, "path": result.path, "ok": result.ok, "status": result.status,
        "summary": one_line(result.summary), "error_code": result.error_code, "details": result.details,
        "truncated": result.truncated, "line": result.line,
    }


def cmd_results(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..protocol.results import render_results

    workspace = open_workspace(args.workspace)
    session = open_session(workspace, args.state_dir, nothing="results")
    recovered: list[tuple[int, Any]] = []
    busy = False
    from ..engine.session import StateUnusable

    with contextlib.ExitStack() as held:
        try:
            held.enter_context(session.lock(timeout=1.0))
        except StateUnusable:
            busy = True
            # A live process (the TUI waiting for a yes) holds the session: its writes are not
            # interrupted ones, and the results recorded so far can be printed all the same.
            warnings.append("another Operator process is working in this session; its current message may have more "
                            "results to come")
        else:  # a write the last run died in the middle of gets its result first
            if session.unresolved_intents():
                from ..engine.recovery import recover_interrupted_writes

                recovered = recover_interrupted_writes(workspace, session)
    number = args.message or session.last_message_number()
    if any(message != number for message, _ in recovered):
        from ..engine.recovery import recovery_notices

        warnings += recovery_notices([(m, r) for m, r in recovered if m != number])
    results = session.results_of(number) if number else []
    if not number or not any(m.number == number for m in session.messages()):
        raise CommandFailed(EXIT_NOTHING, ErrorDetail("NO_RESULTS", f"this session has no message {number or ''}".strip(),
                                                      suggestion="run operator-app exec first"))
    if not results:
        # An empty stdout with exit 0 would read as "nothing to copy back" when the commands in
        # fact never ran (the app stopped at the first consent): say which it is.
        from ..protocol.scanner import scan_message

        used = session.used_ids()
        found = scan_message(session.message_text(number) or "").blocks
        blocks = sum(1 for block in found if not _repeat(block, used, number))
        raise CommandFailed(EXIT_NOTHING, ErrorDetail("NO_RESULTS", (
            f"message {number} has no results yet: another Operator process is still working on it" if busy else
            f"message {number} has no results: Operator stopped before any of its {blocks} commands ran"
            if blocks else f"message {number} has no results: it held no OPERATOR_CMD block"
            if not found else f"message {number} has no results: every command in it repeated one an earlier message ran"
        ), suggestion="run the message again (operator-app exec, or paste it into the TUI)" if blocks else
            "--message N prints an earlier message's results"))
    text = render_results(results)
    from ..engine.journal import Journal

    # The blocks say what the model was told; a change undone since is said on stderr and in --json.
    undone = Journal(session.state_dir).undone_by_command()
    warnings += [f"{r.id} ({r.action} {r.path}) was undone at {_when(undone[r.id].undone_at)}: the model still thinks "
                 "the change is there; tell it" for r in results if r.ok and r.id in undone]
    shown = [{**_result_json(r), "undone": r.ok and r.id in undone} for r in results]
    return EXIT_OK, {"message": number, "results": shown, "copy_text": text}, text


def _repeat(block: Any, used: dict[str, Any], number: int) -> bool:
    """Whether a block of message `number` repeats a command an earlier message ran (it has no
    result of its own)."""
    earlier = used.get(block.id_hint or "")
    return earlier is not None and earlier[1] < number and earlier[0] == block.content_key


def cmd_undo(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..engine.journal import Journal
    from ..engine.undo import UndoRefused, undo_last, undoable

    if args.steps < 1:
        raise UsageError("--steps must be 1 or more")
    workspace = open_workspace(args.workspace)
    session = open_session(workspace, args.state_dir, nothing="undo")
    if args.list:
        journal = Journal(session.state_dir)
        entries, undone = undoable(workspace, journal), list(journal.undone_by_command().values())
        lines = [(e.seq, f"{e.seq}: {e.action} {e.rel} ({e.command_id}, {_when(e.time)})") for e in entries]
        lines += [(e.seq, f"{e.seq}: {e.action} {e.rel} ({e.command_id}, {_when(e.time)}) undone at {_when(e.undone_at)}")
                  for e in undone]
        text = "".join(line + "\n" for _, line in sorted(lines, reverse=True))
        return EXIT_OK, {"changes": [e.record() for e in entries],
                         "undone": [{**e.record(), "undone_at": e.undone_at} for e in undone]}, text
    with session.lock():
        try:
            done = undo_last(workspace, session.state_dir, args.steps)
        except UndoRefused as exc:
            for outcome in getattr(exc, "done", []):
                print(outcome.summary, file=sys.stderr)
            raise CommandFailed(EXIT_NOTHING, ErrorDetail("UNDO_REFUSED", str(exc), phase="execution",
                                                          suggestion="look at the file; undo only reverts what Operator wrote")) from None
    if not done:
        raise CommandFailed(EXIT_NOTHING, ErrorDetail(
            "NOTHING_TO_UNDO", "there is no change to undo in this workspace's journal",
            suggestion="check --workspace and --state-dir name the session that made the change (undo --list shows them)"))
    text = "".join(outcome.summary + "\n" for outcome in done)
    return EXIT_OK, {"undone": [o.summary for o in done]}, text


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp)) if stamp else "an unknown time"


def cmd_spec(args: argparse.Namespace, warnings: list[str]) -> tuple[int, Any, str]:
    from ..protocol.spec import interface_text, system_prompt

    text = interface_text() if args.raw else system_prompt()
    return EXIT_OK, {"text": text}, text if text.endswith("\n") else text + "\n"


HANDLERS = {"exec": cmd_exec, "results": cmd_results, "undo": cmd_undo, "spec": cmd_spec}


def main(argv: list[str] | None = None) -> int:
    started = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    want_json = "--json" in argv
    warnings: list[str] = []
    try:
        args = build_parser(argv).parse_args(argv)
        if args.version:
            from .. import __version__

            print(__version__)
            return EXIT_OK
        if args.command is None:
            return run_tui(args)
        exit_code, data, text = HANDLERS[args.command](args, warnings)
    except UsageError as exc:
        return _fail(want_json, started, warnings, EXIT_USAGE, ErrorDetail(
            "USAGE_ERROR", str(exc), suggestion="see operator-app --help"))
    except CommandFailed as exc:
        return _fail(want_json, started, warnings, exc.exit_code, exc.error)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the envelope must still come out
        return _fail(want_json, started, warnings, EXIT_INTERNAL, ErrorDetail(
            "INTERNAL_ERROR", f"{type(exc).__name__}: {exc}", phase="execution", suggestion="report this as a bug"))
    for warning in warnings:
        print(f"operator-app: {warning}", file=sys.stderr)
    if want_json:
        truncated = bool(data) and any(r.get("truncated") for r in data.get("results", []))
        envelope = respond(exit_code=exit_code, started=started, data=data, warnings=warnings,
                           not_modified=data is None, truncated=truncated)
        output = json.dumps(envelope, ensure_ascii=False) + "\n"
    else:
        output = text
    try:
        sys.stdout.write(output)
        sys.stdout.flush()
    except OSError as exc:  # a full disk, a closed pipe: the work is done and recorded, say where it is
        _quiet_stdout()
        again = " (they are saved: `operator-app results --workspace DIR --last` prints them again)" \
            if args.command == "exec" else ""
        print(f"operator-app: OUTPUT_FAILED: could not write the output: {exc.strerror or exc}{again}", file=sys.stderr)
        return EXIT_OUTPUT
    return exit_code


def _quiet_stdout() -> None:
    # Python flushes stdout again at exit and would print a second, bare traceback: point it at
    # /dev/null instead.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _fail(want_json: bool, started: float, warnings: list[str], exit_code: int, error: ErrorDetail) -> int:
    if want_json:
        sys.stdout.write(json.dumps(respond(exit_code=exit_code, started=started, error=error, warnings=warnings)) + "\n")
    for warning in warnings:
        print(f"operator-app: {warning}", file=sys.stderr)
    print(f"operator-app: {error.code}: {error.message}" + (f" ({error.suggestion})" if error.suggestion else ""), file=sys.stderr)
    return exit_code


def run_tui(args: argparse.Namespace) -> int:
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError("the TUI needs a terminal; for scripts use: operator-app exec --workspace DIR [MESSAGE_FILE]")
    from ..tui.launch import launch

    return launch(args)


def entry() -> None:
    raise SystemExit(main())


if __name__ == "__main__":
    os.environ.setdefault("PYTHONIOENCODING", "utf-8")
    entry()
