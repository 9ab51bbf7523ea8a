"""What the prompts promise of a command's exit status (issue 33, item 7), through the real
`operator-app exec`: scripts run with `set -o pipefail`, so a test run piped into `tail` reports
the tests' failure, in shell.run and in a String bash topic alike; a pipe that succeeds is 0."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_shell import sandbox_or_skip
from tests.support.blocks import block
from tests.support.string_exec import Workspace, chan

FAILING_TESTS = "printf 'test_a PASSED\\ntest_b FAILED\\n'; exit 3"


def test_a_failing_command_piped_into_tail_reports_its_failure(tmp_path: Path) -> None:
    sandbox_or_skip()
    w = Workspace(tmp_path, {"run_tests.sh": FAILING_TESTS + "\n"})
    run = w.exec(
        block("p1", "shell.run", command="bash run_tests.sh | tail -n 1")
        + block("p2", "shell.run", command="bash run_tests.sh | tail -n 1; echo after")
        + block("p3", "shell.run", command="printf 'ok\\n' | tail -n 1")
        + chan("bash run_tests.sh | tail -n 1", "bash:dev")
    )
    failed, went_on, fine, topic = run.results
    assert failed["ok"] and failed["details"].startswith("# exit: 3 |"), failed["details"]
    assert failed["details"].rstrip("\n").endswith("test_b FAILED")
    # pipefail is not errexit: the script goes on, and its last command's status is the exit.
    assert went_on["details"].startswith("# exit: 0 |") and "after" in went_on["details"]
    assert fine["details"].startswith("# exit: 0 |")
    assert topic["ok"] and topic["summary"].startswith("exit: 3 | cwd: ~"), topic


def test_the_bash_topic_help_says_scripts_run_with_pipefail(tmp_path: Path) -> None:
    w = Workspace(tmp_path)
    helped = w.exec(chan("//help", "bash:dev")).one
    assert helped["ok"], helped
    text = helped["summary"] + (helped["details"] or "")
    assert "set -o pipefail" in text and "first and last 100 lines" in text
