"""The settings file: private to its owner (it holds the bridge's pairing token), replaced whole,
and a broken one never stops the app; it and the sessions live where platformdirs says."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from operator_app import settings


def test_the_settings_file_is_readable_by_its_owner_only(private_settings: Path) -> None:
    assert settings.save("bridge_port", 47821)
    mode = stat.S_IMODE((private_settings / "settings.json").stat().st_mode)
    assert mode == 0o600
    assert settings.load_settings() == {"bridge_port": 47821}


def test_saving_keeps_the_other_settings_and_leaves_no_temporary_file(
    private_settings: Path,
) -> None:
    settings.save("a", 1)
    settings.update({"b": [2], "a": 3})
    assert settings.load_settings() == {"a": 3, "b": [2]}
    assert [p.name for p in private_settings.iterdir()] == ["settings.json"]


def test_a_broken_settings_file_reads_as_no_settings(private_settings: Path) -> None:
    private_settings.mkdir()
    (private_settings / "settings.json").write_text("{not json")
    assert settings.load_settings() == {}
    assert settings.last_workspace() is None


def test_an_unwritable_config_folder_is_not_an_error(tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("OPERATOR_CONFIG_DIR", str(blocker / "config"))
    assert settings.save("x", 1) is False


def test_secret_paths_are_operators_own_unless_the_settings_name_them(
    private_settings: Path, tmp_path: Path
) -> None:
    """Issue 26: the paths that look like secrets are in the settings, per workspace."""
    shop, blog = tmp_path / "shop", tmp_path / "blog"
    assert settings.secret_paths(shop) == (None, [])
    settings.save(
        "secret_paths",
        {"default": [".env*", "*.key"], str(shop): ["config/prod.yml", "!.env.example", 3]},
    )
    assert settings.secret_paths(shop) == ([".env*", "*.key"], ["config/prod.yml", "!.env.example"])
    assert settings.secret_paths(blog) == ([".env*", "*.key"], [])
    settings.save("secret_paths", "not a table")
    assert settings.secret_paths(shop) == (None, [])


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG folders are read so on Linux only")
@pytest.mark.parametrize(
    "environment",
    [
        {"XDG_CONFIG_HOME": "/x/config", "XDG_STATE_HOME": "/x/state/"},
        {"XDG_CONFIG_HOME": "relative/config", "XDG_STATE_HOME": ""},
        {},
        {"HOME": "/"},
    ],
)
def test_the_config_and_state_homes_are_where_platformdirs_puts_them(
    environment: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read without importing platformdirs on the start of every command (docs/design.md,
    "Start-up"), the folders are the ones platformdirs names, whatever the variables say."""
    from platformdirs import user_config_dir, user_state_dir

    from operator_app.engine.state.session import STATE_APP_NAME, state_home

    for name in ("OPERATOR_CONFIG_DIR", "OPERATOR_STATE_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert settings.config_dir() == Path(user_config_dir("operator-app"))
    assert state_home() == Path(user_state_dir(STATE_APP_NAME))
