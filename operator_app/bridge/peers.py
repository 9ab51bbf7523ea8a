"""Which user is at the other end of a loopback connection. Every program on this computer can
reach 127.0.0.1, and none of them has to say who it is: the Origin header is whatever a program
writes there. The kernel knows, though: on Linux each TCP socket is listed in /proc/net/tcp
with the user that owns it, so the client's end of a connection to the bridge names its user.

Pairing uses it to count wrong codes per user (pairing.py): a program of another user can spend
only its own few tries, never the person's. Where the system does not tell (no /proc, another
OS, a socket that closed meanwhile) the answer is None and pairing falls back to counting by the
Origin the request names, with a cap on all wrong tries together (docs/bridge-protocol.md).
"""

from __future__ import annotations

from pathlib import Path

PROC_TCP = Path("/proc/net/tcp")
_LOOPBACK_HEX = "0100007F"  # 127.0.0.1, as /proc/net/tcp writes it (little-endian)


def peer_uid(peer_port: int, own_port: int, table: Path = PROC_TCP) -> int | None:
    """The uid owning the socket 127.0.0.1:`peer_port` connected to 127.0.0.1:`own_port`, or None
    when the system does not say."""
    try:
        lines = table.read_text(encoding="ascii", errors="replace").splitlines()[1:]
    except OSError:
        return None
    local, remote = f"{_LOOPBACK_HEX}:{peer_port:04X}", f"{_LOOPBACK_HEX}:{own_port:04X}"
    for line in lines:
        fields = line.split()
        # sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
        if len(fields) > 7 and fields[1] == local and fields[2] == remote:
            try:
                return int(fields[7])
            except ValueError:
                return None
    return None
