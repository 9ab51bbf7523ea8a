"""The interface text is part of the product: spec/interface.txt must be exactly what the command
models and the error catalog render, plain ASCII, and mention every action, field, alias and
code the app implements; and every ERR_ code in the source must be in the catalog."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from operator_app.protocol import commands as c
from operator_app.protocol.errors import ERROR_CATALOG, ErrorCode
from operator_app.protocol.spec import interface_text, render_spec, system_prompt

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "spec" / "interface.txt").read_text(encoding="ascii")


def test_interface_file_is_what_the_models_render() -> None:
    template = (ROOT / "spec" / "template.txt").read_text(encoding="ascii")
    assert render_spec(template) == SPEC, "run: python -m operator_app.protocol.spec --write"


def test_spec_is_plain_ascii() -> None:
    (ROOT / "spec" / "interface.txt").read_bytes().decode("ascii")


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


def test_get_interface_spec_returns_the_file_and_spec_command_prints_a_prompt() -> None:
    assert interface_text() == SPEC
    done = subprocess.run(
        [sys.executable, "-m", "operator_app", "spec"], capture_output=True, text=True, check=True
    )
    assert done.stdout.rstrip("\n") == system_prompt().rstrip("\n") and SPEC.strip() in done.stdout
    raw = subprocess.run(
        [sys.executable, "-m", "operator_app", "spec", "--raw"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert raw.stdout.rstrip("\n") == SPEC.rstrip("\n")
