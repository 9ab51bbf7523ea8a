"""Who may talk to the bridge. Loopback is not a trust boundary: every web page the person opens
can send requests to 127.0.0.1, and a DNS-rebinding page can even read the answers of a server
that does not check the Host header. So a request is refused unless its Host (and the authority of
an absolute request URI) names the bridge itself, its Origin is an extension's (or absent, as for
a local tool), and it is signed in a session opened with a paired browser's key (handshake.py),
from the Origin that paired with it. (Wrong pairing codes are limited per client and code,
pairing.py: never by a lock-out that anyone on this computer could trigger to keep the person's
own browser from pairing.) The limits on time and connections that keep a local program from
wearing the bridge down are here too. Pure checks and figures: the server and connections.py
apply them.
"""

from __future__ import annotations

from msgspec import Struct

MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_PAIR_BODY_BYTES = 16 * 1024  # a code and a browser's name; a pairing's id and a nonce
HEAD_TIMEOUT_S = 10.0  # a request's line and headers, from their first byte
IDLE_TIMEOUT_S = 30.0  # from an answer to the next request's complete head on the same connection
BODY_TIMEOUT_S = 20.0  # a request's whole body, once its head is in
MAX_UNTRUSTED_CONNECTIONS = 32  # open connections that have not shown the paired token
EXTENSION_SCHEMES = ("chrome-extension://", "moz-extension://")


class Refusal(Struct, frozen=True):
    status: int
    code: str
    message: str


def check_host(host: str | None, port: int, absolute: str | None = None) -> Refusal | None:
    """`absolute`: the authority of a request URI in absolute form (`POST http://x:1/v1/hello`),
    which HTTP says a server takes in place of the Host header: it must name the bridge too."""
    names = (f"127.0.0.1:{port}", f"localhost:{port}")
    if host in names and (absolute is None or absolute in names):
        return None
    if host in names:
        host = absolute
    return Refusal(
        421,
        "BRIDGE_BAD_HOST",
        (
            f"this is Operator's bridge on 127.0.0.1:{port}; a request addressed to "
            f"{host or 'no host'} is refused "
            f"(a web page may not reach it under another name): use http://127.0.0.1:{port}/"
        ),
    )


def check_origin(
    origin: str | None, paired_origin: str | None, *, required: bool = False
) -> Refusal | None:
    """A web page's Origin is refused; for a paired browser that sent its Origin when it paired,
    that Origin and no other. `required`: none is no other either (a session is opened only under
    the Origin that paired: a program holding the key but not the browser opens none)."""
    if origin is None and paired_origin is not None and required:
        return Refusal(
            403,
            "BRIDGE_BAD_ORIGIN",
            (
                f"this pairing belongs to the extension {paired_origin}, and a request without "
                "its Origin is refused: only that extension may use it"
            ),
        )
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
                f"this bridge is paired with another extension ({paired_origin}); "
                "pair this one again from its popup"
            ),
        )
    return None


UNAUTHORIZED = Refusal(
    401,
    "BRIDGE_UNAUTHORIZED",
    (
        "not signed in a session this bridge opened: open one with POST /v1/handshake (the "
        "extension does so by itself), or pair the extension with Operator (open its popup and "
        "type the code Operator shows when you press b, or 'Pair a browser' in Operator's "
        "command palette)"
    ),
)
UNPAIRED = Refusal(
    401,
    "BRIDGE_UNAUTHORIZED",
    (
        "no browser paired with this bridge holds that key: pair the extension with Operator "
        "again (open its popup and type the code Operator shows)"
    ),
)
REPLAYED = Refusal(
    401,
    "BRIDGE_UNAUTHORIZED",
    (
        "this request's sequence number was used before in its session (a request is taken "
        "once): open a new session with POST /v1/handshake"
    ),
)
TOO_LARGE = Refusal(
    413,
    "BRIDGE_TOO_LARGE",
    (
        f"the request body is over {MAX_BODY_BYTES // (1024 * 1024)} MiB; "
        "a chat message is never that large"
    ),
)
PAIR_TOO_LARGE = Refusal(
    413,
    "BRIDGE_TOO_LARGE",
    (
        "a pairing request (a code and a browser's name) or a handshake (a pairing's id and a "
        f"nonce) is at most {MAX_PAIR_BODY_BYTES // 1024} KiB"
    ),
)
BODY_TOO_SLOW = Refusal(
    408,
    "BRIDGE_TIMEOUT",
    (
        f"the request body did not arrive within {BODY_TIMEOUT_S:.0f} s of its headers; "
        "send it whole"
    ),
)
