"""Pairing that no program on this computer can block, a second browser beside the first, and a
pairing forgotten from the command line while Operator runs (issue 26, items 3, 11 and 12):
against the real server on real sockets, with a program of another user played by a real
process of another uid."""

from __future__ import annotations

import asyncio
import json
import os
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
    """Without the kernel's word, clients differ only by the Origin they write, which a program
    can vary: guessing stays hopeless because their wrong tries together void the code."""
    monkeypatch.setattr("operator_app.bridge.server.peer_uid", lambda *ports: None)
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
