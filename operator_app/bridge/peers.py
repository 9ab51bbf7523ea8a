"""Which user is at the other end of a loopback connection. Every program on this computer can
reach 127.0.0.1, and none of them has to say who it is: the Origin header is whatever a program
writes there. The kernel knows, though: on Linux each TCP socket is listed in /proc/net/tcp (IPv4)
or /proc/net/tcp6 (IPv6, and IPv4 reached through an IPv6 socket as ::ffff:127.0.0.1) with the
user that owns it and its inode, so the client's end of a connection to the bridge names its
user. (SO_PEERCRED answers for Unix sockets only.)

Pairing uses it to count wrong codes per user (pairing.py): a program of another user can spend
only its own few tries, never the person's. A client is named only by a socket some process still
holds (inode not 0): a socket closed right after sending is the kernel's own, listed as uid 0,
and as root that would read as the person (issue 35). Where the kernel names no user for the
connection the answer is None, never a guess; pairing then takes no try from it at all
(docs/bridge-protocol.md).
"""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

PROC_TCP = Path("/proc/net/tcp")
PROC_TCP6 = Path("/proc/net/tcp6")
Address = tuple[str, int]  # an IP address as text and a port


def names_users(table: Path = PROC_TCP) -> bool:
    """Whether this system lists sockets with their users (Linux)."""
    return table.exists()


def _ip(text: str) -> str:
    """An IP address as the kernel's table writes it: 32-bit words in host byte order, in hex."""
    raw = bytes.fromhex(text)
    if sys.byteorder == "little":
        raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return _plain(str(ipaddress.ip_address(raw)))


def _plain(ip: str) -> str:
    """An IPv4 address reached through an IPv6 socket (::ffff:127.0.0.2) as IPv4."""
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def _endpoint(text: str) -> Address | None:
    ip, _, port = text.partition(":")
    try:
        return _ip(ip), int(port, 16)
    except ValueError:
        return None


def peer_uid(
    peer: Address, own: Address, tables: tuple[Path, ...] = (PROC_TCP, PROC_TCP6)
) -> int | None:
    """The uid of the process holding the socket `peer` connected to `own` (the bridge's end), or
    None when the system does not say (no such table, no such socket, or a socket no process holds
    any more)."""
    wanted_local, wanted_remote = (_plain(peer[0]), peer[1]), (_plain(own[0]), own[1])
    # The ports first, as text: a flood leaves thousands of sockets in the table, and only the
    # few with both ports need their addresses read.
    local_port, remote_port = f":{peer[1]:04X}", f":{own[1]:04X}"
    for table in tables:
        try:
            lines = table.read_text(encoding="ascii", errors="replace").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            # sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
            fields = line.split()
            if (
                len(fields) < 10
                or not fields[1].endswith(local_port)
                or not fields[2].endswith(remote_port)
            ):
                continue
            if _endpoint(fields[1]) != wanted_local or _endpoint(fields[2]) != wanted_remote:
                continue
            if fields[9] == "0" or not fields[7].isdigit():
                return None  # closed by its process: the kernel's, whoever sent on it
            return int(fields[7])
    return None
