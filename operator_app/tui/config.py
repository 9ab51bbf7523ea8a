"""The TUI's own settings, kept in the user's config folder (platformdirs), or in
$OPERATOR_CONFIG_DIR when set (tests point it at a temporary folder): the last workspace used, and
whether the person told us their terminal's own copy (OSC 52) works. A broken or missing settings
file reads as "no settings"; it never stops the app."""

from __future__ import annotations

import json
import os
from pathlib import Path


def config_dir() -> Path:
    override = os.environ.get("OPERATOR_CONFIG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("operator-app"))


def _settings_file() -> Path:
    return config_dir() / "settings.json"


def load_settings() -> dict[str, object]:
    try:
        data = json.loads(_settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_workspace() -> Path | None:
    raw = load_settings().get("last_workspace")
    if isinstance(raw, str) and Path(raw).is_dir():
        return Path(raw)
    return None


def remember_workspace(path: Path) -> None:
    _save("last_workspace", str(path))


def terminal_copy_trusted() -> bool:
    return load_settings().get("terminal_copy_works") is True


def trust_terminal_copy() -> None:
    _save("terminal_copy_works", True)


def _save(key: str, value: object) -> None:
    settings = load_settings()
    settings[key] = value
    folder = config_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = folder / "settings.json.tmp"
        temp.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        os.replace(temp, _settings_file())
    except OSError:
        pass  # a read-only config folder costs the convenience, not the work
