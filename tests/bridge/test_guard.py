"""Every refusal of the bridge, proven against the real server on a real socket: a request under
another Host name (DNS rebinding, or an absolute request URI naming another host), from a web
page's Origin, unsigned or signed wrongly, with a body too large; no answer carries a CORS header,
and pairing hands out a key only for the code on offer. (What a program on this computer could
do to wear the bridge down, or to keep the person from pairing: test_hardening.py.)"""

from __future__ import annotations

import asyncio
import json
import socket
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from operator_app.bridge import guard
from operator_app.bridge.server import BridgeServer, BridgeUnavailable
from operator_app.bridge.service import Listener
from tests.support.bridge_http import EXTENSION_ORIGIN, Extension, raw

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def server() -> AsyncIterator[BridgeServer]:
    bridge = BridgeServer(lambda: None, Listener(), lambda: None)
    await bridge.start(0)
    yield bridge
    await bridge.stop()


async def paired(server: BridgeServer) -> Extension:
    extension = Extension(server.port)
    assert (await extension.pair(server.pairing_code)).status == 200
    return extension


def no_cors(headers: dict[str, str]) -> bool:
    return not any(name.startswith("access-control-") for name in headers)


async def test_it_listens_on_the_loopback_address_only(server: BridgeServer) -> None:
    assert server.bridge.port == server.port
    with socket.socket() as probe:
        probe.connect(("127.0.0.1", server.port))
        assert probe.getpeername()[0] == "127.0.0.1"
    other = socket.gethostbyname(socket.gethostname())
    if not other.startswith("127."):
        with socket.socket() as probe, pytest.raises(OSError):
            probe.settimeout(2)
            probe.connect((other, server.port))


async def test_a_host_header_other_than_the_bridge_itself_is_refused(server: BridgeServer) -> None:
    extension = await paired(server)
    for host in (
        "evil.example",
        f"evil.example:{server.port}",
        f"127.0.0.1:{server.port + 1}",
        "",
        "127.0.0.1",
    ):
        headers = await extension.signed("POST", "/v1/hello")
        reply = await raw(server.port, "POST", "/v1/hello", headers=headers, body=b"{}", host=host)
        assert (reply.status, reply.code) == (421, "BRIDGE_BAD_HOST"), host
        assert no_cors(reply.headers)
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
        headers = await extension.signed("POST", "/v1/hello")
        reply = await raw(server.port, "POST", "/v1/hello", headers=headers, body=b"{}", host=host)
        assert reply.status == 200, host


async def test_an_absolute_request_uri_naming_another_host_is_refused(
    server: BridgeServer,
) -> None:
    """Issue 35: `POST http://evil.example/v1/hello` with the bridge's own Host header was taken;
    HTTP says the URI's authority stands in place of the Host header."""
    extension = await paired(server)
    for target in (
        "http://evil.example/v1/hello",
        f"http://evil.example:{server.port}/v1/hello",
        f"http://127.0.0.1:{server.port + 1}/v1/hello",
    ):
        headers = await extension.signed("POST", target)
        reply = await raw(server.port, "POST", target, headers=headers, body=b"{}")
        assert (reply.status, reply.code) == (421, "BRIDGE_BAD_HOST"), target
        assert "evil.example" in reply.json()["error"]["message"] or "127.0.0.1" in target
    # Naming the bridge itself, an absolute URI is taken as HTTP says.
    target = f"http://127.0.0.1:{server.port}/v1/hello"
    headers = await extension.signed("POST", target)
    reply = await raw(server.port, "POST", target, headers=headers, body=b"{}")
    assert reply.status == 200, reply.body


