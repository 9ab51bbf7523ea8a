"""The seccomp filter a sandboxed command runs under: the system calls its namespaces and its lack
of capabilities do not already cover, refused. Built with libseccomp (through `pyseccomp`, ctypes
over the system's libseccomp.so.2, the API of libseccomp's own Python bindings) and handed to
bwrap as a compiled BPF program (`--seccomp FD`), which loads it just before the command starts.

Why each is refused (docs/commands.md, "What the filter refuses"): the kernel keyring is shared
by every process of the person's login session, namespaces or not (keyctl, add_key, request_key:
the command has no keyring at all); ptrace and the calls that read or write another process's
memory or descriptors; the mount family and namespace creation, which the dropped capabilities
refuse already (a second wall for root, the user that keeps them everywhere else); kernel
facilities that are large attack surfaces and that a test run never needs (bpf, perf_event_open,
io_uring, userfaultfd); loading kernel code (kexec, modules); a vsock socket, which reaches the
virtual machine's host past any network namespace; and TIOCSTI/TIOCLINUX, which type into a
terminal. A facility a kernel may lack answers ENOSYS ("not built in"), for which programs have a
fallback (glibc's clone3 falls back to clone, liburing users to epoll); an operation that needs
a privilege answers EPERM, as the kernel itself would.

Where libseccomp is not installed the filter cannot be built; `FilterUnavailable` says why, and
the sandbox runs without it and says so (sandbox.py)."""

from __future__ import annotations

import errno
import tempfile
from functools import cache
from typing import Any

# (system call, errno it answers)
_NOT_BUILT_IN = errno.ENOSYS
_NOT_PERMITTED = errno.EPERM
REFUSED: tuple[tuple[str, int], ...] = (
    # the kernel keyring: shared by the whole login session
    ("keyctl", _NOT_BUILT_IN),
    ("add_key", _NOT_BUILT_IN),
    ("request_key", _NOT_BUILT_IN),
    # other processes' memory and descriptors
    ("ptrace", _NOT_PERMITTED),
    ("process_vm_readv", _NOT_PERMITTED),
    ("process_vm_writev", _NOT_PERMITTED),
    ("pidfd_getfd", _NOT_PERMITTED),
    # the mount family
    ("mount", _NOT_PERMITTED),
    ("umount2", _NOT_PERMITTED),
    ("pivot_root", _NOT_PERMITTED),
    ("chroot", _NOT_PERMITTED),
    ("move_mount", _NOT_PERMITTED),
    ("open_tree", _NOT_PERMITTED),
    ("fsopen", _NOT_PERMITTED),
    ("fsmount", _NOT_PERMITTED),
    ("fsconfig", _NOT_PERMITTED),
    ("fspick", _NOT_PERMITTED),
    ("mount_setattr", _NOT_PERMITTED),
    # joining another process's namespaces (new ones: NAMESPACE_FLAGS below)
    ("setns", _NOT_PERMITTED),
    # clone3 takes its flags in memory a filter cannot read: glibc falls back to clone
    ("clone3", _NOT_BUILT_IN),
    # large kernel attack surfaces a test run does not need
    ("bpf", _NOT_BUILT_IN),
    ("perf_event_open", _NOT_BUILT_IN),
    ("io_uring_setup", _NOT_BUILT_IN),
    ("io_uring_enter", _NOT_BUILT_IN),
    ("io_uring_register", _NOT_BUILT_IN),
    ("userfaultfd", _NOT_BUILT_IN),
    # kernel code and the machine itself
    ("kexec_load", _NOT_PERMITTED),
    ("kexec_file_load", _NOT_PERMITTED),
    ("init_module", _NOT_PERMITTED),
    ("finit_module", _NOT_PERMITTED),
    ("delete_module", _NOT_PERMITTED),
    ("reboot", _NOT_PERMITTED),
    ("swapon", _NOT_PERMITTED),
    ("swapoff", _NOT_PERMITTED),
    ("acct", _NOT_PERMITTED),
    ("syslog", _NOT_PERMITTED),
    # opening any file of a file system by its handle (the "shocker" container escape)
    ("open_by_handle_at", _NOT_PERMITTED),
)
# unshare and clone refused when they would make a namespace (a new user namespace is refused
# by bwrap's --disable-userns as well; the others need a capability the command has not).
NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
# ioctl requests that push input into a terminal (TIOCSTI) or reach the console (TIOCLINUX);
# compared on their low 32 bits, as the kernel reads them (CVE-2019-10063).
TERMINAL_IOCTLS = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}
AF_VSOCK = 40
_UNKNOWN_TO_LIBSECCOMP = -1  # __NR_SCMP_ERROR: a name this libseccomp has never heard of


