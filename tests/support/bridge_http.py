"""Helpers for the bridge's tests: raw HTTP requests to the real server (every header exactly as
given, as a hostile page or program would send them), and a paired client speaking for the
extension: it opens a session with its key and signs each request, and checks each answer's proof,
as docs/bridge-protocol.md ("The handshake") says, written here again from that text (not taken
from the server's code, so the two are checked against each other)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from tests.support.pilot import wait_for

EXTENSION_ORIGIN = "chrome-extension://operatortestextensionid"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    proven: bool | None = None  # a signed request's answer: whether its proof was right

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def code(self) -> str | None:
        try:
            return self.json()["error"]["code"]
        except (ValueError, KeyError, TypeError):
            return None


async def raw(
    port: int,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    host: str | None = None,
) -> Reply:
    """One HTTP/1.1 request on its own connection; `host` (default 127.0.0.1:port) is sent as is."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: {host if host is not None else f'127.0.0.1:{port}'}",
        "Connection: close",
    ]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    if body is not None and not any(
        name.lower() in ("content-length", "transfer-encoding") for name in (headers or {})
    ):
        lines.append(f"Content-Length: {len(body)}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
    await writer.drain()
    data = await reader.read()
    writer.close()
    head, _, content = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = value.strip()
    if parsed.get("transfer-encoding") == "chunked":
        content = _unchunk(content)
    return Reply(int(status_line.split()[1]), parsed, content)


def _unchunk(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, data = out + data[:size], data[size + 2 :]
    return out


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hmac256(key: bytes, *parts: str) -> bytes:
    return hmac.new(key, "\n".join(parts).encode(), hashlib.sha256).digest()


PROTOCOL = "operator-bridge/1"


def pairing_id(token: str) -> str:
    return b64(hmac256(token.encode(), f"{PROTOCOL} pairing"))


@dataclass
class Session:
    id: str
    key: bytes
    seq: int = 0


class Extension:
    """Speaks for the browser extension: its origin, its key (the pairing's token), its session."""

    def __init__(self, port: int, token: str | None = None, origin: str = EXTENSION_ORIGIN) -> None:
        self.port, self.token, self.origin = port, token, origin
        self.session: Session | None = None
        self.handshake_reply: Reply | None = None

    def headers(self) -> dict[str, str]:
        """The headers of a request that is not signed (a pairing, a handshake)."""
        headers = {"Content-Type": "application/json"}
        if self.origin:
            headers["Origin"] = self.origin
        return headers

    async def handshake(self) -> Reply:
        """Open a session: the server must prove it holds the key before anything else is sent."""
        assert self.token is not None
        nonce = b64(secrets.token_bytes(32))
        reply = await raw(
            self.port,
            "POST",
            "/v1/handshake",
            headers=self.headers(),
            body=json.dumps({"pairing": pairing_id(self.token), "nonce": nonce}).encode(),
        )
        self.handshake_reply, self.session = reply, None
        if reply.status != 200:
            return reply
        data = reply.json()
        key = self.token.encode()
        said = (nonce, data["nonce"], data["session"])
        reply.proven = hmac.compare_digest(
            b64(hmac256(key, f"{PROTOCOL} server", *said)), data["proof"]
        )
        if reply.proven:
            self.session = Session(data["session"], hmac256(key, f"{PROTOCOL} session", *said))
        return reply

    async def signed(self, method: str, target: str) -> dict[str, str]:
        """The headers of `method target`, signed in this extension's session (opened first)."""
        if self.session is None:
            await self.handshake()
        assert self.session is not None, self.handshake_reply
        self.session.seq += 1
        seq = self.session.seq
        mac = b64(hmac256(self.session.key, "request", str(seq), method, target))
        return {**self.headers(), "Authorization": f"Operator {self.session.id} {seq} {mac}"}

    def proof(self, reply: Reply, seq: int) -> bool:
        assert self.session is not None
        digest = b64(hashlib.sha256(reply.body).digest())
        expected = b64(hmac256(self.session.key, "response", str(seq), str(reply.status), digest))
        return hmac.compare_digest(expected, reply.headers.get("operator-proof", ""))

    async def pair(self, code: str, browser: str = "Chromium (test)") -> Reply:
        reply = await raw(
            self.port,
            "POST",
            "/v1/pair",
            headers=self.headers(),
            body=json.dumps({"code": code, "browser": browser}).encode(),
        )
        if reply.status == 200:
            self.token, self.session = reply.json()["token"], None
        return reply

    async def request(self, method: str, path: str, body: bytes | None = None) -> Reply:
        """A request in this extension's session (a session the server forgot is opened again, as
        the extension does); the answer's proof is checked (`proven`). A handshake that fails is
        the answer."""
        if self.token is None:  # not paired: sent as is, unsigned
            return await raw(self.port, method, path, headers=self.headers(), body=body)
        for _ in range(2):
            if self.session is None:
                opened = await self.handshake()
                if self.session is None:
                    return opened
            assert self.session is not None
            headers = await self.signed(method, path)
            seq = self.session.seq
            reply = await raw(self.port, method, path, headers=headers, body=body)
            reply.proven = self.proof(reply, seq)
            if reply.status != 401 or reply.proven:
                return reply
            self.session = None
        return reply

    async def post(self, path: str, payload: Any) -> Reply:
        return await self.request("POST", path, json.dumps(payload).encode())

    async def get(self, path: str) -> Reply:
        return await self.request("GET", path)

    async def message(
        self,
        text: str,
        *,
        generating: bool,
        conversation: str = "chat/1",
        position: int = 0,
        site: str = "ChatGPT",
        title: str = "Fix the tests",
        resent: bool | None = None,
    ) -> Reply:
        payload: dict[str, Any] = {
            "conversation": conversation,
            "position": position,
            "text": text,
            "generating": generating,
            "tab": {"id": 1, "site": site, "title": title, "url": "https://x"},
        }
        if resent is not None:
            payload["resent"] = resent
        return await self.post("/v1/message", payload)

    async def answer(self, text: str, seen: str = "", **where: Any) -> Reply:
        """The page's answer as the extension sends one it watched being written: its start (up to
        its first OPERATOR_CMD line after `seen`, what Operator had of it already) while the model
        writes, then the whole text finished. (A text that would open an Operator message and comes
        already finished ended while Operator was not listening: it is held.)"""
        start = text.find("OPERATOR_CMD\n", len(seen))
        await self.message(
            text[: start + len("OPERATOR_CMD\n")] if start >= 0 else text, generating=True, **where
        )
        return await self.message(text, generating=False, **where)

    async def results(
        self, conversation: str = "chat/1", position: int = 0, wait: float = 0
    ) -> Any:
        reply = await self.get(
            f"/v1/results?conversation={conversation}&position={position}&wait={wait}"
        )
        assert reply.status == 200, reply.body
        return reply.json()

    async def settled(
        self, conversation: str = "chat/1", position: int = 0, wait: float = 10
    ) -> Any:
        """Poll as the extension does until the results are settled (ready, failed or none) or
        `wait` seconds are over: one long poll answers at once with any news the page has not
        heard yet (the read now runs, no write waits), not only with the last state."""
        deadline = asyncio.get_running_loop().time() + wait
        while True:
            left = deadline - asyncio.get_running_loop().time()
            reply = await self.results(conversation, position, wait=max(left, 0))
            if reply["state"] in ("ready", "failed", "none") or left <= 0:
                return reply


def bridged_app(workspace: Any, state: Any, **kwargs: Any) -> Any:
    """The real TUI with its bridge on, on a free port."""
    from operator_app.tui.app import OperatorApp

    kwargs.setdefault("poll_interval", 0.05)
    return OperatorApp(workspace=workspace, state_dir=state, bridge=True, bridge_port=0, **kwargs)


async def paired_extension(pilot: Any, app: Any) -> Extension:
    """Wait for the bridge, pair through the code the TUI shows, close nothing by hand: the
    pairing dialog closes itself."""
    await wait_for(pilot, lambda: app.bridge is not None and app.bridge.pairing_code is not None)
    extension = Extension(app.bridge.port)
    reply = await extension.pair(app.bridge.pairing_code)
    assert reply.status == 200, reply.body
    await wait_for(pilot, lambda: len(app.screen_stack) == 1)
    return extension
