"""The interface text is part of the product: spec/interface.txt must be exactly what the command
models and the error catalog render, plain ASCII, and mention every action, field, alias and
code the app implements; and every ERR_ code in the source must be in the catalog."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from operator_app.protocol import commands as c
from operator_app.protocol.chanflow.spec import string_prompt
from operator_app.protocol.errors import ERROR_CATALOG, FIRST_MET, ErrorCode
from operator_app.protocol.spec import (
    MAX_PROMPT_CHARS,
    PROMPT_PREAMBLE,
    full_prompt,
    interface_text,
    render_prompt,
    render_spec,
    system_prompt,
)

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "spec" / "interface.txt").read_text(encoding="ascii")
PROMPT = (ROOT / "spec" / "prompt.txt").read_text(encoding="ascii")


def test_interface_file_is_what_the_models_render() -> None:
    template = (ROOT / "spec" / "template.txt").read_text(encoding="ascii")
    assert render_spec(template) == SPEC, "run: python -m operator_app.protocol.spec --write"
    compact = (ROOT / "spec" / "prompt-template.txt").read_text(encoding="ascii")
    assert render_prompt(compact) == PROMPT, "run: python -m operator_app.protocol.spec --write"


def test_the_compact_prompt_fits_and_names_every_action_and_the_first_errors() -> None:
    """Issue 19: the prompt must fit a chat app's instruction box, and a model that has only it
    must still know every action it may send (and where the rest is)."""
    assert len(PROMPT) <= MAX_PROMPT_CHARS == 8_000, len(PROMPT)
    lines = PROMPT.split("\nACTIONS ", 1)[1].split("\n\n", 1)[0].split("\n")
    for action, model in c.ACTIONS.items():
        (line,) = [x for x in lines if x.startswith(f"{action} ") or x.startswith(f"{action}:")]
        assert model.BRIEF and line.endswith(f": {model.BRIEF}"), action
        assert (" *:" in line) == model.WRITES, line
        for name in model.model_fields:
            if name not in ("version", "id", "action") and not (
                issubclass(model, c.CommentStyleFields) and name.startswith(("comment_", "lang"))
            ):
                assert name in line, f"{action}: {name} missing from {line}"
    for code in FIRST_MET:
        assert f"\n{code.value}: " in PROMPT
    assert "operator.getInterfaceSpec: the full interface reference" in PROMPT
    for rule in ("OPERATOR_CMD", "END_OPERATOR_CMD", "version: 1", "content_b64", "ok: true"):
        assert rule in PROMPT


def test_spec_is_plain_ascii() -> None:
    (ROOT / "spec" / "interface.txt").read_bytes().decode("ascii")
    (ROOT / "spec" / "prompt.txt").read_bytes().decode("ascii")


def test_every_code_is_in_the_catalog_and_the_spec_and_back() -> None:
    assert set(ERROR_CATALOG) == set(ErrorCode)
    in_spec = set(re.findall(r"\bERR_[A-Z0-9_]+\b", SPEC)) - {"ERR_"}
    assert in_spec == {code.value for code in ErrorCode}


def test_every_code_in_the_source_is_declared() -> None:
    source = "".join(p.read_text() for p in (ROOT / "operator_app").rglob("*.py"))
    used = set(re.findall(r"\bERR_[A-Z0-9_]+\b", source))
    placeholders = {
        "ERR_X"
    }  # "Invalid OPERATOR_CMD (ERR_X): ..." in prose about the summary format
    assert used - placeholders <= {code.value for code in ErrorCode}


def test_every_action_field_and_alias_is_in_its_section() -> None:
    for action, model in c.ACTIONS.items():
        section = SPEC.split(f"\n{action}\n", 1)
        assert len(section) == 2, f"{action} has no heading in the spec"
        body = section[1].split("\n\n", 1)[0]
        for name in model.model_fields:
            if name in ("version", "id", "action"):
                continue
            assert name in body, f"{action}: field {name} missing from its spec section"
            for alias in c.field_meta(model, name).get("aliases", []):
                assert alias in body, f"{action}: alias {alias} missing"
        assert ("Requires user confirmation" in body) == model.WRITES


def spec_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "operator_app", "spec", *args], capture_output=True, text=True
    )


def test_get_interface_spec_returns_the_file_and_spec_command_prints_a_prompt() -> None:
    assert interface_text() == SPEC and system_prompt() == PROMPT
    assert spec_command().stdout.rstrip("\n") == PROMPT.rstrip("\n")
    full = spec_command("--full").stdout
    assert full.rstrip("\n") == full_prompt().rstrip("\n") == (PROMPT_PREAMBLE + SPEC).rstrip("\n")
    assert spec_command("--raw").stdout.rstrip("\n") == SPEC.rstrip("\n")
    assert spec_command("--dialect", "operator").stdout.rstrip("\n") == PROMPT.rstrip("\n")


def test_the_spec_command_speaks_both_dialects() -> None:
    string = spec_command("--dialect", "string")
    assert string.returncode == 0 and string.stdout.rstrip("\n") == string_prompt().rstrip("\n")
    for extra in ("--full", "--raw"):
        refused = spec_command("--dialect", "string", extra)
        assert refused.returncode == 2 and refused.stdout == ""
        assert "--full and --raw are for --dialect operator" in refused.stderr
    both = spec_command("--full", "--raw")
    assert both.returncode == 2 and "not allowed with argument --full" in both.stderr
    unknown = spec_command("--dialect", "klingon")
    assert unknown.returncode == 2 and "invalid choice: 'klingon'" in unknown.stderr


def test_the_prompts_say_what_a_round_trip_had_to_guess() -> None:
    """What models had to find out by trying (issue 25): each said in the compact prompt, and
    the line-number rule in both prompts, a command's changes included (tests/cli/
    test_prompt_facts.py and tests/cli/test_line_numbers.py hold them true)."""
    from operator_app.protocol.chanflow.spec import MAX_PROMPT_CHARS, string_prompt

    for fact in (
        "Line numbers (replaceRange, patch hunks) count the file as it was when your message "
        "began: give several line edits of one file bottom-up, or as one edit, and none after a "
        "shell.run that changed it.",
        "fs.rename path path_to [overwrite: false] *: a file or folder renamed in its folder "
        "(path_to: the new path, src/b.py)",
        # Issue 33: defaults written as defaults, no undo of the model's own, pipefail, output
        # already cut, the regex flavour (tests/cli/test_pipefail.py, test_regex_lines.py).
        "ACTIONS ([field: default] is optional;",
        "[position: after] [occurrence: 1]",
        "[start: 1] [lines: 120]",
        "each write after the person's yes (only they can undo it, with u)",
        "shell.run is bash with set -o pipefail;",
        "already cut to its first and last 100 lines (no | tail needed)",
        "A regex is Python re syntax; ^ and $ match at each line.",
        "insertAfter puts text right after the anchor text",
        'replaceRange with text "" deletes the lines',
        "fs.read path: a whole file's exact text, line endings kept",
        "An invalid block ran nothing: its id may be reused.",
        "(send a new id to run it again)",
        "ERR_UNKNOWN_LANGUAGE: no comment style is known for that language; use one the message "
        "lists, or pass comment_line_prefix",
    ):
        assert fact in PROMPT, fact
    string = string_prompt()
    assert len(string) <= MAX_PROMPT_CHARS
    assert (
        "Line numbers count each file as it was when your message began: several line edits of "
        "one\n   file in one message go bottom-up, or in one block; none after a script changed "
        "the file." in string
    )
