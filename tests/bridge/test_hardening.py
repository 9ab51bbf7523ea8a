"""What a program on this computer (or a web page's <img>) could do to the bridge, against the real
server on real sockets: keep the person from pairing, crash a request with a body nested too
deep or a charset nobody knows, hold sockets and memory with requests that never finish, or get
aiohttp's own plain-text errors back. Each is refused with the bridge's short JSON, and the paired
browser stays served throughout."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from operator_app.bridge import guard
from operator_app.bridge.server import BridgeServer
from operator_app.bridge.service import Listener
from tests.support.bridge_http import EXTENSION_ORIGIN, Extension, raw

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def server() -> AsyncIterator[BridgeServer]:
    bridge = BridgeServer(lambda: None, Listener(), lambda: None)
    await bridge.start(0)
    yield bridge
    await bridge.stop()


def wrong(code: str) -> str:
    return "123456" if code != "123456" else "654321"


async def closed_by_server(reader: asyncio.StreamReader, within: float) -> bytes:
    """What the server sent before closing the connection (AssertionError if it stays open)."""
    try:
        return await asyncio.wait_for(reader.read(), within)
    except TimeoutError:
        raise AssertionError(f"the bridge kept the connection open past {within} s") from None


async def test_wrong_tokens_and_tokenless_requests_never_keep_the_person_from_pairing(
    server: BridgeServer,
) -> None:
    code = server.pairing_code
    assert code is not None
    for _ in range(60):
        assert (
            await Extension(server.port, "wrong-token-" + "x" * 30).post("/v1/hello", {})
        ).status == 401
        # A web page's <img src="http://127.0.0.1:PORT/..."> sends no Origin and no token.
        assert (
            await raw(server.port, "GET", "/v1/results?conversation=c&position=0")
        ).status == 401
    reply = await Extension(server.port).pair(code)
    assert reply.status == 200, reply.body


async def test_wrong_codes_use_up_only_that_code_and_a_new_code_starts_clean(
    server: BridgeServer,
) -> None:
    code = server.pairing_code
    assert code is not None
    for _ in range(5):
        reply = await Extension(server.port).pair(wrong(code))
    assert "last try" in reply.json()["error"]["message"]
    assert (await Extension(server.port).pair(code)).code == "BRIDGE_NOT_PAIRING"
    fresh = server.pair_again()  # the person asks Operator for a new code
    reply = await Extension(server.port).pair(wrong(fresh))
    assert reply.code == "BRIDGE_BAD_CODE" and "4 tries left" in reply.json()["error"]["message"]
    assert (await Extension(server.port).pair(fresh)).status == 200


async def test_json_nested_past_the_recursion_limit_is_a_bad_request(server: BridgeServer) -> None:
    # On /v1/pair, which takes no token, within its 16 KiB ...
    nested = b"[" * 8000 + b"]" * 8000
    reply = await raw(
        server.port, "POST", "/v1/pair", headers={"Origin": EXTENSION_ORIGIN}, body=nested
    )
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST")
    # ... and 100,000 deep on a request with the token.
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")
    deep = b'{"tab": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    reply = await raw(
        server.port,
        "POST",
        "/v1/hello",
        headers=await extension.signed("POST", "/v1/hello"),
        body=deep,
    )
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST")
    assert (await extension.post("/v1/hello", {})).status == 200


async def test_the_body_is_utf8_whatever_charset_the_header_names(server: BridgeServer) -> None:
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")
    body = json.dumps(
        {"tab": {"site": "Le Chat", "title": "Résumé ✓", "url": "https://chat.mistral.ai/chat/1"}},
        ensure_ascii=False,
    ).encode()
    for charset in ("klingon", "latin-1", "utf-16"):
        headers = {
            **(await extension.signed("POST", "/v1/hello")),
            "Content-Type": f"application/json; charset={charset}",
        }
        reply = await raw(server.port, "POST", "/v1/hello", headers=headers, body=body)
        assert reply.status == 200, (charset, reply.body)
        assert server.bridge.tab is not None and server.bridge.tab.title == "Résumé ✓"
    headers = {
        **(await extension.signed("POST", "/v1/hello")),
        "Content-Type": "application/json; charset=klingon",
    }
    reply = await raw(
        server.port, "POST", "/v1/hello", headers=headers, body='{"tab": "\xe9"}'.encode("latin-1")
    )
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST")


async def test_a_pairing_request_larger_than_a_code_is_refused_before_it_is_read(
    server: BridgeServer,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    head = [
        "POST /v1/pair HTTP/1.1",
        f"Host: 127.0.0.1:{server.port}",
        f"Origin: {EXTENSION_ORIGIN}",
        f"Content-Length: {guard.MAX_BODY_BYTES - 1}",
        "Content-Type: application/json",
    ]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + b'{"code": "')
    await writer.drain()
    answer = await closed_by_server(reader, 5)
    writer.close()
    assert answer.split(b" ")[1] == b"413" and b"BRIDGE_TOO_LARGE" in answer


async def test_a_body_that_stalls_is_cut_off_and_its_memory_freed(
    server: BridgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "BODY_TIMEOUT_S", 0.3)
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")
    for path, headers in (
        ("/v1/pair", {"Origin": EXTENSION_ORIGIN}),
        ("/v1/message", await extension.signed("POST", "/v1/message")),
    ):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        head = [
            f"POST {path} HTTP/1.1",
            f"Host: 127.0.0.1:{server.port}",
            "Content-Length: 9000",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + b'{"code": "1')
        await writer.drain()
        started = time.monotonic()
        answer = await closed_by_server(reader, 5)
        writer.close()
        assert time.monotonic() - started < 3
        assert answer.split(b" ")[1] == b"408" and b"BRIDGE_TIMEOUT" in answer, answer[:200]


async def test_a_request_head_that_never_ends_loses_its_connection(
    server: BridgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "HEAD_TIMEOUT_S", 0.3)
    silent_reader, silent_writer = await asyncio.open_connection("127.0.0.1", server.port)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(f"POST /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())
    await writer.drain()
    for _ in range(3):  # a byte now and then does not keep it alive
        await asyncio.sleep(0.1)
        writer.write(b"X")
        await writer.drain()
    assert await closed_by_server(reader, 3) == b""
    assert await closed_by_server(silent_reader, 3) == b""  # one that says nothing at all, too
    writer.close()
    silent_writer.close()


async def test_a_connection_kept_alive_after_a_refusal_still_has_its_deadlines(
    server: BridgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: a request the guard refused (a wrong Host, no session, a web page's Origin, an
    Expect it refused) set no deadline for the next head, and such a connection stayed 200 s."""
    monkeypatch.setattr(guard, "IDLE_TIMEOUT_S", 0.3)
    monkeypatch.setattr(guard, "HEAD_TIMEOUT_S", 0.3)
    heads = (
        "POST /v1/hello HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\n\r\n{{}}",
        "POST /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 2\r\n\r\n{{}}",
        "GET /v1/results HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: https://evil.example\r\n\r\n",
        "POST /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nExpect: 100-continue\r\n"
        "Content-Length: 2\r\n\r\n",
    )
    for head in heads:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(head.format(port=server.port).encode())
        await writer.drain()
        started = time.monotonic()
        answer = await closed_by_server(reader, 5)
        writer.close()
        assert answer.split(b" ")[1] in (b"401", b"403", b"421"), answer[:200]
        assert time.monotonic() - started < 3, head


