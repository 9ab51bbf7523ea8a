"""The README's round trips stay true: each `<!-- sample: DIALECT STEP -->` message is run through
the real `operator-app exec --approve all` on a fresh copy of the demo workspace (the read, then
the write, in one session), and what Operator prints must be the `<!-- answer: ... -->` text the
README shows, byte for byte but for a String response's time. The prose around them is checked
too: what the read's details and the write's edits decode to, and the answer a declined write
gets."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = ROOT / "fixtures" / "demo-workspace"
APP = str(Path(sys.executable).with_name("operator-app"))
FENCED = re.compile(r"<!-- (sample|answer): (\w+) (\w+) -->\n```text\n(.*?)```\n", re.S)
TIME = re.compile(r' time="[^"]*"')


def fenced() -> dict[tuple[str, str, str], str]:
    found = {(kind, dialect, step): text for kind, dialect, step, text in FENCED.findall(README)}
    assert len(found) == 8, sorted(found)  # a read and a write, asked and answered, per dialect
    return found


SAMPLES = fenced()


def exec_message(ws: Path, state: Path, message: str, *approve: str) -> str:
    (state.parent / "message.txt").write_text(message, encoding="utf-8")
    done = subprocess.run(
        [APP, "exec", "--workspace", str(ws), "--state-dir", str(state), *approve]
        + [str(state.parent / "message.txt")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("dialect", ["operator", "string"])
def test_each_round_trip_gives_the_answer_the_readme_shows(dialect: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    for step in ("read", "write"):
        said = exec_message(
            ws, tmp_path / "state", SAMPLES["sample", dialect, step], "--approve", "all"
        )
        shown = SAMPLES["answer", dialect, step]
        assert TIME.sub("", said) == TIME.sub("", shown), f"{dialect} {step}:\n{said}"
    assert (ws / "notes" / "plan.txt").read_text() == "Alpha\nBeta\nGamma\n"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_the_prose_around_the_samples_says_what_they_hold(tmp_path: Path) -> None:
    details = re.search(r"details_b64: (\S+)", SAMPLES["answer", "operator", "read"])
    assert details is not None
    lines = base64.b64decode(details[1]).decode().split("\n")
    assert "decodes it to " + ", ".join(f"`{line}`" for line in lines) + "." in one_line(README)
    edits = re.search(r"edits_b64: (\S+)", SAMPLES["sample", "operator", "write"])
    assert edits is not None
    assert f"`{base64.b64decode(edits[1]).decode()}`" in README
    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    declined = exec_message(
        ws, tmp_path / "state", SAMPLES["sample", "operator", "write"], "--approve", "none"
    )
    summary = re.search(r"summary: (.*)", declined)
    assert summary is not None
    assert f"`ok: false` with `summary: {summary[1]}`" in one_line(README)
