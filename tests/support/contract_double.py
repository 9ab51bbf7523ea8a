"""A stand-in for Operator's bridge server that answers as docs/bridge-protocol.md says, for the
tests of the extension's page side: it records every request the extension makes and lets a test
decide when a page message's results are ready. (The end-to-end tests use the real server in the
real TUI; this one lets the extension's own rules be tested one by one: streaming, filling,
asking, auto-send, pairing.) It proves itself as Operator does: it opens sessions with the key
(`token`) it shares with the extension, takes only requests signed in one, and signs its answers
("The handshake"; the construction is tests/support/bridge_http.py's, written from the doc)."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from operator_app.protocol import page_openers
from tests.support.bridge_http import PROTOCOL, b64, hmac256, pairing_id


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class PageState:
    message: int | None = None
    text: str = ""
    generating: bool = True
    ready: dict[str, Any] | None = None  # count, copy_text once the test says so
    delivered: bool = False
    delivered_calls: list[dict[str, Any]] = field(default_factory=list)


class BridgeDouble:
    def __init__(
        self, pairing_code: str = "123456", token: str | None = None, port: int = 0
    ) -> None:
        self.pairing_code = pairing_code
        self.token = token
        self.requests: list[Recorded] = []
        self.pages: dict[tuple[str, int], PageState] = {}
        self.changed = threading.Condition()
        self.next_message = 1
        self.closed = False
        self.connections: set[socket.socket] = set()  # kept alive between requests (HTTP/1.1)
        self.sessions: dict[str, bytes] = {}  # session id -> its key
        self.workspace: str | None = (
            "demo"  # None: Operator has no workspace open (409 on /v1/message)
        )
        # What the hello says a block for Operator begins with on a page (Operator's own table).
        self.openers: list[dict[str, str | bool]] = page_openers()
        handler = type("Handler", (_Handler,), {"double": self})
        # a given port: Operator back after a restart
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    # ---- the contract's answers ----

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        key = (body["conversation"], body["position"])
        with self.changed:
            page = self.pages.setdefault(key, PageState())
            accepted = 0
            if "OPERATOR_CMD" in body["text"]:
                if page.message is None:
                    page.message = self.next_message
                    self.next_message += 1
                accepted = (
                    len(body["text"]) - len(page.text)
                    if body["text"].startswith(page.text)
                    else len(body["text"])
                )
            page.text = body["text"]
            page.generating = body["generating"]
            self.changed.notify_all()
            return {"message": page.message, "accepted": accepted, "state": self._state(page)}

    def _state(self, page: PageState) -> str:
        if page.message is None:
            return "none"
        if page.ready is not None and not page.generating:
            return "ready"
        return "streaming" if page.generating else "waiting"

    def _results(self, key: tuple[str, int], wait: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait
        with self.changed:
            while True:
                page = self.pages.get(key)
                state = "none" if page is None else self._state(page)
                if state in ("ready", "none") or time.monotonic() >= deadline or self.closed:
                    break
                self.changed.wait(timeout=max(0.01, deadline - time.monotonic()))
            if page is None or page.message is None:
                return {
                    "state": "none",
                    "message": None,
                    "count": 0,
                    "copy_text": "",
                    "delivered": False,
                    "waiting_for": None,
                }
            ready = page.ready or {}
            return {
                "state": state,
                "message": page.message,
                "count": ready.get("count", 0),
                "copy_text": ready.get("copy_text", "") if state == "ready" else "",
                "delivered": page.delivered,
                "waiting_for": None if state != "waiting" else "fs.write notes.txt",
            }

    # ---- for the tests ----

    def make_ready(self, key: tuple[str, int], copy_text: str, count: int) -> None:
        with self.changed:
            self.pages.setdefault(key, PageState()).ready = {"copy_text": copy_text, "count": count}
            self.changed.notify_all()

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> Any:
        """Wait until predicate(self) is truthy; return its value (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                value = predicate(self)
                if value:
                    return value
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError("the extension did not get there in time")
                self.changed.wait(timeout=min(remaining, 0.2))

    def posts(self, route: str) -> list[Recorded]:
        with self.changed:
            return [
                request
                for request in self.requests
                if request.method == "POST" and request.path == route
            ]

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()
        self.server.shutdown()
        self.server.server_close()
        # An Operator that quits drops every connection, the idle kept-alive ones too: left open,
        # the browser would send its next requests down them to this closed double (each costing
        # the extension a failed call and its retry pause) instead of to the Operator that comes
        # back on the same port. Only the reading side is shut: an answer being written still goes.
        with self.changed:
            open_now = list(self.connections)
        for connection in open_now:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RD)


