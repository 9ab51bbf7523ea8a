"""A write waiting for the person while its message still arrives: its dialog looks at what the
message's source holds beyond what the engine was fed, again and again (once a second, until the
message ends). Each look scans only what arrived since the last one, never the whole message
again; what it says is what a scan of the whole would say."""

from __future__ import annotations

from pathlib import Path

import pytest

from operator_app.engine import Engine, Session, Workspace, WriteOutlook, WritePlan
from tests.support.blocks import block
from tests.support.scan_meter import scan_meter

PROSE = "A paragraph of the model's explanation, long enough to matter.\n" * 60


def test_each_look_of_a_waiting_write_scans_only_what_arrived_since_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    source = {"ahead": "", "more": True}
    later = [block(f"w{n}", "fs.write", path=f"notes/n{n}.txt", content="x") for n in range(2, 12)]
    looks: list[WriteOutlook] = []

    def decide(plan: WritePlan, outlook: WriteOutlook) -> bool:
        if plan.command_id == "w1":
            # The person thinks while the model writes ten more: the dialog looks again at each.
            assert outlook.now is not None and outlook.open_ended
            for number, write in enumerate(later):
                source["ahead"] += PROSE + write
                source["more"] = number < len(later) - 1
                looks.append(outlook.now())
        return False

    engine = Engine(Workspace(root), Session(tmp_path / "state"), decide=decide)
    run = engine.open_stream(lookahead=lambda: (source["ahead"], source["more"]))
    first = PROSE * 8 + block("w1", "fs.write", path="notes/n1.txt", content="x")
    with scan_meter(monkeypatch) as meter:
        run.feed(first)
        looked = meter.chars
    ahead = source["ahead"]
    assert [look.total for look in looks] == list(range(2, 12))
    assert [write.path for write in looks[-1].rest] == [f"notes/n{n}.txt" for n in range(2, 12)]
    assert looks[-1].open_ended is False and looks[-1].now is None
    # The engine scanned what it was fed; the ten looks together scanned the message once (what
    # was fed, then each arrival): not the whole message at each look, some eleven times.
    assert looked <= 2 * len(first) + len(ahead)
    run.feed(ahead)
    run.end()
    assert [result.id for result in run.results] == [f"w{n}" for n in range(1, 12)]
