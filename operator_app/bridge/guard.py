"""Who may talk to the bridge. Loopback is not a trust boundary: every web page the person opens
can send requests to 127.0.0.1, and a DNS-rebinding page can even read the answers of a server
that does not check the Host header. So a request is refused unless its Host names the bridge
itself, its Origin is an extension's (or absent, as for a local tool), and it carries the paired
token; failed tokens and pairing codes are rate limited. Pure checks: the server applies them.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

MAX_BODY_BYTES = 4 * 1024 * 1024
FAILURE_WINDOW_S = 60.0
FAILURES_ALLOWED = 10
LOCKOUT_S = 60.0
EXTENSION_SCHEMES = ("chrome-extension://", "moz-extension://")


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str


def check_host(host: str | None, port: int) -> Refusal | None:
    if host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        return None
    return Refusal(
        421,
        "BRIDGE_BAD_HOST",
        (
            f"this is Operator's bridge on 127.0.0.1:{port}; a request addressed to "
            f"{host or 'no host'} is refused (a web page may not reach it under another name): use "
            f"http://127.0.0.1:{port}/"
        ),
    )


def check_origin(origin: str | None, paired_origin: str | None) -> Refusal | None:
    if origin is None:
        return None
    if not origin.startswith(EXTENSION_SCHEMES):
        return Refusal(
            403,
            "BRIDGE_BAD_ORIGIN",
            (
                f"requests from web pages ({origin}) are refused: only the Operator browser "
                "extension may use the bridge"
            ),
        )
    if paired_origin is not None and origin != paired_origin:
        return Refusal(
            403,
            "BRIDGE_BAD_ORIGIN",
            (
                f"this bridge is paired with another extension ({paired_origin}); pair this one "
                "again from its popup"
            ),
        )
    return None


class FailureLimiter:
    """Counts failed tokens and pairing codes; after too many in a short time, refuses anyone
    who has not got the right token for a while."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._failures: deque[float] = deque()
        self._locked_until = 0.0

    def locked_for(self) -> float:
        """Seconds left of the lock-out, 0 when there is none."""
        return max(0.0, self._locked_until - self._clock())

    def failed(self) -> None:
        now = self._clock()
        self._failures.append(now)
        while self._failures and self._failures[0] <= now - FAILURE_WINDOW_S:
            self._failures.popleft()
        if len(self._failures) >= FAILURES_ALLOWED:
            self._locked_until = now + LOCKOUT_S
            self._failures.clear()

    def refusal(self) -> Refusal | None:
        left = self.locked_for()
        if not left:
            return None
        return Refusal(
            429,
            "BRIDGE_TOO_MANY_FAILURES",
            (
                "too many wrong tokens or pairing codes; the bridge refuses them for "
                f"{int(left) + 1} more seconds"
            ),
        )


UNAUTHORIZED = Refusal(
    401,
    "BRIDGE_UNAUTHORIZED",
    (
        "missing or wrong bridge token: pair the extension with Operator (open its popup and type "
        "the code Operator shows when you press b, or 'Pair a browser' in Operator's command "
        "palette)"
    ),
)
TOO_LARGE = Refusal(
    413,
    "BRIDGE_TOO_LARGE",
    (
        f"the request body is over {MAX_BODY_BYTES // (1024 * 1024)} MiB; a chat message is never "
        "that large"
    ),
)
