"""What a sandboxed command must not see, and how bwrap hides it: the credential stores of the
person's home folder and the system's, the files the environment names as credentials, the
sockets of the person's session (agents, buses, docker, terminals), and the host's runtime
folders. A folder is shown empty (a tmpfs over it), a file empty (/dev/null bound over it). The
lists are data, documented in docs/commands.md ("What a command cannot see"); a person adds a
path of their own with the settings' `shell_hidden` (front ends put it in ShellPolicy.hidden)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .environment import looks_secret_name

# Below the home folder: where keys, tokens and passwords are kept.
CREDENTIAL_STORES = (
    # ssh, gpg, pass and the desktop keyrings
    ".ssh",
    ".gnupg",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    # clouds and clusters
    ".aws",
    ".azure",
    ".kube",
    ".config/gcloud",
    ".oci",
    ".config/doctl",
    ".config/hcloud",
    ".config/linode-cli",
    ".config/rclone",
    ".s3cfg",
    ".boto",
    ".fly",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    ".vault-token",
    ".config/sops",
    # containers
    ".docker",
    ".config/containers/auth.json",
    # forges and package registries
    ".config/gh",
    ".config/glab-cli",
    ".config/hub",
    ".netrc",
    ".authinfo",
    ".authinfo.gpg",
    ".git-credentials",
    ".config/git/credentials",
    ".pypirc",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".m2/settings-security.xml",
    ".config/configstore",
    # databases
    ".pgpass",
    ".my.cnf",
    ".mylogin.cnf",
    # password managers and their agents
    ".config/op",
    ".1password",
    ".config/Bitwarden CLI",
    ".bitwarden-ssh-agent.sock",
    # browsers and mail: cookies, saved passwords
    ".mozilla",
    ".thunderbird",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    # the display's and the session manager's keys (with them, any X client may type into the
    # person's windows)
    ".Xauthority",
    ".ICEauthority",
)
# Below the home folder: sockets that reach a program of the person's session from outside the
# sandbox (an agent that signs, a daemon that runs containers, a terminal that types).
SOCKET_FOLDERS = (
    ".colima",
    ".lima",
    ".rd",
    ".local/share/wezterm",
    ".emacs.d/server",
)
# The system's own secrets, readable by root alone, and so by a command running as root (with
# no capability, uid 0 still owns them): password hashes, host and TLS keys, VPN and Wi-Fi keys,
# cluster credentials.
SYSTEM_SECRETS = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/security/opasswd",
    "/etc/ssl/private",
    "/etc/letsencrypt",
    "/etc/krb5.keytab",
    "/etc/NetworkManager/system-connections",
    "/etc/wireguard",
    "/etc/ipsec.secrets",
    "/etc/ppp/chap-secrets",
    "/etc/ppp/pap-secrets",
    "/etc/kubernetes/admin.conf",
    "/etc/kubernetes/pki",
    "/etc/rancher/k3s/k3s.yaml",
    "/var/lib/tailscale",
)
_HOST_KEYS = re.compile(r"ssh_host_.*_key")  # /etc/ssh's private keys (their .pub stay)

# The same stores where the person moved them: (variable, the store below what it names).
# KUBECONFIG may name several files, separated as PATH is.
RELOCATED_STORES = (
    ("GNUPGHOME", ""),
    ("DOCKER_CONFIG", ""),
    ("KUBECONFIG", ""),
    ("PASSWORD_STORE_DIR", ""),
    ("CLOUDSDK_CONFIG", ""),
    ("AZURE_CONFIG_DIR", ""),
    ("NETRC", ""),
    ("PGPASSFILE", ""),
    ("MYSQL_TEST_LOGIN_FILE", ""),
    ("NPM_CONFIG_USERCONFIG", ""),
    ("REGISTRY_AUTH_FILE", ""),
    ("RCLONE_CONFIG", ""),
    ("BOTO_CONFIG", ""),
    ("OCI_CLI_CONFIG_FILE", ""),
    ("TF_CLI_CONFIG_FILE", ""),
    ("SOPS_AGE_KEY_FILE", ""),
    ("KRB5CCNAME", ""),  # FILE:/path, Kerberos tickets
    ("KRB5_KTNAME", ""),
    ("KRB5_CLIENT_KTNAME", ""),
    ("XAUTHORITY", ""),
    ("ICEAUTHORITY", ""),
    ("CARGO_HOME", "credentials"),
    ("CARGO_HOME", "credentials.toml"),
    ("XDG_CONFIG_HOME", "gcloud"),
    ("XDG_CONFIG_HOME", "gh"),
    ("XDG_CONFIG_HOME", "git/credentials"),
    ("XDG_DATA_HOME", "keyrings"),
)
# Folders that hold the sockets of the machine's and the session's services (D-Bus, systemd,
# docker, ssh and gpg agents, the display): shown empty. $XDG_RUNTIME_DIR is added where it lies
# elsewhere; /var/run is mostly a link to /run.
RUNTIME_FOLDERS = ("/run", "/var/run")


def _named_by_variables(environ: Mapping[str, str]) -> list[Path]:
    """What the environment names: the moved stores, and any absolute path held by a variable
    whose name looks like a secret's (GOOGLE_APPLICATION_CREDENTIALS, AWS_SHARED_CREDENTIALS_FILE,
    SSH_AUTH_SOCK, KRB5CCNAME=FILE:...)."""
    found = []
    for variable, below in RELOCATED_STORES:
        for value in environ.get(variable, "").split(os.pathsep):
            value = value.removeprefix("FILE:")
            if value.strip() and os.path.isabs(value):
                found.append(Path(value) / below if below else Path(value))
    for variable, value in environ.items():
        path = value.removeprefix("FILE:")
        if os.path.isabs(path) and "\n" not in path and looks_secret_name(variable):
            found.append(Path(path))
    return found


def _system_secrets() -> list[Path]:
    found = [Path(path) for path in SYSTEM_SECRETS]
    try:
        found += [entry for entry in Path("/etc/ssh").iterdir() if _HOST_KEYS.fullmatch(entry.name)]
    except OSError:
        pass
    return found


def hidden_paths(
    home: Path | None, extra: Iterable[Path], environ: Mapping[str, str] = os.environ
) -> list[Path]:
    """The credential stores and socket folders in `home`, the system's secrets, what the
    environment names, and the `extra` paths (Operator's folders, the person's own), as they
    are on this disk: only those that exist, each once, links resolved (a mount covers the
    target)."""
    wanted = (
        [home / store for store in (*CREDENTIAL_STORES, *SOCKET_FOLDERS)]
        if home is not None
        else []
    )
    wanted += _system_secrets()
    wanted += _named_by_variables(environ)
    found: list[Path] = []
    for path in [*wanted, *extra]:
        if not os.path.lexists(path.expanduser()):  # most are not there: one lstat says so
            continue
        try:
            real = path.expanduser().resolve(strict=True)
        except (OSError, RuntimeError):
            continue  # not there (or not ours to look into): nothing to hide
        if real not in found:
            found.append(real)
    return found


def runtime_folders(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The runtime folders on this disk, links resolved (/var/run is /run on most systems)."""
    wanted = [Path(folder) for folder in RUNTIME_FOLDERS]
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        wanted.append(Path(runtime))
    wanted.append(Path(f"/run/user/{os.getuid()}"))
    found: list[Path] = []
    for path in wanted:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if real.is_dir() and not any(real == seen or seen in real.parents for seen in found):
            found.append(real)
    return found
