"""The bridge's HTTP server (aiohttp), in the event loop of the app that starts it (the TUI's).
It binds 127.0.0.1 only. Every request passes the guard first (Host, Origin, then a session's
signature: handshake.py; body size), in the order docs/bridge-protocol.md gives, and gets JSON
back, with no CORS header: a web page can neither pass as the extension nor read an answer. The
answer to a signed request is signed too, so the extension takes nothing from a program that holds
the port while Operator does not. Bodies are read with a size cap and a deadline and decoded as
UTF-8 whatever the header says; connections.py bounds what comes before (request heads, untrusted
connections, the HTTP parser's own errors). The routes translate JSON to calls on `Bridge`
(service.py), which holds the state.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from msgspec import Struct

from .. import __version__
from ..protocol import page_openers
from . import guard, peers
from .connections import ConnectionBook, GuardedHandler, protocol_factory
from .feeder import StreamHost
from .handshake import PROOF_HEADER, Admitted, Sessions, is_nonce, sign
from .pairing import Client, PairingRefused, remember_port
from .service import Bridge, BridgeStatus, Listener

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MAX_CONVERSATION_CHARS = 2_000
MAX_POSITION = 1_000_000  # a page's assistant messages; a number past it is no page's
BRIDGE_KEY = web.AppKey("bridge", Bridge)
PORT_KEY = web.AppKey(
    "port", list
)  # [port], filled in once the socket is bound (port 0: the OS picks)
SESSIONS_KEY = web.AppKey("sessions", Sessions)  # those of this listening socket only
OPEN_PATHS = ("/v1/pair", "/v1/handshake")  # taken without a session: they open one


class Checked(Struct, frozen=True):
    """What the guard found of a request: its session (when it was signed in one) and the refusal
    to send (None: let it through). A refusal to a signed request is signed too."""

    admitted: Admitted | None = None
    refusal: guard.Refusal | None = None


CHECKED_KEY = web.RequestKey("checked", Checked)  # made once: the Expect handler and the guard


class BridgeUnavailable(Exception):
    """The bridge could not start (its port is taken, no loopback)."""


def _refuse(refusal: guard.Refusal, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(
        {"error": {"code": refusal.code, "message": refusal.message}},
        status=refusal.status,
        headers=headers,
    )


def _bad_request(message: str) -> web.Response:
    return _refuse(guard.Refusal(400, "BRIDGE_BAD_REQUEST", message))


def _checked(request: web.Request) -> Checked:
    """The guard's checks of a request, in the protocol's order, made once per request."""
    if CHECKED_KEY in request:
        return request[CHECKED_KEY]
    checked = _check(request)
    request[CHECKED_KEY] = checked
    if checked.admitted is not None and checked.refusal is None:
        connection = request.protocol
        if isinstance(connection, GuardedHandler):
            connection.trust()
    return checked


def _check(request: web.Request) -> Checked:
    bridge, port = request.app[BRIDGE_KEY], request.app[PORT_KEY][0]
    origin = request.headers.get("Origin")
    # The request target as sent: in absolute form (`http://host:port/path`) it names a host too.
    absolute = None if request.raw_path.startswith("/") else urlsplit(request.raw_path).netloc
    refusal = guard.check_host(request.headers.get("Host"), port, absolute)
    if refusal is None:
        refusal = guard.check_origin(origin, None) if origin is not None else None
    if refusal is not None:
        return Checked(refusal=refusal)
    admitted = None
    if request.path not in OPEN_PATHS:
        # A wrong signature is refused and nothing more: it is not counted toward a lock-out,
        # which anyone on this computer could then trigger to lock the person's own pairing.
        found = request.app[SESSIONS_KEY].admit(
            request.headers.get("Authorization"), request.method, request.raw_path
        )
        if isinstance(found, guard.Refusal):
            return Checked(refusal=found)
        admitted = found
        paired = bridge.pairing.match(found.session.token)
        if paired is None:  # forgotten meanwhile (operator-app bridge --forget)
            request.app[SESSIONS_KEY].end(found.session)
            return Checked(refusal=guard.UNPAIRED)
        # A session is good only from the extension that paired (when that one said): it opened
        # the session under that Origin, and a request naming another is refused. (The browser
        # names none on a GET.)
        refusal = guard.check_origin(origin, paired.origin)
    opening = request.path in OPEN_PATHS  # a code or a nonce: a small body
    limit = guard.MAX_PAIR_BODY_BYTES if opening else guard.MAX_BODY_BYTES
    if refusal is None and (request.content_length or 0) > limit:
        refusal = guard.PAIR_TOO_LARGE if opening else guard.TOO_LARGE
    return Checked(admitted, refusal)


def _signed(response: web.Response, admitted: Admitted | None) -> web.Response:
    """The answer to a request signed in a session carries its own proof (handshake.py)."""
    if admitted is not None:
        body = response.body if isinstance(response.body, bytes) else b""
        response.headers[PROOF_HEADER] = sign(admitted, response.status, body)
    return response


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    checked = _checked(request)
    if checked.refusal is not None:
        return _signed(_refuse(checked.refusal), checked.admitted)
    try:
        response = await handler(request)
    except web.HTTPNotFound:
        response = _refuse(
            guard.Refusal(404, "BRIDGE_NOT_FOUND", f"no such bridge request: {request.path}")
        )
    except web.HTTPMethodNotAllowed:
        response = _refuse(
            guard.Refusal(
                405, "BRIDGE_METHOD_NOT_ALLOWED", f"{request.method} is not taken on {request.path}"
            )
        )
    if isinstance(response, web.Response):
        return _signed(response, checked.admitted)
    return response


async def _expect(request: web.Request) -> web.StreamResponse | None:
    """`Expect: 100-continue`: answered only once the request passed every check a head allows
    (issue 35: it was answered before them), and a body over the limit is refused before the
    client sends it."""
    checked = _checked(request)
    if checked.refusal is not None:
        return _signed(_closing(checked.refusal), checked.admitted)
    if request.headers.get("Expect", "").lower() != "100-continue":
        return _signed(
            _refuse(
                guard.Refusal(
                    417, "BRIDGE_BAD_REQUEST", "the only expectation taken is 100-continue"
                )
            ),
            checked.admitted,
        )
    await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    request.writer.output_size = 0  # the answer's own size starts after this interim line
    return None


def _closing(refusal: guard.Refusal) -> web.Response:
    """A refusal after which the connection closes (the rest of the body is not waited for)."""
    response = _refuse(refusal)
    response.force_close()
    return response


async def _body(request: web.Request, limit: int, too_large: guard.Refusal) -> bytes | web.Response:
    """The request's body, at most `limit` bytes, arrived within guard.BODY_TIMEOUT_S."""
    if (request.content_length or 0) > limit:
        return _closing(too_large)
    received = bytearray()
    try:
        async with asyncio.timeout(guard.BODY_TIMEOUT_S):
            async for chunk in request.content.iter_any():
                received += chunk
                if len(received) > limit:
                    return _closing(too_large)
    except TimeoutError:
        return _closing(guard.BODY_TOO_SLOW)
    return bytes(received)


