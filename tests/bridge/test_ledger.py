"""The bridge's ledger of page messages: kept across restarts, bounded, and never in the way."""

from __future__ import annotations

from pathlib import Path

from operator_app.bridge import ledger as ledger_module
from operator_app.bridge.ledger import Ledger


def test_what_is_recorded_is_read_back_by_the_next_process(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path)
    ledger.opened(("chat/1", 0), 3)
    ledger.opened(("chat/1", 0), 5)
    ledger.delivered(("chat/1", 0), [3, 5])
    ledger.opened(("chat/1", 1), 6)
    ledger.closed(("chat/1", 1))
    again = Ledger(tmp_path)
    first, second = again.get(("chat/1", 0)), again.get(("chat/1", 1))
    assert (first.messages, first.delivered, first.closed) == ([3, 5], {3, 5}, False)
    assert (second.messages, second.delivered, second.closed) == ([6], set(), True)
    assert again.get(("chat/2", 0)) is None


def test_a_damaged_file_or_entry_costs_only_itself(tmp_path: Path) -> None:
    (tmp_path / ledger_module.FILE_NAME).write_text(
        '{"version": 1, "pages": [{"conversation": "a", "position": "x"}, '
        '{"conversation": "b", "position": 2, "messages": [7], "delivered": []}]}'
    )
    assert Ledger(tmp_path).get(("b", 2)).messages == [7]
    (tmp_path / ledger_module.FILE_NAME).write_text("{torn")
    assert Ledger(tmp_path).get(("b", 2)) is None


def test_only_the_most_recent_pages_are_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ledger_module, "KEPT_PAGES", 3)
    ledger = Ledger(tmp_path)
    for position in range(5):
        ledger.opened(("c", position), position + 1)
    ledger.opened(("c", 2), 9)  # used again: kept
    kept = Ledger(tmp_path)
    assert [key for key in [("c", p) for p in range(5)] if kept.get(key)] == [
        ("c", 2),
        ("c", 3),
        ("c", 4),
    ]


def test_an_unwritable_state_folder_is_no_error(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    ledger = Ledger(missing)
    ledger.opened(("c", 0), 1)  # nothing to write into: remembered for this run only
    assert ledger.get(("c", 0)).messages == [1]
