"""Operator's own settings: one JSON file in the user's config folder (platformdirs), or in
$OPERATOR_CONFIG_DIR when set (tests and the demo point it at a folder of their own). The TUI keeps
the last workspace and the person's answers there; the bridge keeps its port and pairing token, so
the file is written with mode 0600. A leaf module: every front end may read it, it imports nothing
of Operator. A broken or missing settings file reads as "no settings"; it never stops the app.

What is kept: the last workspace and the RECENT_KEPT before it, whether the terminal's own copy
works, auto-copy (on or off), the dialect whose prompt `p` copies, the Textual theme chosen, the
paths that look like secrets (`secret_paths`: reading one waits for the person's yes), and for the
commands a model runs: the exact commands always allowed per workspace, the workspaces whose
commands may use the network, the variables kept although their names look secret (and those
left out although they do not), the paths hidden from commands beside the known credential
stores, and how much a command may take.
May import: nothing else of operator_app."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

APP_NAME = "operator-app"  # the config folder's name in the person's config home


def config_dir() -> Path:
    override = os.environ.get("OPERATOR_CONFIG_DIR")
    if override:
        return Path(override)
    home = _xdg_home("XDG_CONFIG_HOME", "~/.config")
    if home is not None:
        return Path(home) / APP_NAME
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME))


def _xdg_home(variable: str, default: str) -> str | None:
    """On Linux, the folder platformdirs names for an XDG base directory: the absolute path in
    `variable` ("XDG_CONFIG_HOME"), else `default` under the home folder. Read here, not imported:
    platformdirs brings tempfile, shutil and their compression modules with it, 18 M of the
    instructions of every `exec` (docs/design.md, "Start-up"). None elsewhere, and for a home
    folder that is not an absolute path: platformdirs answers then. engine/state/session.py reads
    the state home the same way (the engine may not import this module); tests/test_settings.py
    holds both to platformdirs' answers."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel"):
        return None
    named = os.environ.get(variable, "")
    if os.path.isabs(named):
        return named
    return os.path.expanduser(default) if os.path.isabs(os.environ.get("HOME", "")) else None


def scratch_dir() -> Path | None:
    """A folder this run's files live in that is removed when the run ends ($OPERATOR_SCRATCH:
    `python3 run.py demo` sets it to its scratch copy, unless --keep), so what Operator saves
    there is not promised to the person as kept."""
    raw = os.environ.get("OPERATOR_SCRATCH")
    return Path(raw) if raw else None


def settings_file() -> Path:
    return config_dir() / "settings.json"