async def test_a_web_page_origin_is_refused_even_with_the_token(server: BridgeServer) -> None:
    extension = await paired(server)
    for origin in ("https://evil.example", "http://127.0.0.1:8000", "null", "file://"):
        headers = {**(await extension.signed("POST", "/v1/hello")), "Origin": origin}
        reply = await raw(server.port, "POST", "/v1/hello", headers=headers, body=b"{}")
        assert (reply.status, reply.code) == (403, "BRIDGE_BAD_ORIGIN"), origin
        assert no_cors(reply.headers)
    # A preflight gets nothing that would let the page go on.
    reply = await raw(
        server.port,
        "OPTIONS",
        "/v1/message",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert reply.status == 403 and no_cors(reply.headers)


async def test_after_pairing_only_the_origin_that_paired_is_taken(server: BridgeServer) -> None:
    extension = await paired(server)
    other = Extension(server.port, extension.token, origin="chrome-extension://someotherextension")
    reply = await other.post("/v1/hello", {})
    assert (reply.status, reply.code) == (403, "BRIDGE_BAD_ORIGIN")
    assert "pair this one again" in reply.json()["error"]["message"]
    # Issue 35: the key alone is not enough: a program holding it but sending no Origin opens no
    # session. (In a session the extension opened, a request may name no Origin: the browser
    # names none on a GET.)
    bare = Extension(server.port, extension.token, origin="")
    reply = await bare.post("/v1/hello", {})
    assert (reply.status, reply.code) == (403, "BRIDGE_BAD_ORIGIN")
    assert "without its Origin" in reply.json()["error"]["message"]
    assert bare.session is None
    headers = await extension.signed("GET", "/v1/results?conversation=c&position=0")
    del headers["Origin"]
    reply = await raw(server.port, "GET", "/v1/results?conversation=c&position=0", headers=headers)
    assert reply.status == 200
    assert (await extension.post("/v1/hello", {})).status == 200


async def test_a_missing_or_wrong_key_or_signature_is_refused(server: BridgeServer) -> None:
    """The key itself is no credential on the wire (issue 35): sent as a bearer token, as before,
    it is refused; so is a session opened with a wrong key, a signature for another request, and
    a request sent twice."""
    extension = await paired(server)
    for token in (
        None,
        "",
        "x" * 43,
        extension.token[:-1] + ("A" if extension.token[-1] != "A" else "B"),
    ):
        attempt = Extension(server.port, token)
        reply = await attempt.post("/v1/hello", {})
        assert (reply.status, reply.code) == (401, "BRIDGE_UNAUTHORIZED"), token
        assert "pair" in reply.json()["error"]["message"]
    for scheme in ("Basic", "Bearer"):
        reply = await raw(
            server.port,
            "POST",
            "/v1/hello",
            headers={"Authorization": f"{scheme} {extension.token}", "Origin": EXTENSION_ORIGIN},
            body=b"{}",
        )
        assert (reply.status, reply.code) == (401, "BRIDGE_UNAUTHORIZED"), scheme
    # A session's signature is good for its own request only, and once.
    headers = await extension.signed("POST", "/v1/hello")
    for path in ("/v1/message", "/v1/delivered"):
        reply = await raw(server.port, "POST", path, headers=headers, body=b"{}")
        assert (reply.status, reply.code) == (401, "BRIDGE_UNAUTHORIZED"), path
    reply = await raw(server.port, "GET", "/v1/hello", headers=headers)
    assert (reply.status, reply.code) == (401, "BRIDGE_UNAUTHORIZED")
    headers = await extension.signed("POST", "/v1/hello")
    first = await raw(server.port, "POST", "/v1/hello", headers=headers, body=b"{}")
    again = await raw(server.port, "POST", "/v1/hello", headers=headers, body=b"{}")
    assert first.status == 200 and (again.status, again.code) == (401, "BRIDGE_UNAUTHORIZED")
    assert "used before" in again.json()["error"]["message"]
    # A session opened by someone without the key is no use to them: they cannot sign in it.
    stranger = Extension(server.port, extension.token)
    await stranger.handshake()
    assert stranger.session is not None
    stranger.session.key = b"not the key" * 3
    reply = await raw(
        server.port, "POST", "/v1/hello", headers=await stranger.signed("POST", "/v1/hello")
    )
    assert (reply.status, reply.code) == (401, "BRIDGE_UNAUTHORIZED")
    assert (await extension.post("/v1/hello", {})).status == 200


async def test_a_body_over_the_limit_is_refused_before_it_is_read(server: BridgeServer) -> None:
    extension = await paired(server)
    headers = {
        **(await extension.signed("POST", "/v1/message")),
        "Content-Length": str(guard.MAX_BODY_BYTES + 1),
    }
    reply = await raw(server.port, "POST", "/v1/message", headers=headers, body=b"{")
    assert (reply.status, reply.code) == (413, "BRIDGE_TOO_LARGE")
    # Without a length up front (chunked), it is refused once the reading passes the limit.
    big = json.dumps(
        {
            "conversation": "c",
            "position": 0,
            "text": "x" * (guard.MAX_BODY_BYTES + 10),
            "generating": True,
        }
    ).encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(big[i : i + 65536]), big[i : i + 65536])
        for i in range(0, len(big), 65536)
    )
    reply = await raw(
        server.port,
        "POST",
        "/v1/message",
        headers={
            **(await extension.signed("POST", "/v1/message")),
            "Transfer-Encoding": "chunked",
        },
        body=chunks + b"0\r\n\r\n",
    )
    assert (reply.status, reply.code) == (413, "BRIDGE_TOO_LARGE")


async def test_a_client_that_asks_before_sending_a_large_body_is_refused_before_it_sends_it(
    server: BridgeServer,
) -> None:
    extension = await paired(server)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    head = [
        "POST /v1/message HTTP/1.1",
        f"Host: 127.0.0.1:{server.port}",
        "Expect: 100-continue",
        f"Content-Length: {guard.MAX_BODY_BYTES + 1}",
        *(
            f"{name}: {value}"
            for name, value in (await extension.signed("POST", "/v1/message")).items()
        ),
    ]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), 5)
    writer.close()
    assert status_line.split()[1] == b"413"  # not "100 Continue"