class FilterUnavailable(Exception):
    """The filter cannot be built here; the message says why and what would fix it."""


def _library() -> Any:
    try:
        import pyseccomp
    except ImportError:
        raise FilterUnavailable(
            "the pyseccomp package is not installed (pip install pyseccomp)"
        ) from None
    except (RuntimeError, OSError):  # it loads libseccomp when imported
        raise FilterUnavailable(
            "libseccomp is not installed (Debian, Ubuntu: apt install libseccomp2; Fedora: "
            "dnf install libseccomp)"
        ) from None
    return pyseccomp


def _compat_arches(lib: Any) -> tuple[int, ...]:
    """The other ABIs a process of this machine can call the kernel through: each gets the same
    rules (a 32-bit call is another number for the same operation); any other is killed."""
    native = lib.system_arch()
    if native == lib.Arch.X86_64:
        return (lib.Arch.X86, lib.Arch.X32)
    if native == lib.Arch.AARCH64:
        return (lib.Arch.ARM,)
    return ()


def _build() -> tuple[bytes, tuple[str, ...]]:
    lib = _library()
    program = lib.SyscallFilter(lib.ALLOW)
    for arch in _compat_arches(lib):
        try:
            program.add_arch(arch)
        except OSError:  # a libseccomp or kernel without that ABI: nothing to cover
            pass
    unknown: list[str] = []

    def refuse(name: str, answer: int, *args: Any) -> None:
        if lib.resolve_syscall(lib.Arch.NATIVE, name) == _UNKNOWN_TO_LIBSECCOMP:
            unknown.append(name)  # newer than this libseccomp: not_filtered() tells
            return
        program.add_rule(lib.ERRNO(answer), name, *args)

    for name, answer in REFUSED:
        refuse(name, answer)
    for flag in NAMESPACE_FLAGS.values():
        for name in ("unshare", "clone"):
            refuse(name, _NOT_PERMITTED, lib.Arg(0, lib.MASKED_EQ, flag, flag))
    for request in TERMINAL_IOCTLS.values():
        refuse("ioctl", _NOT_PERMITTED, lib.Arg(1, lib.MASKED_EQ, 0xFFFFFFFF, request))
    refuse("socket", errno.EAFNOSUPPORT, lib.Arg(0, lib.EQ, AF_VSOCK))
    with tempfile.TemporaryFile() as exported:
        program.export_bpf(exported)
        exported.seek(0)
        return exported.read(), tuple(unknown)


@cache
def _compiled() -> tuple[bytes, tuple[str, ...]] | str:
    try:
        return _build()
    except FilterUnavailable as exc:
        return str(exc)
    except OSError as exc:  # libseccomp refused a rule: a bug of ours or a broken library
        return f"libseccomp could not build the filter ({exc})"


def filter_program() -> bytes:
    """The compiled filter (BPF, as bwrap's --seccomp reads it); FilterUnavailable when it cannot
    be built here. Built once per process."""
    compiled = _compiled()
    if isinstance(compiled, str):
        raise FilterUnavailable(compiled)
    return compiled[0]


def not_filtered() -> tuple[str, ...]:
    """System calls of REFUSED that this machine's libseccomp does not know (too old): not
    filtered."""
    compiled = _compiled()
    return () if isinstance(compiled, str) else compiled[1]
