"""What the TUI tells the engine about the commands a model runs: the person's decisions made
ahead of time, from the settings (the exact commands always allowed in this workspace, whether its
commands may use the network, the variables kept although they look secret; a command without a
sandbox is asked about, in red, never refused outright), and a command dialog's answer as the
engine takes it ("network" is a yes with the network; "always" a yes that also remembers the
exact command for this workspace)."""

from __future__ import annotations

from pathlib import Path

from .. import settings
from ..engine import Limits, RunGrant, ShellPolicy, WritePlan

Answer = bool | RunGrant


def command_policy(root: Path) -> ShellPolicy:
    def always_allowed(script: str) -> bool:
        return script in settings.allowed_commands(root)

    def with_network(script: str) -> bool:
        return script in settings.allowed_with_network(root)

    return ShellPolicy(
        always_allowed=always_allowed,
        allowed_with_network=with_network,
        network=settings.network_allowed(root),
        env_allow=tuple(settings.env_allowed()),
        env_hide=tuple(settings.env_hidden()),
        limits=Limits.from_settings(settings.command_limits()),
        unsandboxed="ask",
        hidden=(str(settings.config_dir()), *settings.hidden_from_commands()),
    )


def command_answer(answer: str, plan: WritePlan, root: Path) -> Answer:
    """The engine's answer for the dialog's: yes, all, network, always(-network), or no."""
    if answer in ("always", "always-network") and plan.run is not None:
        settings.allow_command(root, plan.run.script, network=answer == "always-network")
    if answer in ("network", "always-network"):
        return RunGrant(network=True)
    return answer in ("yes", "all", "always")