def load_settings() -> dict[str, object]:
    try:
        data = json.loads(settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_workspace() -> Path | None:
    raw = load_settings().get("last_workspace")
    if isinstance(raw, str) and Path(raw).is_dir():
        return Path(raw)
    return None


RECENT_KEPT = 10  # workspaces the picker lists, as the original desktop app keeps


def recent_workspaces() -> list[Path]:
    """The workspaces opened last, most recent first (at most RECENT_KEPT)."""
    settings = load_settings()
    raw = settings.get("recent_workspaces")
    if not isinstance(raw, list):  # settings from before the list was kept
        raw = (
            [settings["last_workspace"]] if isinstance(settings.get("last_workspace"), str) else []
        )
    return [Path(item) for item in raw if isinstance(item, str)][:RECENT_KEPT]


def remember_workspace(path: Path) -> None:
    recent = [str(path)] + [str(item) for item in recent_workspaces() if item != path]
    update({"last_workspace": str(path), "recent_workspaces": recent[:RECENT_KEPT]})


def terminal_copy_trusted() -> bool:
    return load_settings().get("terminal_copy_works") is True


def trust_terminal_copy() -> None:
    save("terminal_copy_works", True)


def auto_copy() -> bool:
    """Copy a message's result blocks as soon as its last result is in (off unless turned on)."""
    return load_settings().get("auto_copy") is True


def set_auto_copy(on: bool) -> bool:
    return save("auto_copy", on)


def prompt_dialect() -> str:
    """The name of the dialect whose system prompt `p` copies, as the settings keep it ("" when
    they name none; the TUI takes the table's default for a name it does not know)."""
    chosen = load_settings().get("prompt_dialect")
    return chosen if isinstance(chosen, str) else ""


def set_prompt_dialect(dialect: str) -> bool:
    return save("prompt_dialect", dialect)


def theme() -> str | None:
    """The Textual theme the person chose last (None: the app's default)."""
    name = load_settings().get("theme")
    return name if isinstance(name, str) and name else None


def remember_theme(name: str) -> bool:
    return save("theme", name)


def secret_paths(workspace: Path) -> tuple[list[str] | None, list[str]]:
    """The paths that look like secrets, as the person set them (engine/boundary/secrets.py
    reads them): the patterns for every workspace (None: Operator's own list) and those added for
    `workspace`. In the settings file:

        "secret_paths": {"default": [".env*", "*.pem", ...], "/home/me/shop": ["config/prod.yml"]}

    Each pattern is gitignore's: `!` exempts what an earlier one caught ("!.env.example")."""
    raw = load_settings().get("secret_paths")
    if not isinstance(raw, dict):
        return None, []

    def patterns(value: object) -> list[str] | None:
        if not isinstance(value, list):
            return None
        return [item for item in value if isinstance(item, str)]

    everywhere = patterns(raw.get("default"))
    here = patterns(raw.get(str(workspace))) or patterns(raw.get(os.path.realpath(workspace)))
    return everywhere, here or []


# --- commands the model runs (engine/shell) --------------------------------------------------


def _by_workspace(key: str) -> dict[str, object]:
    raw = load_settings().get(key)
    return raw if isinstance(raw, dict) else {}


def allowed_commands(workspace: Path) -> list[str]:
    """The exact scripts always allowed to run in `workspace` (sandboxed, without asking)."""
    rules = _by_workspace("shell_allowed").get(str(workspace))
    return [rule for rule in rules if isinstance(rule, str)] if isinstance(rules, list) else []


def allowed_with_network(workspace: Path) -> list[str]:
    """Of those, the scripts allowed with the network (the person had turned it on, w, when they
    said r)."""
    rules = _by_workspace("shell_allowed_network").get(str(workspace))
    return [rule for rule in rules if isinstance(rule, str)] if isinstance(rules, list) else []


def allow_command(workspace: Path, script: str, *, network: bool = False) -> bool:
    """Always allow this exact script in `workspace` from now on (`network`: with the network,
    as the person allowed it in the dialog; without, a rule given earlier with it is narrowed)."""
    rules = _by_workspace("shell_allowed")
    mine = allowed_commands(workspace)
    if script not in mine:
        mine.append(script)
    saved = save("shell_allowed", {**rules, str(workspace): mine})
    with_network = [rule for rule in allowed_with_network(workspace) if rule != script]
    if network:
        with_network.append(script)
    return _save_for(workspace, "shell_allowed_network", with_network) and saved


def revoke_command(workspace: Path, script: str) -> bool:
    mine = [rule for rule in allowed_commands(workspace) if rule != script]
    with_network = [rule for rule in allowed_with_network(workspace) if rule != script]
    saved = _save_for(workspace, "shell_allowed", mine)
    return _save_for(workspace, "shell_allowed_network", with_network) and saved


def _save_for(workspace: Path, key: str, rules: list[str]) -> bool:
    """`key`'s list for `workspace`, the entry dropped when it is empty."""
    rest = {name: value for name, value in _by_workspace(key).items() if name != str(workspace)}
    return save(key, {**rest, **({str(workspace): rules} if rules else {})})


def all_allowed_commands() -> dict[str, list[str]]:
    """workspace -> its always-allowed scripts, for listing them all."""
    return {
        key: [rule for rule in value if isinstance(rule, str)]
        for key, value in _by_workspace("shell_allowed").items()
        if isinstance(value, list) and value
    }


def network_allowed(workspace: Path) -> bool:
    """Commands in `workspace` may use the network (off unless the person turned it on)."""
    return _by_workspace("shell_network").get(str(workspace)) is True


def set_network_allowed(workspace: Path, on: bool) -> bool:
    rules = {k: v for k, v in _by_workspace("shell_network").items() if k != str(workspace)}
    return save("shell_network", {**rules, **({str(workspace): True} if on else {})})


def env_allowed() -> list[str]:
    """Variables a command keeps although their names look like secrets ("MY_PUBLIC_KEY")."""
    raw = load_settings().get("shell_env_allow")
    return [name for name in raw if isinstance(name, str)] if isinstance(raw, list) else []


def env_hidden() -> list[str]:
    """Variables (names or patterns: "ACME_*") a command never gets, though their names look
    harmless."""
    raw = load_settings().get("shell_env_hide")
    return [name for name in raw if isinstance(name, str)] if isinstance(raw, list) else []


def hidden_from_commands() -> list[str]:
    """Paths a command sees empty besides the credential stores Operator knows ("~/work/keys"):
    `shell_hidden`, each with ~ for the home folder."""
    raw = load_settings().get("shell_hidden")
    found = []
    for path in raw if isinstance(raw, list) else []:
        if isinstance(path, str) and path.strip():
            expanded = os.path.expanduser(path.strip())
            if os.path.isabs(expanded):
                found.append(expanded)
    return found


def command_limits() -> object:
    """The settings' `shell_limits` as written (the engine's Limits.from_settings reads it)."""
    return load_settings().get("shell_limits")


def save(key: str, value: object) -> bool:
    """Set one setting; False when the file could not be written (a read-only config folder costs
    the convenience, not the work)."""
    return update({key: value})


def update(values: dict[str, object]) -> bool:
    import tempfile  # (only here: every `exec` reads the settings, none writes them)

    settings = load_settings()
    settings.update(values)
    folder = config_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A pairing token lives here: the file is never readable by others, not even for the
        # moment between its creation and a chmod (mkstemp creates it 0600).
        handle, temp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(settings, out, indent=2)
            os.replace(temp, settings_file())
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        return False
    return True