async def _json_object(
    request: web.Request,
    limit: int = guard.MAX_BODY_BYTES,
    too_large: guard.Refusal = guard.TOO_LARGE,
) -> dict[str, Any] | web.Response:
    body = await _body(request, limit, too_large)
    if isinstance(body, web.Response):
        return body
    try:
        # UTF-8 whatever the Content-Type's charset says (an unknown one must not fail the
        # decoding); nesting beyond Python's recursion limit is a bad body, not a crash.
        data = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _bad_request("the body must be a JSON object (UTF-8)")
    if not isinstance(data, dict):
        return _bad_request("the body must be a JSON object")
    if _holds_lone_surrogate(data):
        # JSON's \ud800 escapes decode to text no file, log or screen can take (issue 26: it
        # passed the door and failed later, in the middle of a message).
        return _bad_request(
            "the body holds a lone surrogate (a \\ud800-\\udfff escape without its pair): "
            "send text that is valid Unicode"
        )
    return data


def _holds_lone_surrogate(data: Any) -> bool:
    """Whether any string of a parsed JSON value (keys included) is not valid Unicode. Iterative:
    the value may be as deep as the parser allows."""
    waiting = [data]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            waiting.extend(item)
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
    return False


def _page_key(data: dict[str, Any] | Any) -> tuple[str, int] | str:
    conversation, position = data.get("conversation"), data.get("position")
    if (
        not isinstance(conversation, str)
        or not conversation
        or len(conversation) > MAX_CONVERSATION_CHARS
    ):
        return (
            "conversation must be a non-empty string of at most "
            f"{MAX_CONVERSATION_CHARS} characters"
        )
    if (
        isinstance(position, str)
        and position.isascii()
        and position.isdigit()
        and len(position) <= len(str(MAX_POSITION))
    ):
        # From a query string ("²" is a digit to str.isdigit, not to int; and int() refuses a
        # string of more than 4,300 digits with an error of its own: the length is checked first).
        position = int(position)
    if (
        not isinstance(position, int)
        or isinstance(position, bool)
        or not 0 <= position <= MAX_POSITION
    ):
        return (
            f"position must be a whole number from 0 to {MAX_POSITION} "
            "(the message's index among the page's assistant messages)"
        )
    return conversation, position


