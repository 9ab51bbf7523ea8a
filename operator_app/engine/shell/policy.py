"""What the person has decided about commands ahead of time, handed to the engine by a front end
(from the settings file and its own flags): the exact commands always allowed in this workspace,
whether this workspace's commands may use the network, the variables kept even though their
names look secret (and those hidden although they do not), what a command may take (its
limits), and what happens where no sandbox can be had. And `RunGrant`, a yes to one
command that says more than yes (the person let it use the network)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from msgspec import Struct, field

from .limits import Limits


def _never(script: str) -> bool:
    return False


class ShellPolicy(Struct, frozen=True):
    # Whether this exact script is always allowed in this workspace (asked afresh each time, so a
    # rule revoked in the settings holds at once). Sandboxed commands only.
    always_allowed: Callable[[str], bool] = _never
    # Whether such a script was allowed with the network (w on when the person said r).
    allowed_with_network: Callable[[str], bool] = _never
    network: bool = False  # this workspace's commands may use the network
    env_allow: tuple[str, ...] = field(default_factory=tuple)
    # Names or patterns ("ACME_*") of variables left out although their names look harmless.
    env_hide: tuple[str, ...] = field(default_factory=tuple)
    # How much a sandboxed command may take (the settings' shell_limits over the defaults).
    limits: Limits = field(default_factory=Limits.default)
    # Where no sandbox can be had: "refuse" (ERR_NOT_SANDBOXED, nothing runs) or "ask" (the person
    # is told it is not sandboxed, and only an explicit yes runs it).
    unsandboxed: Literal["refuse", "ask"] = "refuse"
    # What a sandboxed command must not see beside the credential stores hidden.py hides itself:
    # the front end's own folders (Operator's settings, with the bridge's pairing token) and the
    # paths the person's settings add (shell_hidden).
    hidden: tuple[str, ...] = ()


class RunGrant(Struct, frozen=True):
    """A yes to a command, with what the person chose in its dialog."""

    network: bool = False


Answer = bool | RunGrant
