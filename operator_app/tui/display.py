"""Small text helpers for what the TUI shows: paths with the home folder as ~, and counts."""

from __future__ import annotations

from pathlib import Path


def pretty_path(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home())) if path != Path.home() else "~"
    except (ValueError, RuntimeError):
        return str(path)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