def _peer_uid(request: web.Request) -> int | None:
    """The user owning the other end of the connection, when the system says (peers.py)."""
    transport = request.transport
    if transport is None:
        return None
    peer, own = transport.get_extra_info("peername"), transport.get_extra_info("sockname")
    if not isinstance(peer, tuple) or not isinstance(own, tuple):
        return None
    return peers.peer_uid((str(peer[0]), int(peer[1])), (str(own[0]), int(own[1])))


def _looks_like_a_code(code: str) -> bool:
    digits = code.replace(" ", "").replace("-", "")
    return 0 < len(digits) <= 32 and digits.isascii() and digits.isdigit()


def _tab(data: dict[str, Any]) -> dict[str, Any] | None:
    tab = data.get("tab")
    return tab if isinstance(tab, dict) else None


async def _pair(request: web.Request) -> web.Response:
    bridge = request.app[BRIDGE_KEY]
    data = await _json_object(request, guard.MAX_PAIR_BODY_BYTES, guard.PAIR_TOO_LARGE)
    if isinstance(data, web.Response):
        return data
    code, browser = data.get("code"), data.get("browser")
    if not isinstance(code, str) or not _looks_like_a_code(code):
        # Not a try of the code: only digits (with the spaces or dashes Operator shows) can be.
        return _bad_request('send {"code": "<the 6 digits Operator shows>"}')
    origin = request.headers.get("Origin")
    client = Client(_peer_uid(request), origin, peers.names_users())
    try:
        paired = bridge.pair(code, client, browser if isinstance(browser, str) else "a browser")
    except PairingRefused as exc:
        return _refuse(guard.Refusal(403, exc.code, str(exc)))
    return web.json_response(
        {
            "token": paired.token,
            "workspace": bridge.workspace_name(),
            "operator_version": __version__,
        }
    )