async def test_the_paired_browser_is_served_while_hundreds_of_connections_stall(
    server: BridgeServer,
) -> None:
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")
    stalled = []
    for _ in range(300):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /v1/pair HTTP/1.1\r\nHost: 127.0.0.1:")  # and nothing more
        stalled.append((reader, writer))
    await asyncio.sleep(0.2)
    assert len(server.connections.untrusted) <= guard.MAX_UNTRUSTED_CONNECTIONS
    started = time.monotonic()
    for _ in range(5):
        reply = await asyncio.wait_for(extension.post("/v1/hello", {}), 5)
        assert reply.status == 200
    assert time.monotonic() - started < 3
    # The server let go of all but the newest few of the stalled ones.
    closed = 0
    for reader, _ in stalled:
        try:
            closed += await asyncio.wait_for(reader.read(), 0.01) == b""
        except TimeoutError:
            pass
    assert closed >= 300 - guard.MAX_UNTRUSTED_CONNECTIONS
    for _, writer in stalled:
        writer.close()


@pytest.mark.parametrize(
    "head",
    [
        "POST /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\n"
        "Content-Length: 2\r\n\r\n{{}}",
        "POST /v1/pair HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 2\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "GET /v1/results HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Long: "
        + "A" * 128_000
        + "\r\n\r\n",
        "GET /v1/results HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nBad Header Name: x\r\n\r\n",
        "NOT-HTTP \x00\x01\x02\r\n\r\n",
    ],
    ids=["duplicate-host", "length-and-chunked", "128k-header", "bad-header-name", "not-http"],
)
async def test_errors_of_the_http_parser_are_the_bridges_short_json(
    server: BridgeServer, head: str
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(head.format(port=server.port).encode("latin-1"))
    await writer.drain()
    answer = await closed_by_server(reader, 5)
    writer.close()
    status_head, _, body = answer.partition(b"\r\n\r\n")
    assert status_head.split(b" ")[1] == b"400", answer[:300]
    assert b"content-type: application/json" in status_head.lower()
    assert len(body) < 400 and b"AAAA" not in body and b"evil" not in body
    assert json.loads(body)["error"]["code"] == "BRIDGE_BAD_REQUEST"


async def test_a_request_the_bridge_fails_on_is_its_json_too(
    server: BridgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")

    def broken(*args: object) -> None:
        raise RuntimeError("a bug, for the test")

    monkeypatch.setattr(server.bridge, "seen", broken)
    reply = await extension.post("/v1/hello", {})
    assert (reply.status, reply.code) == (500, "BRIDGE_INTERNAL_ERROR")
    assert "a bug" not in reply.body.decode()


async def test_empty_lines_before_a_request_head_do_not_end_its_deadline(
    server: BridgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26, item 13: a blank line before the request line (which HTTP lets a server skip)
    used to count as the head's end, and the connection then had no deadline at all."""
    monkeypatch.setattr(guard, "HEAD_TIMEOUT_S", 0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"\r\n\r\n\r\n\r\nPOST /v1/hello HTTP/1.1\r\n")
    await writer.drain()
    assert await closed_by_server(reader, 3) == b""
    writer.close()
    # A request after such blank lines is still served.
    extension = Extension(server.port)
    await extension.pair(server.pairing_code or "")
    body = b"{}"
    head = (
        f"\r\n\r\nPOST /v1/hello HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Authorization: {(await extension.signed('POST', '/v1/hello'))['Authorization']}\r\n"
        f"Origin: {EXTENSION_ORIGIN}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(head.encode() + body)
    await writer.drain()
    answer = await closed_by_server(reader, 5)
    writer.close()
    assert answer.split(b" ")[1] == b"200", answer[:200]


async def test_huge_numbers_and_lone_surrogates_are_bad_requests_not_failures(
    server: BridgeServer,
) -> None:
    """Issue 26, item 13: a 5,000-digit position and a lone surrogate in a pairing code were 500s,
    and a lone surrogate in a message's text passed the door and failed later."""
    code = server.pairing_code or ""
    reply = await raw(
        server.port,
        "POST",
        "/v1/pair",
        headers={"Origin": EXTENSION_ORIGIN},
        body=b'{"code": "12\\ud800345"}',
    )
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST"), reply.body
    extension = Extension(server.port)
    assert (await extension.pair(code)).status == 200  # no try of the code was spent on it
    digits = "7" * 5000
    reply = await extension.get(f"/v1/results?conversation=c&position={digits}")
    assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST"), reply.body
    for position in (digits, "10" + "0" * 10):
        body = (
            '{"conversation": "c", "position": ' + position + ', "text": "OPERATOR_CMD\\n", '
            '"generating": true}'
        ).encode()
        reply = await raw(
            server.port,
            "POST",
            "/v1/message",
            headers=await extension.signed("POST", "/v1/message"),
            body=body,
        )
        assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST"), reply.body
    for body in (
        b'{"conversation": "c", "position": 0, "text": "OPERATOR_CMD\\n\\udc80", '
        b'"generating": true}',
        b'{"tab": {"site": "\\ud83d", "title": "t"}}',
    ):
        path = "/v1/message" if b"text" in body else "/v1/hello"
        headers = await extension.signed("POST", path)
        reply = await raw(server.port, "POST", path, headers=headers, body=body)
        assert (reply.status, reply.code) == (400, "BRIDGE_BAD_REQUEST"), reply.body
        assert "surrogate" in reply.json()["error"]["message"]
    # A surrogate pair (one emoji) is text like any other.
    reply = await raw(
        server.port,
        "POST",
        "/v1/hello",
        headers=await extension.signed("POST", "/v1/hello"),
        body=b'{"tab": {"site": "Claude", "title": "\\ud83d\\ude00"}}',
    )
    assert reply.status == 200 and server.bridge.tab is not None
    assert server.bridge.tab.title == "\U0001f600"
