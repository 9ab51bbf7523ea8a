"""What the README and docs/*.md show stays true (issue 36): every message sample and its answer,
every command line, every figure.

- Each `<!-- sample: GROUP STEP -->` message is run through the real `operator-app exec
  --approve all` on a fresh copy of the demo workspace (a group's steps in one session, in the
  order the page gives them), and what Operator prints must be the `<!-- answer: ... -->` text
  the page shows, byte for byte but for a String response's time and a command's seconds (in
  the summary, and in the details its base64 carries). Every fenced block that holds a message
  (an `OPERATOR_CMD` line, a `<𝒞=string:...>` block) is such a sample, and every sample has its
  answer: a sample that does not paste (a marker beside other text, two blocks side by side)
  cannot hide in a page. Where prose says what a sample's base64 decodes to, it is checked too.
- Each `operator-app` command line is read by the real command line's parser (a synopsis, with
  its [options], option by option), and the README's own, with its placeholders filled in, is
  run as written in a shell (`~` a scratch home).
- A figure about the prompt ("under 8,000 characters") is checked against the prompt, and no page
  gives a count that goes stale (the number of tests)."""

from __future__ import annotations

import base64
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEXT = {page: page.read_text(encoding="utf-8") for page in PAGES}
DEMO = ROOT / "fixtures" / "demo-workspace"
APP = str(Path(sys.executable).with_name("operator-app"))
MARKED = re.compile(r"<!-- (sample|answer): (\w+) (\w+) -->\n```text\n(.*?)```\n", re.S)
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```$", re.S | re.M)
TIME = re.compile(r' time="[^"]*"')
SECONDS = re.compile(r"\b\d+\.\d s\b")
SIGIL = "\U0001d49e"


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def marked() -> dict[tuple[str, str], list[tuple[str, str, str]]]:
    """(page, group) -> [(step, sample, answer)] in the page's order."""
    groups: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
    for page in PAGES:
        for kind, group, step, text in MARKED.findall(TEXT[page]):
            steps = groups.setdefault((name(page), group), {})
            steps.setdefault(step, {})[kind] = text
    found = {}
    for key, steps in groups.items():
        for step, texts in steps.items():
            assert set(texts) == {"sample", "answer"}, f"{key} {step}: a sample without its answer"
        found[key] = [(step, texts["sample"], texts["answer"]) for step, texts in steps.items()]
    return found


SAMPLES = marked()


def holds_a_message(text: str) -> bool:
    return any(
        line.strip() == "OPERATOR_CMD" or line.lstrip().startswith(f"<{SIGIL}=string:")
        for line in text.split("\n")
    )


def test_every_message_a_page_shows_is_a_sample_with_its_answer() -> None:
    samples = {
        text
        for steps in SAMPLES.values()
        for _, sample, answer in steps
        for text in (sample, answer)
    }
    unmarked = [
        f"{name(page)}: {fence.group(1)[:60]!r}"
        for page in PAGES
        for fence in FENCE.finditer(TEXT[page])
        if holds_a_message(fence.group(1)) and fence.group(1) not in samples
    ]
    assert unmarked == []
    assert ("README.md", "operator") in SAMPLES and ("docs/commands.md", "greet") in SAMPLES


def needs_sandbox() -> None:
    from operator_app.engine import find_sandbox

    sandbox = find_sandbox()
    if sandbox.usable:
        return
    if os.environ.get("CI") == "true" and sys.platform.startswith("linux"):
        pytest.fail(f"no sandbox on CI's Linux: {sandbox.why}")
    pytest.skip(f"no sandbox on this machine: {sandbox.why}")


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


def comparable(answer: str) -> str:
    """An answer without what differs from run to run: a String response's time, a command's
    seconds (also inside the base64 of its details, shown decoded)."""

    def decoded(match: re.Match[str]) -> str:
        return "details: " + base64.b64decode(match[1]).decode("utf-8")

    answer = re.sub(r"^details_b64: (\S+)$", decoded, TIME.sub("", answer), flags=re.M)
    return SECONDS.sub("N s", answer)


@pytest.mark.parametrize(("page", "group"), sorted(SAMPLES))
def test_each_sample_gives_the_answer_its_page_shows(page: str, group: str, tmp_path: Path) -> None:
    steps = SAMPLES[page, group]
    if any("shell.run" in text or ":bash:" in text for _, text, _ in steps):
        needs_sandbox()
    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    for step, sample, answer in steps:
        said = exec_message(ws, tmp_path / "state", sample, "--approve", "all")
        assert comparable(said) == comparable(answer), f"{page} {group} {step}:\n{said}"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_what_the_prose_says_a_sample_decodes_to_is_what_it_holds() -> None:
    """ "... decodes it to `# path: notes/plan.txt`, `# lines: ...`": the lines of the base64 of
    the nearest answer before it (its first lines: a command's output may follow)."""
    checked = 0
    for page in PAGES:
        text = one_line(TEXT[page])
        for said in re.finditer(r"decodes?(?: it)? to ((?:`[^`]+`(?:, )?)+)", text):
            before = re.findall(r"details_b64: (\S+)", text[: said.start()])
            assert before, f"{name(page)}: {said[0]!r} follows no details_b64"
            lines = base64.b64decode(before[-1]).decode("utf-8").split("\n")
            quoted = re.findall(r"`([^`]+)`", said[1])
            assert quoted == lines[: len(quoted)], f"{name(page)}: {quoted} != {lines}"
            checked += 1
    assert checked >= 2


def test_the_edits_the_protocol_page_quotes_are_its_samples() -> None:
    text = TEXT[ROOT / "docs" / "protocol.md"]
    [(_, write, _)] = [s for s in SAMPLES["docs/protocol.md", "operator"] if s[0] == "write"]
    edits = re.search(r"edits_b64: (\S+)", write)
    assert edits is not None
    assert f"`{base64.b64decode(edits[1]).decode()}`" in text


def test_a_declined_write_gets_the_answer_the_protocol_page_gives(tmp_path: Path) -> None:
    [(_, write, _)] = [s for s in SAMPLES["docs/protocol.md", "operator"] if s[0] == "write"]
    ws = tmp_path / "ws"
    shutil.copytree(DEMO, ws)
    declined = exec_message(ws, tmp_path / "state", write, "--approve", "none")
    summary = re.search(r"summary: (.*)", declined)
    assert summary is not None
    assert f"`ok: false` with `summary: {summary[1]}`" in one_line(
        TEXT[ROOT / "docs" / "protocol.md"]
    )


# --- command lines ------------------------------------------------------------------------------

SPAN = re.compile(r"`(operator-app(?: [^`]*)?)`")


def command_lines() -> Iterator[tuple[str, str]]:
    """(page, line) of every `operator-app` command line: in `code`, and in fenced blocks (a
    synopsis continued on the next line joined to it; a shell comment left out)."""
    for page in PAGES:
        text = TEXT[page]
        for fence in FENCE.finditer(text):
            lines = fence.group(1).split("\n")
            for index, line in enumerate(lines):
                if not line.startswith("operator-app"):
                    continue
                while line.count("[") > line.count("]") or (
                    index + 1 < len(lines) and lines[index + 1].startswith(" " * 10)
                ):
                    index += 1
                    line += " " + lines[index].strip()
                yield name(page), line.split("  #")[0].strip()
        for span in SPAN.finditer(text):
            yield name(page), " ".join(span[1].split())


def parser() -> Any:
    from operator_app import entry
    from operator_app.cli.parser import command_line
    from operator_app.tui.launch import add_options

    return command_line(
        options=add_options,
        sub_commands={n: c.declare for n, c in entry.SUB_COMMANDS.items()},
    )


FILLED = {
    "DIR": "/tmp",
    "N": "2",
    "FILE": "message.txt",
    "MESSAGE_FILE": "message.txt",
    "PORT": "47821",
}


def test_every_command_line_the_pages_show_is_one_operator_app_takes() -> None:
    """A synopsis (`operator-app undo [--steps N | --list]`) names only options its sub-command
    has; a command line parses as written (a placeholder such as DIR filled in), or, a part of
    one named in the prose, lacks only what the command requires."""
    import argparse

    from operator_app.cli.parser import UsageError

    whole = parser()
    subs = next(a for a in whole._actions if isinstance(a, argparse._SubParsersAction)).choices
    seen = 0
    for page, line in command_lines():
        words = shlex.split(line.replace("|", " | "))[1:]
        sub = words[0] if words and words[0] in subs else None
        own = subs[sub] if sub else whole
        if len(words) <= 1:  # `operator-app exec`: the command named, not a line to type
            assert not words or sub is not None, f"{page}: {line}"
        elif "[" in line or "..." in line:  # a synopsis: each option it names
            for option in re.findall(r"--[a-z-]+", line):
                assert option in own._option_string_actions, f"{page}: {line}: {option}"
        else:
            try:
                whole.parse_args([FILLED.get(word, word) for word in words])
            except UsageError as exc:
                # Only a part named in the prose (`operator-app exec --json`) may leave out what
                # the command requires; what it names is the command's, as it names it.
                assert "the following arguments are required" in str(exc), f"{page}: {line}: {exc}"
                for option in re.findall(r"--[a-z-]+", line):
                    assert option in own._option_string_actions, f"{page}: {line}: {option}"
        seen += 1
    assert seen >= 20


def shell(line: str, home: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A line of the README as a person types it into bash, with the path it names in place of
    /path/to/operator and their home in scratch."""
    venv = Path(sys.executable).parent.parent
    line = line.replace("/path/to/operator/.venv", str(venv)).replace(
        "/path/to/operator", str(ROOT)
    )
    return subprocess.run(
        ["bash", "-c", line],
        capture_output=True,
        text=True,
        env=dict(env, HOME=str(home), PATH=f"{Path(APP).parent}{os.pathsep}{env['PATH']}"),
        stdin=subprocess.DEVNULL,
        cwd=home,
    )


README = TEXT[ROOT / "README.md"]


def readme_lines(start: str) -> list[str]:
    """The command lines of the README's shell blocks that start so, in its order (their shell
    comments left out)."""
    return [
        line.split("  #")[0].strip()
        for fence in FENCE.finditer(README)
        for line in fence.group(1).split("\n")
        if line.startswith(start)
    ]


@pytest.fixture
def home(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A scratch home with ~/code/project (a copy of the demo workspace) and Operator's folders
    in scratch."""
    home = tmp_path / "home"
    shutil.copytree(DEMO, home / "code" / "project")
    env = dict(
        os.environ,
        OPERATOR_CONFIG_DIR=str(tmp_path / "config"),
        OPERATOR_STATE_DIR=str(tmp_path / "state"),
        OPERATOR_TRASH="session",
    )
    yield home, env


def test_the_readme_command_lines_of_the_companions_run_as_written(
    home: tuple[Path, dict[str, str]],
) -> None:
    """After an exec made a change in ~/code/project, each of the README's `results` and `undo`
    lines, in its order, does what its comment says; and its `spec` and `bridge` ones too."""
    folder, env = home
    project = folder / "code" / "project"
    (folder / "m.txt").write_text(
        "OPERATOR_CMD\nversion: 1\nid: w1\naction: fs.write\npath: a.txt\ncontent: one\n"
        "END_OPERATOR_CMD\n"
    )
    made = shell("operator-app exec --workspace ~/code/project --approve all m.txt", folder, env)
    assert made.returncode == 0 and "ok: true" in made.stdout, made.stderr
    lines = readme_lines("operator-app results") + readme_lines("operator-app undo")
    assert len(lines) == 3, lines
    for line in lines:
        done = shell(line, folder, env)
        assert done.returncode == 0, f"{line}: {done.stderr}"
        if " results " in line:
            assert done.stdout == made.stdout
        elif "--list" in line:
            assert "fs.write a.txt (w1" in done.stdout and (project / "a.txt").exists()
        else:
            assert (
                done.stdout == "Removed a.txt, which w1 (fs.write) created\n"
                or not (project / "a.txt").exists()
            ), done.stdout
    assert not (project / "a.txt").exists()
    inline = {line for page, line in command_lines() if page == "README.md"}
    assert {"operator-app spec", "operator-app bridge --extension-dir"} <= inline, inline
    prompt = shell("operator-app spec", folder, env)
    assert prompt.stdout == (ROOT / "spec" / "prompt.txt").read_text(encoding="utf-8")
    extension = shell("operator-app bridge --extension-dir", folder, env)
    assert (Path(extension.stdout.strip()) / "manifest.json").is_file(), extension.stderr


def test_the_readme_activation_line_puts_operator_app_on_the_path(
    home: tuple[Path, dict[str, str]],
) -> None:
    folder, env = home
    line = re.search(r"`(\. /path/to/operator/\.venv/bin/activate)`", README)
    assert line is not None
    found = shell(line[1] + " && command -v operator-app", folder, dict(env, PATH="/usr/bin:/bin"))
    assert found.returncode == 0 and found.stdout.strip() == APP, found.stderr


def test_run_py_test_hands_what_follows_to_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python3 run.py test --lf`, as the README shows it (running it here would run the suite
    inside itself): what follows `test` goes to pytest as it is."""
    import importlib.util

    assert "`python3 run.py test --lf`" in README
    spec = importlib.util.spec_from_file_location("run_py", ROOT / "run.py")
    assert spec is not None and spec.loader is not None
    run_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run_py)
    called: list[list[str]] = []
    monkeypatch.setattr(run_py.subprocess, "call", lambda argv, **_: called.append(argv) or 0)
    assert run_py.test(["--lf"]) == 0
    assert called == [[str(run_py.PYTHON), "-m", "pytest", "-n", "auto", "--lf"]]


# --- the ready sample for one's own project -----------------------------------------------------

FIRST_LOOK = ROOT / "fixtures" / "messages" / "first-look.txt"


@pytest.mark.parametrize("project", ["empty", "demo", "nested"])
def test_the_first_look_sample_works_in_any_folder(project: str, tmp_path: Path) -> None:
    """Every command of it succeeds whatever the folder holds, and its one write is undone."""
    ws = tmp_path / "ws"
    if project == "demo":
        shutil.copytree(DEMO, ws)
    else:
        ws.mkdir()
    if project == "nested":
        (ws / "a" / "b" / "c").mkdir(parents=True)
        (ws / "a" / "b" / "c" / "notes.md").write_text("# TODO: everything\n")
        (ws / "binary.bin").write_bytes(bytes(range(256)))
    before = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    said = exec_message(ws, tmp_path / "state", FIRST_LOOK.read_text(), "--approve", "all")
    assert said.count("ok: true") == 5 and "ok: false" not in said, said
    assert (ws / "operator-first-look.txt").read_text().startswith("Written by Operator's")
    undone = subprocess.run(
        [APP, "undo", "--workspace", str(ws), "--state-dir", str(tmp_path / "state")],
        capture_output=True,
        text=True,
    )
    assert undone.returncode == 0, undone.stderr
    assert sorted(p.relative_to(ws) for p in ws.rglob("*")) == before


@pytest.mark.asyncio
async def test_the_readme_line_opens_the_tui_with_the_first_look_asking(
    home: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's `operator-app --workspace ~/code/project --message .../first-look.txt`,
    through the real entry point: its three reads answered, its write asking."""
    from operator_app import entry
    from operator_app.tui.app import OperatorApp
    from tests.support.pilot import asks, wait_for

    folder, env = home
    [line] = readme_lines("operator-app --workspace ~/code/project --message")
    argv = shlex.split(line.replace("~", str(folder)).replace("/path/to/operator", str(ROOT)))
    for variable in ("OPERATOR_CONFIG_DIR", "OPERATOR_STATE_DIR", "OPERATOR_TRASH"):
        monkeypatch.setenv(variable, env[variable])
    opened: list[OperatorApp] = []
    monkeypatch.setattr(OperatorApp, "run", lambda self, **_: opened.append(self))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    assert entry.main(argv[1:]) == 0
    [app] = opened
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: asks(app), timeout=60)
        assert app.screen.plan.target.rel == "operator-first-look.txt"
        said = str(app.screen.before)
        assert said.startswith("Answered before it: 3 reads (3 ✓ ok)")


# --- figures --------------------------------------------------------------------------------------


def test_the_figures_about_the_prompts_are_true() -> None:
    """ "under 8,000 characters" is the compact prompt's bound, "under 6,000" String's: each such
    figure, wherever a page gives it, is checked against the prompt it is about."""
    from operator_app.protocol import dialect_named

    sizes = {
        "operator": len(dialect_named("operator").prompt()),
        "string": len(dialect_named("string").prompt()),
    }
    checked = 0
    for page in PAGES:
        text = one_line(TEXT[page])
        for figure in re.finditer(r"under ([\d,]+) characters", text):
            about = (
                "string"
                if "string.txt" in text[figure.start() - 80 : figure.start()]
                else "operator"
            )
            assert sizes[about] < int(figure[1].replace(",", "")), (name(page), figure[0], about)
            checked += 1
    assert checked >= 4


def test_no_page_gives_a_count_that_goes_stale() -> None:
    """The number of tests, or a prompt's exact length, changes with every other commit: a page
    says a bound a test checks (above), or nothing."""
    stale = re.compile(
        r"\b\d[\d,]* (?:tests|test files)\b|prompt, [\d,]+ characters|\(\d[\d,]* characters"
    )
    found = [
        (name(page), match[0])
        for page in PAGES
        if page.name != "benchmarks.md"  # its figures are measurements, each with its date
        for match in stale.finditer(one_line(TEXT[page]))
    ]
    assert found == []
