"""The environment a command gets: the person's own, less what would hand the command a secret or
a way out of its sandbox, unless the person's allow list (`shell_env_allow`) names it; plus
TMPDIR and XDG_CACHE_HOME pointing into the sandbox's private /tmp (the home folder is read-only
there).

Left out (docs/commands.md, "What a command cannot see", has the lists):
- a variable whose name looks like a secret's: a word or an ending such as TOKEN, SECRET, KEY,
  PASSWORD, PWD, AUTH, DSN, JWT, WEBHOOK (`GITHUB_TOKEN`, `MYSQL_PWD`, `SENTRY_DSN`,
  `CI_JOB_JWT`, `SLACK_WEBHOOK_URL`);
- a variable whose value is one: a URL with a password (`redis://:pw@host`, the user may be
  empty) or with a token in its address (a webhook's, a signed URL's), a connection string
  with `Password=` or `AccountKey=`, a key in a well-known format (`ghp_...`, `AKIA...`, a
  private key block);
- a variable that leads to a program of the person's session outside the sandbox: the agents'
  and buses' (`SSH_AUTH_SOCK`, `GPG_AGENT_INFO`, `DBUS_*`, `XDG_RUNTIME_DIR`), docker's
  (`DOCKER_HOST`), the display's and terminals' (`DISPLAY`, `WAYLAND_DISPLAY`, `TMUX`, ...), or
  any whose value is a Unix socket's address or path;
- a variable the person's `shell_env_hide` names (a name or a pattern: `ACME_*`)."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

# Words of a name (split at "_", "-" and ".") that make it a secret's ("GITHUB_TOKEN",
# "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "MYSQL_PWD", "SENTRY_DSN", "CI_JOB_JWT"), and endings
# of names written as one word ("APIKEY", "NPMTOKEN", "SLACKWEBHOOK").
_SECRET_WORDS = frozenset(
    {
        "TOKEN",
        "TOKENS",
        "SECRET",
        "SECRETS",
        "KEY",
        "KEYS",
        "APIKEY",
        "PASSWORD",
        "PASSWD",
        "PASS",
        "PWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "AUTH",
        "COOKIE",
        "PRIVATE",
        "DSN",
        "JWT",
        "WEBHOOK",
        "WEBHOOKS",
    }
)
_SECRET_ENDINGS = (
    "TOKEN",
    "SECRET",
    "APIKEY",
    "PASSWORD",
    "PASSWD",
    "CREDENTIALS",
    "DSN",
    "JWT",
    "WEBHOOK",
    "WEBHOOKURL",
)
# Never secrets, whatever their words: the shell's own.
_KEPT = frozenset({"PWD", "OLDPWD", "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM"})

# Variables that lead out of the sandbox, to a program of the person's session: an agent that
# signs or decrypts, a bus that starts services, docker (root on the host), the display, the
# terminal multiplexer or editor that types into the person's shells, an askpass that asks them.
_HOST_CHANNELS = frozenset(
    {
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "SSH_ASKPASS",
        "GPG_AGENT_INFO",
        "GNOME_KEYRING_CONTROL",
        "XDG_RUNTIME_DIR",
        "DOCKER_HOST",
        "CONTAINER_HOST",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XAUTHORITY",
        "ICEAUTHORITY",
        "SESSION_MANAGER",
        "AT_SPI_BUS_ADDRESS",
        "PULSE_SERVER",
        "PIPEWIRE_REMOTE",
        "NOTIFY_SOCKET",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "KITTY_LISTEN_ON",
        "WEZTERM_UNIX_SOCKET",
        "ALACRITTY_SOCKET",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "SWAYSOCK",
        "I3SOCK",
        "HYPRLAND_INSTANCE_SIGNATURE",
        "GIT_ASKPASS",
    }
)
_HOST_CHANNEL_PREFIXES = ("DBUS_", "VSCODE_IPC_", "VSCODE_GIT_")
_SOCKET_ADDRESS = re.compile(r"(?:unix|npipe):", re.IGNORECASE)

# Values that are secrets whatever their name.
_SECRET_VALUES = (
    # a URL with a password (the user may be empty: redis://:pw@host)
    re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@"),
    # a URL whose user is a token (https://ghp_...@github.com, a Sentry DSN's key)
    re.compile(r"https?://[A-Za-z0-9_.~-]{16,}@", re.IGNORECASE),
    # a URL that carries a token in its query (signed URLs, chat webhooks with a key)
    re.compile(
        r"://[^\s]*[?&](?:access_token|token|api_?key|key|sig|signature|secret|password|"
        r"x-amz-signature|x-goog-signature)=[^&\s]",
        re.IGNORECASE,
    ),
    # webhooks whose address is their key
    re.compile(
        r"://(?:hooks\.slack\.com/(?:services|workflows|triggers)/|(?:[a-z0-9-]+\.)?"
        r"discord(?:app)?\.com/api/webhooks/|[a-z0-9-]+\.webhook\.office\.com/|"
        r"outlook\.office\.com/webhook/|hooks\.zapier\.com/hooks/|api\.telegram\.org/bot|"
        r"maker\.ifttt\.com/trigger/|chat\.googleapis\.com/v1/spaces/)",
        re.IGNORECASE,
    ),
    # connection strings (ADO.NET, ODBC, libpq keywords, Azure)
    re.compile(
        r"(?:^|[;\s])(?:password|pwd|passwd|accountkey|sharedaccesskey|"
        r"sharedaccesssignature)\s*=\s*[^;\s]",
        re.IGNORECASE,
    ),
    # keys in well-known formats
    re.compile(
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}"
        r"|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"
        r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|pypi-[A-Za-z0-9_-]{50,}"
        r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)"
    ),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
)
_VALUE_LOOKED_AT = 65536  # a secret sits at the start of a value, never 64 kB into it
SANDBOX_TMP = {"TMPDIR": "/tmp", "XDG_CACHE_HOME": "/tmp/.cache"}


def looks_secret_name(name: str) -> bool:
    """Whether the name alone says the variable holds a secret (or a file or socket of one)."""
    upper = name.upper()
    if upper in _KEPT:
        return False
    words = [word for word in re.split(r"[_\-.]+", upper) if word]
    return any(word in _SECRET_WORDS for word in words) or upper.endswith(_SECRET_ENDINGS)


def leads_out(name: str, value: str) -> bool:
    """Whether the variable leads to a program of the person's session outside the sandbox: a
    known name, a socket's address, or the path of a socket."""
    if name.upper() in _HOST_CHANNELS or name.upper().startswith(_HOST_CHANNEL_PREFIXES):
        return True
    if _SOCKET_ADDRESS.match(value) or "unix:path=" in value or "unix:abstract=" in value:
        return True
    if value.startswith("/") and "\n" not in value and len(value) < 4096:
        try:
            return stat.S_ISSOCK(os.stat(value).st_mode)
        except (OSError, ValueError):
            return False
    return False


def looks_secret(name: str, value: str = "") -> bool:
    if name.upper() in _KEPT:
        return False
    if looks_secret_name(name) or leads_out(name, value):
        return True
    head = value[:_VALUE_LOOKED_AT]
    return any(pattern.search(head) for pattern in _SECRET_VALUES)


def command_environment(
    environ: Mapping[str, str],
    allow: Iterable[str] = (),
    *,
    sandboxed: bool,
    hide: Iterable[str] = (),
) -> tuple[dict[str, str], list[str]]:
    """(the environment, the names left out, sorted). `allow`: names kept although they look
    secret; `hide`: names or patterns left out although they do not."""
    allowed = set(allow)
    hidden = tuple(hide)
    env: dict[str, str] = {}
    left: list[str] = []
    for name, value in environ.items():
        refused = any(fnmatchcase(name, pattern) for pattern in hidden)
        if refused or (name not in allowed and looks_secret(name, value)):
            left.append(name)
        else:
            env[name] = value
    if sandboxed:
        env.update(SANDBOX_TMP)
    return env, sorted(left)
