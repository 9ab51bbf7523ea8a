"""Pairing a browser with the bridge: a short code the person reads in the TUI and types into the
extension's popup, exchanged once for a long token that every later request carries. The token
(256 random bits) and the origin that paired are kept in the settings file (mode 0600); tokens are
compared in constant time. A code lives 10 minutes, is good for one pairing, and is voided after 5
wrong tries, so guessing one of its million values is hopeless.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from .. import settings

SETTINGS_KEY = "bridge"
DEFAULT_PORT = 47821
CODE_DIGITS = 6
CODE_LIFETIME_S = 600.0
CODE_TRIES = 5
TOKEN_BYTES = 32


@dataclass(frozen=True)
class Paired:
    token: str
    origin: str | None  # the extension's origin when it sent one; later requests must match it


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


def stored_pairing() -> Paired | None:
    record = stored()
    token, origin = record.get("token"), record.get("origin")
    if not isinstance(token, str) or len(token) < 22:  # 22 URL-safe characters: 128 bits
        return None
    return Paired(token, origin if isinstance(origin, str) else None)


def forget_pairing() -> bool:
    record = {key: value for key, value in stored().items() if key not in ("token", "origin")}
    return settings.save(SETTINGS_KEY, record)


class Pairing:
    """The bridge's pairing state: the paired token (if any) and the code on offer (if any)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.paired = stored_pairing()
        self._code: str | None = None
        self._code_expires = 0.0
        self._tries_left = 0

    @property
    def code(self) -> str | None:
        """The code on offer, or None when none is (never asked for, used, expired or voided)."""
        if self._code is not None and self._clock() >= self._code_expires:
            self._code = None
        return self._code

    def offer_code(self) -> str:
        self._code = "".join(secrets.choice("0123456789") for _ in range(CODE_DIGITS))
        self._code_expires = self._clock() + CODE_LIFETIME_S
        self._tries_left = CODE_TRIES
        return self._code

    def withdraw_code(self) -> None:
        self._code = None

    def pair(self, code: str, origin: str | None) -> Paired:
        """Exchange the code for a new token (the previous token stops working). Raises
        PairingRefused with BRIDGE_NOT_PAIRING or BRIDGE_BAD_CODE."""
        offered = self.code
        if offered is None:
            raise PairingRefused(
                "BRIDGE_NOT_PAIRING",
                (
                    "Operator is not offering a pairing code: press b in Operator to start the "
                    "bridge (or choose 'Pair a browser' in its command palette), then type the "
                    "code it shows"
                ),
            )
        if not hmac.compare_digest(
            code.replace(" ", "").replace("-", "").encode(), offered.encode()
        ):
            self._tries_left -= 1
            if self._tries_left <= 0:
                self._code = None
                raise PairingRefused(
                    "BRIDGE_BAD_CODE",
                    (
                        "wrong pairing code, and that was the last try: ask Operator for a new "
                        "code ('Pair a browser' in its command palette)"
                    ),
                )
            raise PairingRefused(
                "BRIDGE_BAD_CODE",
                (
                    f"wrong pairing code; type the {CODE_DIGITS} digits Operator shows "
                    f"({self._tries_left} tries left)"
                ),
            )
        self._code = None
        self.paired = Paired(secrets.token_urlsafe(TOKEN_BYTES), origin)
        settings.save(SETTINGS_KEY, {**stored(), "token": self.paired.token, "origin": origin})
        return self.paired

    def token_matches(self, token: str | None) -> bool:
        paired = self.paired
        if paired is None or token is None:
            return False
        return hmac.compare_digest(token.encode("utf-8", "replace"), paired.token.encode())
