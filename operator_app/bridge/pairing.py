"""Pairing a browser with the bridge: a short code the person reads in the TUI and types into the
extension's popup, exchanged once for a long key (the "token": 256 random bits, one per paired
browser) that never crosses the wire again: each later request is signed in a session the
handshake opens with it (handshake.py). Keys are kept in the settings file (mode 0600) with the
origin and name of the browser that paired; they are compared in constant time. The file is
looked at again whenever it changes, so `operator-app bridge --forget` reaches a running bridge
at once (issue 26).

A code lives 10 minutes and pairs one browser. By default that browser takes the place of the
ones paired before; when the person says so in the TUI (`keep_paired`), it is paired beside them.

Wrong codes are counted per client, so that no program on this computer can keep the person
from pairing (docs/bridge-protocol.md, "Pairing"): a client is the user the kernel says owns the
other end of the connection (peers.py) and, for the person's own user, the Origin the request
names. Each client has CODE_TRIES wrong tries per code, and a client whose tries are spent is
refused before its code is looked at (issue 35: the right code was checked first, so another user
had unlimited tries). When the person's browser (an extension origin of their own user) uses up
its tries, the code is void, and the TUI says so. A program of another user only uses up its own
tries: a handful of guesses among a million codes. A client the kernel does not name (a socket
closed before its request was read) gets no try at all: it is never taken for the person. Only
where the system names no user ever (no /proc) are clients told apart by Origin alone, which a
program can vary, so all their wrong tries together are capped too (UNKNOWN_CLIENTS_TRIES), after
which the code is void.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from collections.abc import Callable

from msgspec import Struct, field

from .. import settings
from .guard import EXTENSION_SCHEMES
from .handshake import pairing_id

SETTINGS_KEY = "bridge"
DEFAULT_PORT = 47821
CODE_DIGITS = 6
CODE_LIFETIME_S = 600.0
CODE_TRIES = 5  # wrong tries per client and code
UNKNOWN_CLIENTS_TRIES = 20  # all wrong tries of clients the system does not name, per code
CLIENTS_COUNTED = 256  # clients with tries of their own per code; the rest share one count
MAX_PAIRINGS = 8  # browsers paired side by side; pairing one more forgets the oldest
TOKEN_BYTES = 32


def _own_uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


class Paired(Struct, frozen=True):
    token: str
    origin: str | None  # the extension's origin when it sent one; its requests must match it
    browser: str = "a browser"


class Client(Struct, frozen=True):
    """Who tries a code: the user owning the other end of the connection, when the system says
    (peers.py), and the Origin the request names. `named`: whether this system names the users of
    connections at all (Linux): there, a client it does not name is no one's, never the person's."""

    uid: int | None
    origin: str | None
    named: bool = False

    @property
    def unnamed(self) -> bool:
        """The system names users, but not this client's: its socket went before it was read."""
        return self.named and self.uid is None

    @property
    def own_user(self) -> bool:
        return self.uid is not None and self.uid == _own_uid()

    @property
    def extension(self) -> bool:
        return self.origin is not None and self.origin.startswith(EXTENSION_SCHEMES)

    @property
    def key(self) -> tuple[str, str]:
        if self.uid is not None and not self.own_user:
            # Another user's programs share one count, whatever Origin they write.
            return ("user", str(self.uid))
        return ("origin" if self.uid is None else "own", self.origin or "")

    @property
    def may_void(self) -> bool:
        """Whether its last wrong try voids the code: it speaks for the person's browser."""
        return self.extension and (self.uid is None or self.own_user)


class Offer(Struct):
    code: str
    expires: float
    keep_paired: bool
    wrong: dict[tuple[str, str], int] = field(default_factory=dict)  # wrong tries per client
    unknown_wrong: int = 0  # wrong tries of clients the system did not name


class PairingRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def stored() -> dict[str, object]:
    raw = settings.load_settings().get(SETTINGS_KEY)
    return raw if isinstance(raw, dict) else {}


def stored_port() -> int:
    port = stored().get("port")
    return port if isinstance(port, int) and 0 < port < 65536 else DEFAULT_PORT


def remember_port(port: int) -> bool:
    return settings.save(SETTINGS_KEY, {**stored(), "port": port})


def _paired_from(entry: object) -> Paired | None:
    if not isinstance(entry, dict):
        return None
    token, origin, browser = entry.get("token"), entry.get("origin"), entry.get("browser")
    if not isinstance(token, str) or len(token) < 22:  # 22 URL-safe characters: 128 bits
        return None
    return Paired(
        token,
        origin if isinstance(origin, str) else None,
        browser if isinstance(browser, str) and browser else "a browser",
    )


def stored_pairings() -> list[Paired]:
    """The browsers paired now, oldest first (settings of before issue 26 held one, flat)."""
    record = stored()
    entries = record.get("pairings")
    if not isinstance(entries, list):
        entries = [record]
    return [paired for paired in map(_paired_from, entries) if paired is not None]


def _save_pairings(pairings: list[Paired]) -> bool:
    record = {key: value for key, value in stored().items() if key not in ("token", "origin")}
    record["pairings"] = [
        {"token": p.token, "origin": p.origin, "browser": p.browser} for p in pairings
    ]
    return settings.save(SETTINGS_KEY, record)


def forget_pairings() -> bool:
    record = {
        key: value for key, value in stored().items() if key not in ("token", "origin", "pairings")
    }
    return settings.save(SETTINGS_KEY, record)


def _file_stamp() -> tuple[int, int, int] | None:
    try:
        info = settings.settings_file().stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


