"""Pairing that no program on this computer can block, a second browser beside the first, and a
pairing forgotten from the command line while Operator runs (issue 26, items 3, 11 and 12):
against the real server on real sockets, with a program of another user played by a real
process of another uid."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from operator_app.bridge import pairing, peers, service
from operator_app.bridge.server import BridgeServer
from operator_app.bridge.service import Listener
from tests.support.bridge_http import EXTENSION_ORIGIN, Extension, raw
from tests.support.cases import run_app

pytestmark = pytest.mark.asyncio

NOBODY = 65534


class Heard(Listener):
    def __init__(self) -> None:
        self.forgotten_times = 0
        self.voided: list[str] = []

    def forgotten(self) -> None:
        self.forgotten_times += 1

    def code_voided(self, why: str) -> None:
        self.voided.append(why)


@pytest_asyncio.fixture
async def heard() -> Heard:
    return Heard()


@pytest_asyncio.fixture
async def server(heard: Heard) -> AsyncIterator[BridgeServer]:
    bridge = BridgeServer(lambda: None, heard, lambda: None)
    await bridge.start(0)
    yield bridge
    await bridge.stop()


def wrong(code: str) -> str:
    return "123456" if code != "123456" else "654321"


async def test_a_local_program_posting_wrong_codes_in_a_loop_cannot_void_the_browsers_code(
    server: BridgeServer,
) -> None:
    """Item 11: a program of the person's own user that sends no Origin uses up only its own
    tries. (One that poses as an extension can void the code, as the person's browser can: such a
    program can read the settings file, token and all, so it is no boundary to hold.)"""
    code = server.pairing_code or ""
    for _ in range(40):
        reply = await raw(
            server.port, "POST", "/v1/pair", body=json.dumps({"code": wrong(code)}).encode()
        )
        assert reply.code == "BRIDGE_BAD_CODE"
    assert "no tries are left for this client" in reply.json()["error"]["message"]
    assert server.pairing_code == code
    assert (await Extension(server.port).pair(code)).status == 200


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or not peers.PROC_TCP.exists(),
    reason="acting as another user needs root, and the kernel's table of sockets (Linux)",
)
async def test_a_program_of_another_user_cannot_void_the_code_even_as_the_extension(
    server: BridgeServer,
) -> None:
    """Item 11, from another uid: its wrong codes, even under the extension's own Origin, count
    against that user only (5 tries), and the person's browser pairs with the code after."""
    code = server.pairing_code or ""
    attack = (
        "import http.client, json, sys\n"
        "statuses = []\n"
        "for _ in range(60):\n"
        "    c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=5)\n"
        "    body = json.dumps({'code': sys.argv[2]})\n"
        "    c.request('POST', '/v1/pair', body, {'Origin': sys.argv[3],\n"
        "              'Content-Type': 'application/json'})\n"
        "    r = c.getresponse()\n"
        "    statuses.append((r.status, json.loads(r.read())['error']['message']))\n"
        "    c.close()\n"
        "print(json.dumps(statuses))\n"
    )
    process = await asyncio.create_subprocess_exec(
        "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable,
        "-c",
        attack,
        str(server.port),
        wrong(code),
        EXTENSION_ORIGIN,
        user=NOBODY,
        cwd="/",
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    statuses = json.loads(out)
    assert len(statuses) == 60 and all(status == 403 for status, _ in statuses)
    assert "4 tries left" in statuses[0][1] and "no tries are left" in statuses[-1][1]
    assert server.pairing_code == code
    assert (await Extension(server.port).pair(code)).status == 200


async def test_where_the_system_does_not_name_the_user_all_unknown_wrong_tries_are_capped(
    server: BridgeServer, heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a system whose kernel names no users (no /proc), clients differ only by the Origin they
    write, which a program can vary: guessing stays hopeless because their wrong tries together
    void the code."""
    monkeypatch.setattr(peers, "peer_uid", lambda *ends: None)
    monkeypatch.setattr(peers, "names_users", lambda: False)
    code = server.pairing_code or ""
    for n in range(pairing.UNKNOWN_CLIENTS_TRIES):
        reply = await raw(
            server.port,
            "POST",
            "/v1/pair",
            headers={"Origin": f"chrome-extension://guesser{n}"},
            body=json.dumps({"code": wrong(code)}).encode(),
        )
    assert "too many wrong codes" in reply.json()["error"]["message"]
    assert server.pairing_code is None
    assert heard.voided == ["20 wrong codes came from programs on this computer"]


async def test_a_second_browser_pairs_with_a_fresh_code_while_an_old_pairing_stands(
    server: BridgeServer,
) -> None:
    """Item 12: a browser whose extension has another id (a second browser, or a Firefox
    temporary add-on loaded again) was refused BRIDGE_BAD_ORIGIN with a valid code. By default it
    pairs in the place of the old one; with keep_paired (the person says so in the TUI), beside
    it."""
    first = Extension(server.port)
    assert (await first.pair(server.pairing_code or "")).status == 200
    second = Extension(server.port, origin="moz-extension://3b1e0c5e-new-id-at-each-load")
    assert (await second.pair(server.pair_again())).status == 200
    assert (await first.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
    assert (await second.post("/v1/hello", {})).status == 200
    third = Extension(server.port, origin="chrome-extension://asecondchromium")
    assert (await third.pair(server.pair_again(keep_paired=True))).status == 200
    for extension in (second, third):
        assert (await extension.post("/v1/hello", {})).status == 200
    # Each token still works only from the extension that paired with it.
    swapped = Extension(server.port, second.token, origin=third.origin)
    assert (await swapped.post("/v1/hello", {})).code == "BRIDGE_BAD_ORIGIN"
    assert server.status().paired == ("Chromium (test)", "Chromium (test)")
    # The same browser pairing again replaces its own old token, not the other browser's.
    again = Extension(server.port, origin=third.origin)
    assert (await again.pair(server.pair_again(keep_paired=True))).status == 200
    assert (await third.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
    assert (await again.post("/v1/hello", {})).status == 200
    assert (await second.post("/v1/hello", {})).status == 200


async def test_bridge_forget_reaches_a_running_bridge_at_once(
    server: BridgeServer, heard: Heard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 3: `operator-app bridge --forget` changed only the file; the running bridge kept
    taking the forgotten token until it was turned off and on."""
    monkeypatch.setattr(service, "PAIRINGS_LOOKED_AT_S", 0.1)
    extension = Extension(server.port)
    assert (await extension.pair(server.pairing_code or "")).status == 200
    assert server.pairing_code is None
    done = await asyncio.to_thread(run_app, "bridge", "--forget")
    assert done.returncode == 0 and "stop working at once" in done.stdout
    assert (await extension.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
    # The TUI hears of it and a new code is on offer, without the person turning the bridge off.
    for _ in range(100):
        if heard.forgotten_times:
            break
        await asyncio.sleep(0.05)
    assert heard.forgotten_times == 1 and server.pairing_code is not None
    assert (await Extension(server.port).pair(server.pairing_code)).status == 200


# --- issue 35, item 6: pairing bounded for every client ---------------------------------------

AS_ANOTHER_USER = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or not peers.PROC_TCP.exists(),
    reason="acting as another user needs root, and the kernel's table of sockets (Linux)",
)
SYSTEM_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable

# Another user's program: from a source address of its choosing (127.0.0.2, or 127.0.0.1 through
# an IPv6 socket), it posts wrong codes under the extension's own Origin, then the right one.
FLOOD = """
import http.client, json, socket, sys, time
port, wrong, right, origin, source, family, count, seconds = sys.argv[1:9]
port, count, seconds = int(port), int(count), float(seconds)

class Connection(http.client.HTTPConnection):
    def connect(self):
        if family == "6":
            self.sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            self.sock.connect(("::ffff:127.0.0.1", port))
        else:
            self.sock = socket.create_connection(("127.0.0.1", port), 5, (source, 0))

def post(code):
    c = Connection("127.0.0.1", port, timeout=5)
    c.request("POST", "/v1/pair", json.dumps({"code": code}),
              {"Origin": origin, "Content-Type": "application/json"})
    r = c.getresponse()
    answer = (r.status, json.loads(r.read())["error"]["message"] if r.status != 200 else "PAIRED")
    c.close()
    return answer

answers = []
until = time.monotonic() + seconds
while len(answers) < count or time.monotonic() < until:
    answers.append(post(wrong))
answers.append(post(right))
print(json.dumps(answers))
"""


async def flood(
    server: BridgeServer,
    right: str,
    *,
    source: str = "127.0.0.2",
    family: str = "4",
    count: int = 5,
    seconds: float = 0.0,
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        SYSTEM_PYTHON,
        "-c",
        FLOOD,
        str(server.port),
        wrong(right),
        right,
        EXTENSION_ORIGIN,
        source,
        family,
        str(count),
        str(seconds),
        user=NOBODY,
        cwd="/",
        stdout=asyncio.subprocess.PIPE,
    )


async def answers_of(process: asyncio.subprocess.Process) -> list[tuple[int, str]]:
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    return [tuple(answer) for answer in json.loads(out)]  # type: ignore[misc]


@AS_ANOTHER_USER
@pytest.mark.parametrize(("source", "family"), [("127.0.0.2", "4"), ("127.0.0.1", "6")])
async def test_another_user_from_any_loopback_address_has_five_tries_then_not_even_the_right_code(
    server: BridgeServer, heard: Heard, source: str, family: str
) -> None:
    """Issue 35: the right code was checked before the try limit (another uid had unlimited
    tries), and a program of another user sending from 127.0.0.2, or through an IPv6 socket
    (::ffff:127.0.0.1, listed in /proc/net/tcp6), was no one the kernel named, so its wrong
    codes voided every code the person was shown."""
    code = server.pairing_code or ""
    answers = await answers_of(await flood(server, code, source=source, family=family, count=5))
    assert len(answers) == 6  # five wrong codes, then the right one
    assert all(status == 403 for status, _ in answers), answers
    assert "4 tries left" in answers[0][1] and "no tries are left" in answers[4][1]
    assert "no tries are left" in answers[5][1]  # the right code, after the tries were spent
    process = await flood(server, code, source=source, family=family, count=1, seconds=0.5)
    assert all(status == 403 for status, _ in await answers_of(process))
    assert server.pairing_code == code and heard.voided == []
    assert (await Extension(server.port).pair(code)).status == 200


@AS_ANOTHER_USER
async def test_the_person_pairs_while_another_user_floods_the_bridge_from_127_0_0_2(
    server: BridgeServer, heard: Heard
) -> None:
    """Issue 35, item 6: the person can always pair within a minute while any other process
    floods. Another user's program posts wrong codes as fast as it can, from 127.0.0.2, under the
    extension's own Origin; the person's browser pairs meanwhile with the code shown."""
    code = server.pairing_code or ""
    process = await flood(server, code, count=1, seconds=4.0)
    await asyncio.sleep(1.0)  # the flood is under way
    started = asyncio.get_running_loop().time()
    reply = await Extension(server.port).pair(code)
    took = asyncio.get_running_loop().time() - started
    answers = await answers_of(process)
    assert reply.status == 200, reply.body
    assert took < 60
    assert len(answers) > 20 and all(status == 403 for status, _ in answers)
    assert heard.voided == []


async def test_a_client_whose_socket_closed_before_it_was_read_gets_no_try_and_is_never_the_person(
    server: BridgeServer, heard: Heard
) -> None:
    """Issue 35: a socket closed right after sending is the kernel's own (uid 0, inode 0), and as
    root that read as the person's browser: five such requests under the extension's Origin voided
    the code. Now a client the kernel does not name is refused without a try."""
    code = server.pairing_code or ""
    body = json.dumps({"code": wrong(code)}).encode()
    head = (
        f"POST /v1/pair HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {EXTENSION_ORIGIN}"
        f"\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    for _ in range(12):
        # Sent and closed without a pause: the bridge (in this event loop) reads it only after.
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(head + body)
        sock.close()
        await asyncio.sleep(0.05)
    assert server.pairing_code == code and heard.voided == []
    reply = await Extension(server.port).pair(wrong(code))
    assert "4 tries left" in reply.json()["error"]["message"]  # the person's tries are all there
    assert (await Extension(server.port).pair(code)).status == 200


def table(*rows: tuple[str, str, int, int]) -> str:
    """A /proc/net/tcp(6) table: one row per (local end, remote end, uid, inode)."""
    lines = ["  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid"]
    for n, (local, remote, uid, inode) in enumerate(rows):
        lines.append(
            f"{n:4}: {local} {remote} 01 00000000:00000000 00:00000000 00000000 {uid:5} 0 {inode} 1"
        )
    return "\n".join(lines) + "\n"


V4_MAPPED = "0000000000000000FFFF00000100007F"  # ::ffff:127.0.0.1
V6_LOOPBACK = "00000000000000000000000001000000"  # ::1


async def test_the_kernel_tables_name_the_user_of_any_loopback_address_ipv4_or_ipv6(
    tmp_path: Path,
) -> None:
    """peers.py reads /proc/net/tcp and tcp6 (32-bit words in host byte order): 127.0.0.2, ::1
    and an IPv4 address reached through an IPv6 socket (::ffff:127.0.0.1) are each named, and a
    socket no process holds (inode 0, the kernel's) is no one's."""
    if sys.byteorder != "little":
        pytest.skip("the tables below are written as a little-endian machine writes them")
    tcp, tcp6 = tmp_path / "tcp", tmp_path / "tcp6"
    tcp.write_text(
        table(
            ("0200007F:9C40", "0100007F:BAC1", 1001, 4242),
            ("0100007F:9C41", "0100007F:BAC1", 0, 0),
        )
    )
    tcp6.write_text(
        table(
            (f"{V4_MAPPED}:9C42", f"{V4_MAPPED}:BAC1", 65534, 77),
            (f"{V6_LOOPBACK}:9C43", f"{V6_LOOPBACK}:BAC1", 1002, 78),
        )
    )
    tables = (tcp, tcp6)
    bridge = ("127.0.0.1", 0xBAC1)
    assert peers.peer_uid(("127.0.0.2", 0x9C40), bridge, tables) == 1001
    assert peers.peer_uid(("127.0.0.1", 0x9C41), bridge, tables) is None  # closed: inode 0
    assert peers.peer_uid(("127.0.0.1", 0x9C42), bridge, tables) == 65534
    assert (
        peers.peer_uid(("::ffff:127.0.0.1", 0x9C42), ("::ffff:127.0.0.1", 0xBAC1), tables) == 65534
    )
    assert peers.peer_uid(("::1", 0x9C43), ("::1", 0xBAC1), tables) == 1002
    assert peers.peer_uid(("127.0.0.1", 0x9C99), bridge, tables) is None