async def test_a_client_that_asks_before_sending_is_told_to_go_on_only_once_it_passed_the_checks(
    server: BridgeServer,
) -> None:
    """Issue 35: `Expect: 100-continue` was answered before the guard looked at the request, so a
    web page or an unpaired program heard "go on" first."""
    extension = await paired(server)

    async def first_answer(headers: dict[str, str]) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        head = [
            "POST /v1/hello HTTP/1.1",
            f"Host: 127.0.0.1:{server.port}",
            "Expect: 100-continue",
            "Content-Length: 2",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        return status_line.split()[1]

    assert await first_answer({"Origin": EXTENSION_ORIGIN}) == b"401"
    assert await first_answer({"Origin": "https://evil.example"}) == b"403"
    assert await first_answer(await extension.signed("POST", "/v1/hello")) == b"100"


async def test_unknown_requests_and_bad_bodies_get_a_code_that_says_so(
    server: BridgeServer,
) -> None:
    extension = await paired(server)
    assert (await extension.get("/v1/nothing")).code == "BRIDGE_NOT_FOUND"
    assert (await extension.get("/v1/message")).code == "BRIDGE_METHOD_NOT_ALLOWED"
    reply = await raw(
        server.port,
        "POST",
        "/v1/message",
        headers=await extension.signed("POST", "/v1/message"),
        body=b"not json",
    )
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST")
    for payload in (
        [],
        {"conversation": "", "position": 0, "text": "", "generating": True},
        {"conversation": "c", "position": -1, "text": "", "generating": True},
        {"conversation": "c", "position": 0, "text": 5, "generating": True},
        {"conversation": "c", "position": 0, "text": "", "generating": "no"},
    ):
        assert (await extension.post("/v1/message", payload)).code == "BRIDGE_BAD_REQUEST", payload
    # Every refusal is JSON with a code, also for text Python's str.isdigit or float() take.
    for query in (
        "position=x",
        "position=%C2%B2",
        "position=0&wait=soon",
        "position=0&wait=nan",
        "position=0&wait=inf",
    ):
        reply = await extension.get(f"/v1/results?conversation=c&{query}")
        assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST"), query
    assert (
        await extension.post("/v1/delivered", {"conversation": "c", "position": "²"})
    ).code == "BRIDGE_BAD_REQUEST"


async def test_a_message_with_no_workspace_open_is_refused_with_what_to_do(
    server: BridgeServer,
) -> None:
    extension = await paired(server)
    reply = await extension.message("OPERATOR_CMD\n", generating=True)
    assert (reply.status, reply.code) == (409, "BRIDGE_NO_WORKSPACE")
    assert "choose one" in reply.json()["error"]["message"]


async def test_pairing_needs_the_code_on_offer_and_gives_a_token_kept_private(
    server: BridgeServer, private_settings: Path
) -> None:
    code = server.pairing_code
    assert code is not None and len(code) == 6 and code.isdigit()
    reply = await Extension(server.port).pair("000000" if code != "000000" else "111111")
    assert (reply.status, reply.code) == (403, "BRIDGE_BAD_CODE")
    assert "4 tries left" in reply.json()["error"]["message"]
    extension = Extension(server.port)
    reply = await extension.pair(code[:3] + " " + code[3:])  # as the TUI shows it
    assert reply.status == 200 and no_cors(reply.headers)
    assert len(extension.token) >= 43  # 256 bits, URL-safe base64
    stored = json.loads((private_settings / "settings.json").read_text())["bridge"]
    assert stored["pairings"] == [
        {"token": extension.token, "origin": EXTENSION_ORIGIN, "browser": "Chromium (test)"}
    ]
    assert stat.S_IMODE((private_settings / "settings.json").stat().st_mode) == 0o600
    # The code worked once.
    assert (await Extension(server.port).pair(code)).code == "BRIDGE_NOT_PAIRING"


async def test_five_wrong_codes_void_the_code_and_pairing_again_retires_the_old_token(
    server: BridgeServer,
) -> None:
    code = server.pairing_code
    wrong = "123456" if code != "123456" else "654321"
    for _ in range(5):
        reply = await Extension(server.port).pair(wrong)
    assert "last try" in reply.json()["error"]["message"]
    assert (await Extension(server.port).pair(code)).code == "BRIDGE_NOT_PAIRING"
    first = Extension(server.port)
    await first.pair(server.pair_again())
    second = Extension(server.port)
    await second.pair(server.pair_again())
    assert (await first.post("/v1/hello", {})).code == "BRIDGE_UNAUTHORIZED"
    assert (await second.post("/v1/hello", {})).status == 200


async def test_a_second_bridge_on_the_same_port_says_the_port_is_taken(
    server: BridgeServer,
) -> None:
    other = BridgeServer(lambda: None, Listener(), lambda: None)
    with pytest.raises(BridgeUnavailable, match=f"127.0.0.1:{server.port}.*--bridge-port"):
        await other.start(server.port)
    await asyncio.sleep(0)