class Pairing:
    """The bridge's pairing state: the paired browsers and the code on offer (if any)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._stamp = _file_stamp()
        self._pairings = stored_pairings()
        self._offer: Offer | None = None
        self.voided: str | None = None  # why the last code was voided, until a new one is offered

    @property
    def pairings(self) -> list[Paired]:
        """The browsers paired now, as the settings file says (read again when it changed)."""
        stamp = _file_stamp()
        if stamp != self._stamp:
            self._stamp, self._pairings = stamp, stored_pairings()
        return list(self._pairings)

    @property
    def code(self) -> str | None:
        """The code on offer, or None when none is (never asked for, used, expired or voided)."""
        if self._offer is not None and self._clock() >= self._offer.expires:
            self._offer = None
        return self._offer.code if self._offer is not None else None

    @property
    def keeps_paired(self) -> bool:
        """Whether the code on offer pairs a browser beside the paired ones."""
        return self._offer is not None and self._offer.keep_paired

    def offer_code(self, keep_paired: bool = False) -> str:
        code = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
        self._offer = Offer(code, self._clock() + CODE_LIFETIME_S, keep_paired)
        self.voided = None
        return code

    def keep_paired(self, on: bool) -> bool:
        """Whether the code on offer pairs a browser beside the paired ones (the person says so
        in the TUI). False when no code is on offer."""
        if self.code is None or self._offer is None:
            return False
        self._offer.keep_paired = on
        return True

    def withdraw_code(self) -> None:
        self._offer = None

    def pair(self, code: str, client: Client, browser: str = "a browser") -> Paired:
        """Exchange the code for a new token. Raises PairingRefused with BRIDGE_NOT_PAIRING or
        BRIDGE_BAD_CODE."""
        offered = self.code
        offer = self._offer
        if offered is None or offer is None:
            raise PairingRefused(
                "BRIDGE_NOT_PAIRING",
                (
                    "Operator is not offering a pairing code: press b in Operator to start the "
                    "bridge (or choose 'Pair a browser' in its command palette), then type the "
                    "code it shows"
                ),
            )
        if client.unnamed:
            raise PairingRefused(
                "BRIDGE_BAD_REQUEST",
                "Operator could not tell which user sent this pairing request (its connection "
                "closed before it was read): send it again and wait for the answer; it spent no "
                "try",
            )
        if self._tries_spent(offer, client):
            # Before the code is looked at: a client out of tries learns nothing from a right one.
            raise PairingRefused(
                "BRIDGE_BAD_CODE",
                "no tries are left for this client: wrong codes are counted per user and "
                "browser, and the code stays good for the others; ask Operator for a new code",
            )
        typed = code.replace(" ", "").replace("-", "")
        if not hmac.compare_digest(typed.encode("ascii", "replace"), offered.encode()):
            raise self._wrong_try(offer, client)
        self._offer = None
        paired = Paired(secrets.token_urlsafe(TOKEN_BYTES), client.origin, browser[:60])
        kept = [p for p in self.pairings if p.origin != client.origin or p.origin is None]
        pairings = (kept if offer.keep_paired else [])[-(MAX_PAIRINGS - 1) :] + [paired]
        _save_pairings(pairings)
        self._stamp, self._pairings = _file_stamp(), pairings
        return paired

    @staticmethod
    def _counted_as(offer: Offer, client: Client) -> tuple[str, str]:
        key = client.key
        if key not in offer.wrong and len(offer.wrong) >= CLIENTS_COUNTED:
            key = ("others", "")
        return key

    def _tries_spent(self, offer: Offer, client: Client) -> bool:
        return offer.wrong.get(self._counted_as(offer, client), 0) >= CODE_TRIES

    def _wrong_try(self, offer: Offer, client: Client) -> PairingRefused:
        key = self._counted_as(offer, client)
        used = offer.wrong[key] = offer.wrong.get(key, 0) + 1
        if client.uid is None:
            offer.unknown_wrong += 1
        left = CODE_TRIES - used
        if left <= 0 and client.may_void:
            return self._void(
                f"{CODE_TRIES} wrong codes came from the browser",
                "wrong pairing code, and that was the last try: ask Operator for a new code "
                "('Pair a browser' in its command palette)",
            )
        if offer.unknown_wrong >= UNKNOWN_CLIENTS_TRIES:
            return self._void(
                f"{UNKNOWN_CLIENTS_TRIES} wrong codes came from programs on this computer",
                "wrong pairing code, and too many wrong codes came for this one: ask Operator "
                "for a new code ('Pair a browser' in its command palette)",
            )
        if left <= 0:
            return PairingRefused(
                "BRIDGE_BAD_CODE",
                "wrong pairing code, and no tries are left for this client: wrong codes are "
                "counted per user and browser, and the code stays good for the others",
            )
        return PairingRefused(
            "BRIDGE_BAD_CODE",
            (
                f"wrong pairing code; type the {CODE_DIGITS} digits Operator shows "
                f"({left} {'try' if left == 1 else 'tries'} left)"
            ),
        )

    def _void(self, why: str, message: str) -> PairingRefused:
        self._offer = None
        self.voided = why
        return PairingRefused("BRIDGE_BAD_CODE", message)

    def match(self, token: str | None) -> Paired | None:
        """The pairing whose token this is, or None."""
        if token is None:
            return None
        given = token.encode("utf-8", "replace")
        found = None
        for paired in self.pairings:  # each compared in full: the time says nothing of which
            if hmac.compare_digest(given, paired.token.encode()):
                found = paired
        return found

    def named(self, pairing: str) -> Paired | None:
        """The pairing a handshake names by its id (handshake.pairing_id), or None."""
        given = pairing.encode("utf-8", "replace")
        found = None
        for paired in self.pairings:
            if hmac.compare_digest(given, pairing_id(paired.token).encode()):
                found = paired
        return found
