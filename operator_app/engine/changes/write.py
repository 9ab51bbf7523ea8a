"""The write path's two steps, for every kind of change (changes/kinds.py): `plan_write` turns a
validated command into the plan the person approves, touching nothing; `commit` makes the
approved plan real, sweeping what a killed commit left first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..boundary.workspace import Workspace
from ..safety.journal import Journal
from ..safety.sweep import sweep_temps
from .kinds import kind_for_action, kind_of_plan
from .outcomes import CommitOutcome
from .plan import WritePlan

if TYPE_CHECKING:
    from ...protocol.commands.base import Command


def plan_write(cmd: Command, ws: Workspace) -> WritePlan:
    return kind_for_action(cmd.action).plan(cmd, ws)


def commit(plan: WritePlan, ws: Workspace, state_dir: Path) -> CommitOutcome:
    if plan.kind == "noop":
        return CommitOutcome(plan.summary, None)
    journal = Journal(state_dir)
    sweep_temps(ws, journal)
    return kind_of_plan(plan).commit(plan, ws, state_dir, journal)
