#!/usr/bin/env python3
"""The cost of finding String's ChanFlow blocks (issue 17). Every figure is a ratio against a
baseline measured in the same run, alternately, so load hits both alike:

1. the message scanner (protocol/message/, what the engine runs) over a 200,000-character
   message holding 100 ChanFlow blocks, against the OPERATOR_CMD scanner over a 200,000-character
   message holding 100 OPERATOR_CMD blocks, both fed whole                 (target: within 1.5x)
2. the same two fed in 100-character chunks, `pending` asked after each as the
   engine does for a stream                                               (target: within 1.5x)
3. the message scanner over the OPERATOR_CMD message, against the OPERATOR_CMD
   scanner over it: what looking for the other dialect costs a message
   that has none, fed whole and in chunks                                 (reported)

Run: python benchmarks/bench_chanflow.py [--json] [--smoke]. Exits 1 when a target is missed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.smoke import exit_code, times  # noqa: E402
from operator_app.protocol.chanflow.blocks import ChanBlock  # noqa: E402
from operator_app.protocol.message import MessageScanner  # noqa: E402
from operator_app.protocol.scanner import Scanner  # noqa: E402

SIZE = 200_000
BLOCKS = 100
S = "\U0001d49e"
PROSE = (
    "Let me look at the relevant part of the code first. The function below handles the request "
    "and\nreturns early when the input is empty; we will keep that behaviour and only change the "
    "message.\n```python\ndef handle(request):\n    if not request:\n        return None\n"
    "    return process(request)\n```\n"
)
COMMAND_BLOCK = (
    "OPERATOR_CMD\nversion: 1\nid: read-{n}\naction: fs.readSlice\npath: src/module_{n}.py\n"
    "start: 10\nlines: 40\nEND_OPERATOR_CMD\n"
)
# About the same size as the command block: a one-line read, or a short change with content.
CHAN_BLOCKS = (
    f"<{S}=string:file:code>/open ~/src/module_{{n}}.py:L10-L49</{S}>\n",
    f"<{S}=string:file:code>\n/replace ~/src/module_{{n}}.py:L12-L13\n"
    f"    if not request:\n        return None\n</{S}>\n",
)


def message(block_for: Callable[[int], str]) -> str:
    """Prose the way chat models write it, with BLOCKS blocks spread evenly through SIZE."""
    filler = (SIZE - BLOCKS * len(block_for(100))) // BLOCKS
    parts = []
    for n in range(BLOCKS):
        parts.append((PROSE * (filler // len(PROSE) + 1))[:filler].rsplit("\n", 1)[0] + "\n")
        parts.append(block_for(n))
    text = "".join(parts)
    return text + "x" * max(0, SIZE - len(text))


def chunks(text: str, size: int = 100) -> list[str]:
    return [text[at : at + size] for at in range(0, len(text), size)]


def scanned(kind: type[Scanner], pieces: list[str], ask_pending: bool) -> int:
    scanner = kind()
    found = 0
    for piece in pieces:
        found += len(scanner.feed(piece))
        if ask_pending:
            _ = scanner.pending
    return found + len(scanner.end())


def best_pair(
    a: Callable[[], object], b: Callable[[], object], rounds: int = times(60)
) -> tuple[float, float]:
    best_a = best_b = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        a()
        best_a = min(best_a, time.perf_counter() - start)
        start = time.perf_counter()
        b()
        best_b = min(best_b, time.perf_counter() - start)
    return best_a, best_b


def measure() -> dict[str, float]:
    commands = message(lambda n: COMMAND_BLOCK.format(n=n))
    chan = message(lambda n: CHAN_BLOCKS[n % 2].format(n=n))
    assert len(commands) == len(chan) == SIZE
    found = MessageScanner().feed(chan)
    assert sum(isinstance(e, ChanBlock) for e in found) == BLOCKS, (
        "the message must hold 100 blocks"
    )
    figures: dict[str, float] = {}
    for name, pieces_of, ask in (("whole", lambda t: [t], False), ("chunks", chunks, True)):
        cmd_pieces, chan_pieces = pieces_of(commands), pieces_of(chan)
        base, ours = best_pair(
            partial(scanned, Scanner, cmd_pieces, ask),
            partial(scanned, MessageScanner, chan_pieces, ask),
        )
        figures[f"{name}_operator_cmd_s"], figures[f"{name}_chanflow_s"] = base, ours
        figures[f"{name}_ratio"] = ours / base
        base, ours = best_pair(
            partial(scanned, Scanner, cmd_pieces, ask),
            partial(scanned, MessageScanner, cmd_pieces, ask),
        )
        figures[f"{name}_router_overhead_ratio"] = ours / base
    return figures


def report(figures: dict[str, float]) -> tuple[bool, list[str]]:
    ok = True
    lines = []
    for number, name, label in (
        (1, "whole", "fed whole"),
        (2, "chunks", "in 100-character chunks"),
    ):
        ratio = figures[f"{name}_ratio"]
        passed = ratio <= 1.5
        ok &= passed
        lines.append(
            f"{number}. 100 ChanFlow blocks in 200,000 characters, {label}: "
            f"{figures[f'{name}_chanflow_s'] * 1000:.2f} ms against "
            f"{figures[f'{name}_operator_cmd_s'] * 1000:.2f} ms for 100 OPERATOR_CMD blocks "
            f"= {ratio:.2f}x (target <= 1.5x: {'ok' if passed else 'MISSED'})"
        )
    lines.append(
        "3. looking for ChanFlow in a message of OPERATOR_CMD blocks only: "
        f"{figures['whole_router_overhead_ratio']:.2f}x whole, "
        f"{figures['chunks_router_overhead_ratio']:.2f}x in chunks (reported)"
    )
    return ok, lines


def main() -> int:
    figures = measure()
    ok, lines = report(figures)
    if "--json" in sys.argv:
        print(json.dumps(figures, indent=2))
    print("\n".join(lines))
    return exit_code(ok)


if __name__ == "__main__":
    raise SystemExit(main())