async def _handshake(request: web.Request) -> web.Response:
    """Open a session: the server proves it holds the pairing's key (handshake.py)."""
    bridge = request.app[BRIDGE_KEY]
    data = await _json_object(request, guard.MAX_PAIR_BODY_BYTES, guard.PAIR_TOO_LARGE)
    if isinstance(data, web.Response):
        return data
    pairing, nonce = data.get("pairing"), data.get("nonce")
    if not isinstance(pairing, str) or len(pairing) > 128 or not is_nonce(nonce):
        return _bad_request(
            'send {"pairing": "<the id of the pairing>", "nonce": "<at least 16 random bytes, '
            'in URL-safe base64>"}'
        )
    paired = bridge.pairing.named(pairing)
    if paired is None:
        return _refuse(guard.UNPAIRED)
    # The key alone opens nothing: a session is opened only under the Origin that paired.
    refusal = guard.check_origin(request.headers.get("Origin"), paired.origin, required=True)
    if refusal is not None:
        return _refuse(refusal)
    assert isinstance(nonce, str)
    opened = request.app[SESSIONS_KEY].open(paired.token, nonce)
    return web.json_response(
        {"session": opened.session, "nonce": opened.nonce, "proof": opened.proof}
    )


async def _hello(request: web.Request) -> web.Response:
    bridge = request.app[BRIDGE_KEY]
    data = await _json_object(request)
    if isinstance(data, web.Response):
        return data
    browser = data.get("browser")
    bridge.seen(
        _tab(data),
        no_tab="tab" in data and data["tab"] is None,
        browser=browser if isinstance(browser, str) else None,
    )
    wait = data.get("wait", 0)
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait <= 25:
        return _bad_request("wait must be a number of seconds from 0 to 25")
    # The extension keeps one such hello waiting, so it learns at once when the bridge stops.
    stopping = await bridge.wait_while_running(float(wait))
    return web.json_response(
        {
            "workspace": bridge.workspace_name(),
            "operator_version": __version__,
            "bridge": "stopping" if stopping else "connected",
            # What a block for Operator begins with on a page, per dialect: the extension looks
            # for these, so a dialect Operator learns needs no new extension.
            "openers": page_openers(),
        }
    )


async def _page_request(
    request: web.Request,
) -> tuple[Bridge, dict[str, Any], tuple[str, int]] | web.Response:
    """The bridge, the JSON body and the page message it names; or the refusal to send."""
    data = await _json_object(request)
    if isinstance(data, web.Response):
        return data
    key = _page_key(data)
    if isinstance(key, str):
        return _bad_request(key)
    bridge = request.app[BRIDGE_KEY]
    bridge.seen(_tab(data))
    return bridge, data, key


async def _message(request: web.Request) -> web.Response:
    parsed = await _page_request(request)
    if isinstance(parsed, web.Response):
        return parsed
    bridge, data, key = parsed
    text, generating = data.get("text"), data.get("generating")
    resent = data.get("resent", False)
    if (
        not isinstance(text, str)
        or not isinstance(generating, bool)
        or not isinstance(resent, bool)
    ):
        return _bad_request(
            "text must be the message's whole text (a string), generating true or false, and "
            "resent (when given) true or false"
        )
    if bridge.workspace_name() is None:
        return _refuse(
            guard.Refusal(
                409,
                "BRIDGE_NO_WORKSPACE",
                (
                    "Operator has no workspace open: choose one in Operator (w), "
                    "then the message is taken"
                ),
            )
        )
    return web.json_response(bridge.update(key, text, generating, _tab(data), resent=resent))


async def _results(request: web.Request) -> web.Response:
    bridge = request.app[BRIDGE_KEY]
    key = _page_key(dict(request.query))
    if isinstance(key, str):
        return _bad_request(key)
    try:
        wait = float(request.query.get("wait", "0"))
    except ValueError:
        wait = math.nan
    if not math.isfinite(wait):  # "nan" would hold the poll open for good
        return _bad_request("wait must be a number of seconds (0 to 25)")
    bridge.seen()
    return web.json_response(await bridge.wait_results(key, wait))


async def _delivered(request: web.Request) -> web.Response:
    parsed = await _page_request(request)
    if isinstance(parsed, web.Response):
        return parsed
    bridge, data, key = parsed
    number = data.get("message")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        return _bad_request("message must be the Operator message number the results came from")
    return web.json_response({"ok": bridge.delivered(key, number, data.get("sent") is True)})


