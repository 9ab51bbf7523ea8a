"""The bridge's connections, below HTTP: what aiohttp's request handler does not bound by itself.

- A request's head (request line and headers) must arrive within `guard.HEAD_TIMEOUT_S` of its
  first byte (or of the connection's opening), and the next one within `guard.IDLE_TIMEOUT_S` of
  the answer before it, whatever that answer was (issue 35: after a refusal, which the guard
  sent before the request reached a route, no deadline was set again, and a connection stayed
  200 s): a client that sends a few bytes now and then no longer holds a socket for good. Empty
  lines before a request line (which HTTP lets a server skip) are no head: a head ends at the
  first blank line after a request line, never at `\r\n\r\n` alone (issue 26: that switched the
  deadline off). (Bodies are bounded where they are read, in server.py.)
- Connections that have not shown a session of a paired browser are capped at
  `guard.MAX_UNTRUSTED_CONNECTIONS`; a new one beyond the cap closes the oldest of them that is
  not in the middle of a request (the oldest of all when every one is), never the new one itself
  and never a connection of the paired browser, so hundreds of idle sockets cannot starve the
  browser of file descriptors or of the server's attention, and a flood of new connections does
  not close a pairing request being answered.
- Errors the HTTP parser raises itself (a duplicate Host, Content-Length beside chunked) are
  answered with the bridge's short JSON error, like every other refusal, never with aiohttp's
  plain text (which may echo what was sent).
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from . import guard

_HEAD_END = b"\r\n\r\n"


class ConnectionBook:
    """The open connections that have not (yet) shown the paired token, oldest first."""

    def __init__(self) -> None:
        self.untrusted: dict[GuardedHandler, None] = {}

    def opened(self, connection: GuardedHandler) -> None:
        while len(self.untrusted) >= guard.MAX_UNTRUSTED_CONNECTIONS:
            idle = (other for other in self.untrusted if not other.in_request)
            oldest = next(idle, None) or next(iter(self.untrusted))
            self.untrusted.pop(oldest)
            oldest.force_close()
        self.untrusted[connection] = None

    def trusted(self, connection: GuardedHandler) -> None:
        self.untrusted.pop(connection, None)

    def closed(self, connection: GuardedHandler) -> None:
        self.untrusted.pop(connection, None)


class GuardedHandler(RequestHandler):
    """aiohttp's request handler with a deadline on each request head, a place in the book of
    untrusted connections, and JSON errors."""

    def __init__(self, manager: web.Server, book: ConnectionBook, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._book = book
        self._awaiting_head = True
        self._head_started = False
        self._head_begun = False  # a byte other than CR and LF came: the request line began
        self._head_tail = b""
        self._head_deadline: asyncio.TimerHandle | None = None

    # --- the deadline on each request head ---

    def _set_deadline(self, seconds: float) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
        self._head_deadline = self._loop.call_later(seconds, self._head_too_slow)

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self._awaiting_head:
            self.force_close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._head_started = True  # an open connection that says nothing counts as a slow head
        self._set_deadline(guard.HEAD_TIMEOUT_S)
        self._book.opened(self)

    def data_received(self, data: bytes) -> None:
        if self._awaiting_head and data:
            if not self._head_started:
                self._head_started = True
                self._set_deadline(guard.HEAD_TIMEOUT_S)
            seen = self._head_tail + data
            if not self._head_begun:
                seen = seen.lstrip(b"\r\n")
                self._head_begun = bool(seen)
            if _HEAD_END in seen:
                self._awaiting_head, self._head_begun = False, False
                self._head_tail = b""
                if self._head_deadline is not None:
                    self._head_deadline.cancel()
                    self._head_deadline = None
            else:
                self._head_tail = seen[-(len(_HEAD_END) - 1) :]
        super().data_received(data)

    @property
    def in_request(self) -> bool:
        """A request's head came whole and its answer is not sent yet."""
        return not self._awaiting_head

    async def _handle_request(self, request: Any, start_time: Any, request_handler: Any) -> Any:
        # Every answer, a refusal of the guard or of the Expect handler too, sets the deadline
        # of the next head.
        try:
            return await super()._handle_request(request, start_time, request_handler)
        finally:
            self.request_finished()

    def request_finished(self) -> None:
        """The app answered a request on this connection: the next head has its own deadline."""
        self._awaiting_head, self._head_started, self._head_tail = True, False, b""
        self._head_begun = False
        if self.transport is not None:  # not for a connection gone meanwhile
            self._set_deadline(guard.IDLE_TIMEOUT_S)

    def trust(self) -> None:
        """A request on this connection was signed in a paired browser's session."""
        self._book.trusted(self)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None
        self._book.closed(self)
        super().connection_lost(exc)

    # --- errors aiohttp raises itself ---

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if request.writer.output_size > 0:
            raise ConnectionError("the answer had begun: no error can follow it")
        if status >= 500:
            code, text = (
                "BRIDGE_INTERNAL_ERROR",
                ("Operator's bridge failed on this request; nothing was run from it"),
            )
        else:
            code = "BRIDGE_BAD_REQUEST"
            reason = (
                HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "error"
            )
            # What the parser disliked is named by kind only: its own message may quote the input.
            kind = type(exc).__name__ if exc is not None else "the request"
            text = (
                f"not a well-formed HTTP/1.1 request ({reason}: {kind}); "
                "send one request with one Host header"
            )
        body = json.dumps({"error": {"code": code, "message": text}}).encode()
        response = web.Response(status=status, body=body, content_type="application/json")
        response.force_close()
        return response


def protocol_factory(server: web.Server, book: ConnectionBook, **kwargs: Any) -> Any:
    """What `loop.create_server` calls for each accepted connection."""
    loop = asyncio.get_running_loop()
    return lambda: GuardedHandler(server, book, loop=loop, **kwargs)
