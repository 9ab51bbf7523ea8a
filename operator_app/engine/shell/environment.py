"""The environment a command gets: the person's own, less the variables whose names look like
secrets (API keys, tokens, passwords, cloud credentials, an SSH agent's socket) and those whose
value is a URL with a password in it, unless the person's allow list names them; plus TMPDIR and
XDG_CACHE_HOME pointing into the sandbox's private /tmp (the home folder is read-only there)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# Words of a name (split at "_" and "-") that make it a secret's ("GITHUB_TOKEN", "AWS_SECRET_
# ACCESS_KEY", "DB_PASSWORD", "SSH_AUTH_SOCK"), and endings of names written as one word
# ("APIKEY", "NPMTOKEN").
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
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "CREDS",
        "AUTH",
        "COOKIE",
        "PRIVATE",
    }
)
_SECRET_ENDINGS = ("TOKEN", "SECRET", "APIKEY", "PASSWORD", "PASSWD", "CREDENTIALS")
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")
# Never secrets, whatever their words: the shell's own.
_KEPT = frozenset({"PWD", "OLDPWD", "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM"})
SANDBOX_TMP = {"TMPDIR": "/tmp", "XDG_CACHE_HOME": "/tmp/.cache"}


def looks_secret(name: str, value: str = "") -> bool:
    upper = name.upper()
    if upper in _KEPT:
        return False
    words = [word for word in re.split(r"[_\-.]+", upper) if word]
    if any(word in _SECRET_WORDS for word in words) or upper.endswith(_SECRET_ENDINGS):
        return True
    return bool(_URL_WITH_PASSWORD.search(value))


def command_environment(
    environ: Mapping[str, str], allow: Iterable[str] = (), *, sandboxed: bool
) -> tuple[dict[str, str], list[str]]:
    """(the environment, the names left out, sorted)."""
    allowed = set(allow)
    env: dict[str, str] = {}
    left: list[str] = []
    for name, value in environ.items():
        if name not in allowed and looks_secret(name, value):
            left.append(name)
        else:
            env[name] = value
    if sandboxed:
        env.update(SANDBOX_TMP)
    return env, sorted(left)