async def _asked(request: web.Request) -> web.Response:
    parsed = await _page_request(request)
    if isinstance(parsed, web.Response):
        return parsed
    bridge, data, key = parsed
    number = data.get("message")
    if not isinstance(number, int) or isinstance(number, bool):
        return _bad_request("message must be the Operator message number the results came from")
    return web.json_response({"ok": bridge.asked(key, number)})


class BridgeServer:
    """The running bridge: start it in a running event loop, stop it there."""

    def __init__(
        self,
        current_host: Callable[[], StreamHost | None],
        listener: Listener,
        workspace_name: Callable[[], str | None],
        paused: Bridge | None = None,
    ) -> None:
        """`paused`: the bridge of a server stopped with `stop(pause=True)`, whose messages being
        written go on here."""
        if paused is not None:
            paused.resume()
        self._resumed = paused is not None
        self.bridge = paused or Bridge(current_host, listener, workspace_name)
        self._runner: web.AppRunner | None = None
        self._listening: asyncio.Server | None = None
        self.connections = ConnectionBook()

    @property
    def port(self) -> int | None:
        return self.bridge.port

    @property
    def pairing_code(self) -> str | None:
        return self.bridge.pairing.code

    def pair_again(self, keep_paired: bool = False) -> str:
        return self.bridge.offer_code(keep_paired)

    def keep_paired(self, on: bool) -> bool:
        """The code on offer pairs a browser beside the paired ones (on) or in their place."""
        kept = self.bridge.pairing.keep_paired(on)
        self.bridge.status_now()
        return kept

    def status(self) -> BridgeStatus:
        return self.bridge.status()

    async def start(self, port: int) -> None:
        """Listen on 127.0.0.1:port (0: a free port). Raises BridgeUnavailable with the reason."""
        app = web.Application(middlewares=[_guard], client_max_size=guard.MAX_BODY_BYTES)
        app[BRIDGE_KEY] = self.bridge
        app[PORT_KEY] = [port]
        app[SESSIONS_KEY] = Sessions()
        for path, handler in (
            ("/v1/pair", _pair),
            ("/v1/handshake", _handshake),
            ("/v1/hello", _hello),
            ("/v1/message", _message),
            ("/v1/delivered", _delivered),
            ("/v1/asked", _asked),
        ):
            app.router.add_post(path, handler, expect_handler=_expect)
        app.router.add_get("/v1/results", _results)
        # lingering_time: a request refused for its size is not read to its end for long.
        runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0, lingering_time=1.0
        )
        await runner.setup()
        assert runner.server is not None
        # Each connection gets the guarded handler (connections.py); lingering_time: a request
        # refused for its size is not read to its end for long.
        factory = protocol_factory(
            runner.server, self.connections, access_log=None, lingering_time=1.0
        )
        try:
            self._listening = await asyncio.get_running_loop().create_server(
                factory, "127.0.0.1", port
            )
        except OSError as exc:
            await runner.cleanup()
            if self._resumed:
                self.bridge.pause()  # its messages still wait for a bridge that starts
            else:
                self.bridge.stop()
            raise BridgeUnavailable(
                f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
                + (
                    " (another Operator may have its bridge on: stop it there, "
                    "or start this one with --bridge-port N)"
                    if port
                    else ""
                )
            ) from None
        self._runner = runner
        bound = self._listening.sockets[0].getsockname()[1]
        app[PORT_KEY][0] = self.bridge.port = bound
        if port:
            remember_port(bound)
        if not self.bridge.pairing.pairings:
            self.bridge.offer_code()

    async def stop(self, pause: bool = False) -> None:
        """Stop listening. Long polls answer at once; the messages being written end, or with
        `pause` wait for the rest of their text from the next server given this one's bridge."""
        if pause:
            self.bridge.pause()
        else:
            await self.bridge.finish()
        if self._listening is not None:
            self._listening.close()
            self._listening = None
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