class _Handler(BaseHTTPRequestHandler):
    double: BridgeDouble  # set on the subclass each double makes
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        with self.double.changed:
            self.double.connections.add(self.connection)

    def finish(self) -> None:
        with self.double.changed:
            self.double.connections.discard(self.connection)
        super().finish()

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw) if raw else None

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self._signed is not None:  # the answer to a signed request carries its proof
            key, seq = self._signed
            digest = b64(hashlib.sha256(data).digest())
            proof = b64(hmac256(key, "response", str(seq), str(status), digest))
            self.send_header("Operator-Proof", proof)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body: Any) -> None:
        with self.double.changed:
            self.double.requests.append(
                Recorded(self.command, self.path, dict(self.headers), body, time.monotonic())
            )
            self.double.changed.notify_all()

    _signed: tuple[bytes, int] | None = None

    def _authorized(self) -> bool:
        """Signed in a session this double opened (`Operator <session> <seq> <mac>`)."""
        self._signed = None
        parts = (self.headers.get("Authorization") or "").split(" ")
        if len(parts) != 4 or parts[0] != "Operator" or not parts[2].isdigit():
            return False
        with self.double.changed:
            key = self.double.sessions.get(parts[1])
        if key is None:
            return False
        expected = b64(hmac256(key, "request", parts[2], self.command, self.path))
        if not hmac.compare_digest(expected, parts[3]):
            return False
        self._signed = (key, int(parts[2]))
        return True

    def _handshake(self, body: Any) -> None:
        token = self.double.token
        if token is None or not isinstance(body, dict) or body.get("pairing") != pairing_id(token):
            self._answer(401, {"error": {"code": "BRIDGE_UNAUTHORIZED", "message": "pair again"}})
            return
        nonce, session = b64(secrets.token_bytes(32)), b64(secrets.token_bytes(16))
        said = (body["nonce"], nonce, session)
        with self.double.changed:
            self.double.sessions[session] = hmac256(token.encode(), f"{PROTOCOL} session", *said)
        proof = b64(hmac256(token.encode(), f"{PROTOCOL} server", *said))
        self._answer(200, {"session": session, "nonce": nonce, "proof": proof})

    def do_POST(self) -> None:
        body = self._body()
        self._record(body)
        route = urlsplit(self.path).path
        self._signed = None
        if route == "/v1/handshake":
            self._handshake(body)
            return
        if route == "/v1/pair":
            if body.get("code") != self.double.pairing_code:
                self._answer(
                    403,
                    {"error": {"code": "BRIDGE_BAD_CODE", "message": "wrong pairing code"}},
                )
                return
            self.double.token = secrets.token_urlsafe(32)
            self._answer(
                200,
                {"token": self.double.token, "workspace": "demo", "operator_version": "0.1.0"},
            )
            return
        if not self._authorized():
            self._answer(401, {"error": {"code": "BRIDGE_UNAUTHORIZED", "message": "pair again"}})
            return
        if route == "/v1/hello":
            # `wait`: answered after that long, or at once when the bridge stops.
            wait = min(25.0, float((body or {}).get("wait") or 0))
            with self.double.changed:
                self.double.changed.wait_for(lambda: self.double.closed, timeout=wait)
            bridge = "stopping" if self.double.closed else "connected"
            self._answer(
                200,
                {
                    "workspace": self.double.workspace,
                    "operator_version": "0.1.0",
                    "bridge": bridge,
                    "openers": self.double.openers,
                },
            )
        elif route == "/v1/message" and self.double.workspace is None:
            self._answer(
                409,
                {"error": {"code": "BRIDGE_NO_WORKSPACE", "message": "no workspace open"}},
            )
        elif route == "/v1/message":
            self._answer(200, self.double._message(body))
        elif route == "/v1/asked":
            self._answer(200, {"ok": True})
        elif route == "/v1/delivered":
            with self.double.changed:
                page = self.double.pages[(body["conversation"], body["position"])]
                page.delivered = True
                page.delivered_calls.append(body)
                self.double.changed.notify_all()
            self._answer(200, {"ok": True})
        else:
            self._answer(404, {"error": {"code": "BRIDGE_NOT_FOUND", "message": route}})

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorized():
            self._answer(401, {"error": {"code": "BRIDGE_UNAUTHORIZED", "message": "pair again"}})
            return
        query = parse_qs(urlsplit(self.path).query)
        key = (query["conversation"][0], int(query["position"][0]))
        wait = min(25.0, float(query.get("wait", ["0"])[0]))
        results = self.double._results(key, wait)
        if self.double.closed:  # closed while this long poll waited: the connection dies with it
            self.close_connection = True
            return
        self._answer(200, results)

    def log_message(self, format: str, *args: object) -> None:
        pass
